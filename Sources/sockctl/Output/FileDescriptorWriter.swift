import NIOCore
import SocketEngine
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to a file descriptor with POSIX `write(2)`: loops over short writes and `EINTR`, and
/// on `EPIPE` (the reader went away, as in `sockctl ... | head -c 10`) exits quietly with 141,
/// the status a shell reports for SIGPIPE. Never `FileHandle.write(_:)`, which traps on EPIPE
/// once SIGPIPE is ignored (and NIO ignores it).
final class FileDescriptorWriter: ByteSink, Sendable {
    let descriptor: Int32
    private let lock = Mutex(())

    static let standardOutput = FileDescriptorWriter(descriptor: 1)
    static let standardError = FileDescriptorWriter(descriptor: 2)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func write(_ data: ByteBuffer) async throws {
        data.withUnsafeReadableBytes { writeAll($0) }
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeAll($0) }
    }

    func write(_ text: String) {
        var copy = text
        copy.withUTF8 { writeAll(UnsafeRawBufferPointer($0)) }
    }

    private func writeAll(_ raw: UnsafeRawBufferPointer) {
        guard let failure = lock.withLock({ _ in writeFully(raw, to: descriptor) }) else { return }
        if failure == EPIPE {
            // The reader went away (`| head`): end quietly, as SIGPIPE would.
            exit(141)
        }
        // A real failure (disk full, I/O error): say so, on stderr if that is not the stream
        // that failed.
        let reason = String(cString: strerror(failure))
        if descriptor != 2 {
            let command = CommandLineModel.commandName()
            let message = Array("sockctl\(command.isEmpty ? "" : " " + command): error: writing output: \(reason)\n".utf8)
            _ = message.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
        }
        exit(1)
    }

    var isTerminal: Bool { isatty(descriptor) == 1 }
}
