import NIOCore
import SocketEngine

import Glibc

/// Reads whole, bounded files given on the command line (`--respond`, `--file`).
enum FileReader {
    /// The file's bytes; more than `limit` bytes, or an unreadable file, is a usage error.
    static func read(_ path: String, limit: Int, option: String) throws -> ByteBuffer {
        let descriptor = path == "-" ? 0 : Syscall.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw UsageError("\(option) \(path): \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != 0 { Syscall.close(descriptor) } }
        return try readAll(descriptor, limit: limit, what: "\(option) \(path)")
    }

    /// Everything readable from `descriptor` until EOF, at most `limit` bytes.
    static func readAll(_ descriptor: Int32, limit: Int, what: String) throws -> ByteBuffer {
        switch WholeFile.read(descriptor, limit: limit) {
        case .success(let bytes): return ByteBuffer(bytes: bytes)
        case .failure(.unreadable(let code)): throw UsageError("\(what): \(String(cString: strerror(code)))")
        case .failure(.tooLarge): throw UsageError("\(what) is larger than the \(limit)-byte message limit (--max-frame)")
        }
    }

    /// Drops one trailing `\n` or `\r\n`, the newline editors add to files.
    static func droppingOneTrailingNewline(_ body: ByteBuffer) -> ByteBuffer {
        var copy = body
        if copy.readableBytes >= 1, copy.getInteger(at: copy.writerIndex - 1, as: UInt8.self) == 0x0A {
            copy.moveWriterIndex(to: copy.writerIndex - 1)
            if copy.readableBytes >= 1, copy.getInteger(at: copy.writerIndex - 1, as: UInt8.self) == 0x0D {
                copy.moveWriterIndex(to: copy.writerIndex - 1)
            }
        }
        return copy
    }
}
