import PacketDecoding

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `-w FILE`: packets written as a pcap file (microsecond or nanosecond) to a path, or to stdout
/// for `-`, through ``PcapWriter``. Writes are buffered by the writer; ``finish()`` flushes and
/// closes. A failed write (disk full, a closed pipe) is a `.writeFailed` error naming the path.
public final class CaptureFileOutput {
    /// The path given (`-` for stdout); error messages start with it.
    public let path: String
    private var writer: PcapWriter
    private let descriptor: Int32

    /// Creates or truncates `path` (mode 0644; `-` is stdout) and writes the pcap file header at
    /// once; `nanoseconds` selects nanosecond timestamps. Fails with `.writeFailed`.
    public init(path: String, linkType: LinkType, snapshotLength: Int, nanoseconds: Bool) throws(CaptureError) {
        self.path = path
        if path == "-" {
            descriptor = 1
        } else {
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            if descriptor < 0 { throw CaptureError(.writeFailed, "\(path): \(String(cString: strerror(errno)))") }
        }
        let target = descriptor
        do {
            writer = try PcapWriter(linkType: linkType, snapshotLength: snapshotLength, precision: nanoseconds ? .nanoseconds : .microseconds) { chunk in
                try Self.writeAll(chunk, to: target, path: path)
            }
        } catch {
            if descriptor > 2 { close(descriptor) }
            throw Self.failure(error, path: path)
        }
    }

    /// Adds one record, cut to the snapshot length and buffered; a failed write is `.writeFailed`.
    public func write(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer) throws(CaptureError) {
        do {
            try writer.write(header, bytes)
        } catch {
            throw Self.failure(error, path: path)
        }
    }

    /// Writes what is buffered and closes the file.
    public func finish() throws(CaptureError) {
        defer { if descriptor > 2 { close(descriptor) } }
        do {
            try writer.flush()
        } catch {
            throw Self.failure(error, path: path)
        }
    }

    private static func writeAll(_ chunk: [UInt8], to descriptor: Int32, path: String) throws(CaptureError) {
        let failure: Int32? = chunk.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return nil }
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(descriptor, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw CaptureError(.writeFailed, "\(path): \(String(cString: strerror(failure)))") }
    }

    private static func failure(_ error: any Error, path: String) -> CaptureError {
        error as? CaptureError ?? CaptureError(.writeFailed, "\(path): \(error)")
    }
}
