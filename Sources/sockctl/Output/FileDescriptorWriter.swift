import NIOCore
import SocketEngine
import Synchronization

import Glibc

/// Writes to a file descriptor with POSIX `write(2)`: loops over short writes and `EINTR`, and
/// on `EPIPE` (the reader went away, as in `sockctl ... | head -c 10`) exits quietly with 141,
/// the status a shell reports for SIGPIPE. Never `FileHandle.write(_:)`, which traps on EPIPE
/// once SIGPIPE is ignored (and NIO ignores it).
///
/// A status line never ends up on the end of a line of output: when stdout and stderr are the
/// same file (one terminal, or `2>&1`) and what stdout last printed did not end its line (a raw
/// reply without a newline), a line written to stderr starts on a line of its own. The newline
/// goes to stderr, so stdout's bytes stay exactly what was received.
final class FileDescriptorWriter: ByteSink, Sendable {
    let descriptor: Int32
    private let lock = Mutex(())
    /// stdout only: the last byte written was not a newline.
    private let lineOpen = Atomic<Bool>(false)

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
        guard raw.count > 0 else { return }
        let failure = lock.withLock { _ -> Int32? in
            if descriptor == 2, Self.standardOutput.lineOpen.exchange(false, ordering: .sequentiallyConsistent), Self.sharedWithStandardOutput {
                let newline: [UInt8] = [0x0A]
                if let failure = newline.withUnsafeBytes({ writeFully($0, to: 2) }) { return failure }
            }
            // Before the bytes are out: once a reader has seen them, a line written to stderr on
            // another thread (a signal's note) must already know where the line stands. (The two
            // streams keep locks of their own, so a stdout that blocks never holds stderr up.)
            if descriptor == 1 { lineOpen.store(!Self.endsAtLineStart(raw), ordering: .sequentiallyConsistent) }
            return writeFully(raw, to: descriptor)
        }
        guard let failure else { return }
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
            _ = message.withUnsafeBytes { Syscall.write(2, $0.baseAddress, $0.count) }
        }
        exit(1)
    }

    var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Whether the cursor is at the start of a line after `raw`: a newline, a carriage return,
    /// or a live line erased (`\r` and erase-line).
    private static func endsAtLineStart(_ raw: UnsafeRawBufferPointer) -> Bool {
        let last = raw[raw.count - 1]
        if last == 0x0A || last == 0x0D { return true }
        return raw.count >= 4 && Array(raw[(raw.count - 4)...]) == [0x0D, 0x1B, 0x5B, 0x4B]
    }

    /// stdout and stderr are the same open file: one terminal, one pipe (`2>&1`), one log file.
    private static let sharedWithStandardOutput: Bool = {
        var out = stat()
        var err = stat()
        guard fstat(1, &out) == 0, fstat(2, &err) == 0 else { return false }
        return out.st_dev == err.st_dev && out.st_ino == err.st_ino
    }()
}
