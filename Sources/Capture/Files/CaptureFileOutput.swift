import PacketDecoding

/// `-w FILE`: packets written as a pcap file (microsecond or nanosecond) through ``PcapWriter``
/// to a sink the caller opened — a file, or stdout for `-`. Writes are buffered by the writer;
/// ``finish()`` flushes and closes. A failed write (disk full, a closed pipe) is a
/// `.writeFailed` error naming the file.
///
/// The caller opens the file (sockctl through its one opening path, which refuses paths it
/// cannot write and symbolic links before the capture starts): this type only writes.
public final class CaptureFileOutput {
    /// The name given (`-` for stdout); error messages start with it.
    public let name: String
    private var writer: PcapWriter
    private let close: () -> Void
    private var closed = false

    /// Writes the pcap file header to `write` at once (so a capture that sees no packet still
    /// leaves a valid file, like `tcpdump -w`); `nanoseconds` selects nanosecond timestamps;
    /// `close` runs once at ``finish()``. Fails with `.writeFailed`.
    public init(
        name: String, linkType: LinkType, snapshotLength: Int, nanoseconds: Bool,
        write: @escaping ([UInt8]) throws -> Void, close: @escaping () -> Void
    ) throws(CaptureError) {
        self.name = name
        self.close = close
        do {
            writer = try PcapWriter(linkType: linkType, snapshotLength: snapshotLength, precision: nanoseconds ? .nanoseconds : .microseconds, write: write)
        } catch {
            close()
            throw Self.failure(error, name: name)
        }
    }

    /// Adds one record, cut to the snapshot length and buffered; a failed write is `.writeFailed`.
    public func write(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer) throws(CaptureError) {
        do {
            try writer.write(header, bytes)
        } catch {
            throw Self.failure(error, name: name)
        }
    }

    /// Writes what is buffered and closes the file.
    public func finish() throws(CaptureError) {
        defer {
            if !closed { close() }
            closed = true
        }
        do {
            try writer.flush()
        } catch {
            throw Self.failure(error, name: name)
        }
    }

    private static func failure(_ error: any Error, name: String) -> CaptureError {
        if let error = error as? CaptureError { return error }
        let text = "\(error)"
        return CaptureError(.writeFailed, text.hasPrefix(name) ? text : "\(name): \(text)")
    }
}
