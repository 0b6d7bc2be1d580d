import Capture
import PacketDecoding
import SocketEngine

import Glibc

extension CaptureCommand {
    /// The TLS secrets of this capture: `--keylog FILE` (for a live capture, lines appended later
    /// are read when a connection's client random is not known yet, and for `-w NAME.pcapng` at
    /// most every 100 ms), and with `-r` the key log text of the file's Decryption Secrets
    /// Blocks. Opened before privileges are dropped (a key log may be readable by its owner
    /// only). Nil for a live capture without `--keylog`.
    func keyLogFeed(live: Bool) throws -> KeyLogFeed? {
        guard let keylogFile else { return live ? nil : KeyLogFeed(file: nil, live: false) }
        let file = try KeyLogFile(path: keylogFile)
        let feed = KeyLogFeed(file: file, live: live)
        let log = feed.store.log
        if log.malformedLines > 0 {
            FileDescriptorWriter.standardError.write(
                "sockctl capture: --keylog \(keylogFile): \(log.malformedLines) malformed line\(log.malformedLines == 1 ? "" : "s") ignored\n")
        }
        if !live && log.count == 0 {
            FileDescriptorWriter.standardError.write("sockctl capture: --keylog \(keylogFile) holds no TLS secrets\n")
        }
        return feed
    }
}

/// Where a capture's TLS secrets come from and go: the key log file (read whole at the start,
/// then what is appended), the Decryption Secrets Blocks of a pcapng file read with `-r`; all of
/// it feeds the decryptors' ``TLSKeyStore`` and, with `-w NAME.pcapng`, is written as
/// Decryption Secrets Blocks before the next packet (so each file holds the keys of the packets
/// after them).
final class KeyLogFeed {
    let store: TLSKeyStore
    private let file: KeyLogFile?
    /// Text read but not yet written to the -w file.
    private let unwritten: KeyLogText
    private var lastPoll: UInt64 = 0

    /// The most kept unwritten (a capture that never writes keeps no more).
    static let maximumUnwritten = 16 << 20

    final class KeyLogText {
        var bytes: [UInt8] = []

        func append(_ more: [UInt8]) {
            if bytes.count + more.count <= KeyLogFeed.maximumUnwritten { bytes += more }
        }
    }

    init(file: KeyLogFile?, live: Bool) {
        self.file = file
        let unwritten = KeyLogText()
        var log = TLSKeyLog()
        if let file {
            let text = file.readAppended()
            log.add(text)
            unwritten.append(text)
            if !live { log.finish() }
        }
        self.unwritten = unwritten
        store = TLSKeyStore(
            log: log,
            reload: live ? file.map { file in
                { () -> [UInt8] in
                    let text = file.readAppended()
                    unwritten.append(text)
                    return text
                }
            } : nil,
            requested: file != nil)
    }

    /// Before each packet: the secrets the input file brought, lines appended to the key log
    /// (when writing pcapng, at most every 100 ms), and what is new written to the -w file.
    func beforePacket(input: FilteredCaptureFile?, writer: CaptureFileRotation?) throws(CaptureError) {
        if let text = input?.takeDecryptionSecrets() {
            store.add(text)
            unwritten.append(text)
        }
        guard let writer else { return }
        if let file, !(store.isLive == false && input != nil) {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let milliseconds = UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
            if milliseconds >= lastPoll + 100 {
                lastPoll = milliseconds
                let text = file.readAppended()
                if !text.isEmpty {
                    store.add(text)
                    unwritten.append(text)
                }
            }
        }
        guard !unwritten.bytes.isEmpty else { return }
        try writer.writeDecryptionSecrets(unwritten.bytes)
        unwritten.bytes.removeAll()
    }
}

/// The key log file of `capture --keylog`, kept open: each read returns what was appended
/// since the last one (curl, browsers and openssl append a connection's lines as it starts).
final class KeyLogFile {
    /// The most read at once (a key log line is under 300 bytes).
    static let maximumRead = 64 << 20
    private let descriptor: Int32

    init(path: String) throws {
        let opened = Syscall.open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else {
            throw UsageError("--keylog \(path): \(String(cString: strerror(errno)))")
        }
        // A directory opens but never reads: said now, not found out as "no secrets" (or, in a
        // live capture, as connections that are never decrypted).
        var info = stat()
        if fstat(opened, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            Syscall.close(opened)
            throw UsageError("--keylog \(path): \(String(cString: strerror(EISDIR)))")
        }
        descriptor = opened
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
