import PacketDecoding

/// `-w FILE`: packets written as a pcap file (microsecond or nanosecond) through ``PcapWriter``,
/// or as a pcapng file through ``PcapngWriter`` (which can also carry TLS key logs), to a sink
/// the caller opened — a file, or stdout for `-`. Writes are buffered by the writer;
/// ``finish()`` flushes and closes. A failed write (disk full, a closed pipe) is a
/// `.writeFailed` error naming the file.
///
/// The caller opens the file (sockctl through its one opening path, which refuses paths it
/// cannot write and symbolic links before the capture starts): this type only writes.
public final class CaptureFileOutput {
    /// The name given (`-` for stdout); error messages start with it.
    public let name: String
    // Exactly one is set; optional chaining mutates it in place (no copy of its buffer).
    private var pcap: PcapWriter?
    private var pcapng: PcapngWriter?
    private let close: () -> Void
    private var closed = false
    /// `-U`: each packet goes to the file as it is written, not in chunks.
    private let packetBuffered: Bool

    /// Writes the file header (pcapng: the section and interface blocks) to `write` at once (so a
    /// capture that sees no packet still leaves a valid file, like `tcpdump -w`); `nanoseconds`
    /// selects nanosecond timestamps, `pcapng` the pcapng format, `packetBuffered` a write to
    /// the sink per packet (tcpdump's `-U`); `close` runs once at ``finish()``. Fails with
    /// `.writeFailed`.
    public init(
        name: String, linkType: LinkType, snapshotLength: Int, nanoseconds: Bool, pcapng: Bool = false,
        packetBuffered: Bool = false, write: @escaping ([UInt8]) throws -> Void, close: @escaping () -> Void
    ) throws(CaptureError) {
        self.name = name
        self.close = close
        self.packetBuffered = packetBuffered
        let precision: TimestampPrecision = nanoseconds ? .nanoseconds : .microseconds
        do {
            if pcapng {
                self.pcapng = try PcapngWriter(linkType: linkType, snapshotLength: snapshotLength, precision: precision, write: write)
            } else {
                self.pcap = try PcapWriter(linkType: linkType, snapshotLength: snapshotLength, precision: precision, write: write)
            }
        } catch {
            close()
            throw Self.failure(error, name: name)
        }
    }

    /// Adds one record, cut to the snapshot length and buffered; a failed write is `.writeFailed`.
    public func write(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer) throws(CaptureError) {
        do {
            try pcap?.write(header, bytes)
            try pcapng?.write(header, bytes)
            if packetBuffered {
                try pcap?.flush()
                try pcapng?.flush()
            }
        } catch {
            throw Self.failure(error, name: name)
        }
    }

    /// Bytes of the file so far, buffered ones included (what tcpdump's `-C` compares).
    public var byteCount: Int64 { pcap?.byteCount ?? pcapng?.byteCount ?? 0 }

    /// Whether the file is pcapng (and so can carry decryption secrets).
    public var isPcapng: Bool { pcapng != nil }

    /// pcapng: writes TLS key log lines (NSS format) as a Decryption Secrets Block, at once, so
    /// the packets written after it can be decrypted by a reader (Wireshark, tshark, `capture
    /// -r`). A pcap file cannot carry them: nothing is written. A failed write is `.writeFailed`.
    public func writeDecryptionSecrets(_ keyLogText: [UInt8]) throws(CaptureError) {
        do {
            try pcapng?.writeDecryptionSecrets(keyLogText)
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
            try pcap?.flush()
            try pcapng?.flush()
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
