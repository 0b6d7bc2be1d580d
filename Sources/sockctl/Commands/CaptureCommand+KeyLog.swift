import PacketDecoding
import SocketEngine

import Glibc

extension CaptureCommand {
    /// `--keylog FILE`: the secrets it holds now; for a live capture, lines appended later are
    /// read when a connection's client random is not known yet. Opened before privileges are
    /// dropped (the key log may be readable by its owner only). Nil without `--keylog`.
    func keyStore(live: Bool) throws -> TLSKeyStore? {
        guard let keylogFile else { return nil }
        let file = try KeyLogFile(path: keylogFile)
        var log = TLSKeyLog()
        log.add(file.readAppended())
        if !live { log.finish() }
        if log.malformedLines > 0 {
            FileDescriptorWriter.standardError.write(
                "sockctl capture: --keylog \(keylogFile): \(log.malformedLines) malformed line\(log.malformedLines == 1 ? "" : "s") ignored\n")
        }
        if !live && log.count == 0 {
            FileDescriptorWriter.standardError.write("sockctl capture: --keylog \(keylogFile) holds no TLS secrets\n")
        }
        return TLSKeyStore(log: log, reload: live ? { file.readAppended() } : nil)
    }
}

/// The key log file of `capture --keylog`, kept open: each read returns what was appended
/// since the last one (curl, browsers and openssl append a connection's lines as it starts).
final class KeyLogFile {
    /// The most read at once (a key log line is under 300 bytes).
    static let maximumRead = 64 << 20
    private let descriptor: Int32
    private let path: String

    init(path: String) throws {
        self.path = path
        descriptor = Syscall.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw UsageError("--keylog \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { Syscall.close(descriptor) }

    /// The bytes appended since the last call (empty when none, or when the file cannot be read).
    func readAppended() -> [UInt8] {
        switch WholeFile.read(descriptor, limit: Self.maximumRead) {
        case .success(let bytes): return bytes
        case .failure: return []
        }
    }
}
