/// The key log one capture decrypts with, shared by all its connections: the secrets read so
/// far and, for a live capture, a way to read lines appended since (`reload`, called when a
/// connection's client random is not found yet).
///
/// A class so that every connection's decryptor sees lines added later (by `reload` or from a
/// capture file's Decryption Secrets Blocks, ``add(_:)``); used from one thread at a time.
package final class TLSKeyStore {
    package private(set) var log: TLSKeyLog
    private let reload: (() -> [UInt8])?
    private let requested: Bool

    /// `reload`: returns the bytes appended to the key log since its last call (empty when
    /// none); nil when the log is complete (a capture file with its key log). `requested`:
    /// a key log was asked for, so connections are decrypted (or say why not) even while it
    /// holds no secrets; otherwise (keys only from a capture file's Decryption Secrets Blocks)
    /// only once some arrived.
    package init(log: TLSKeyLog = TLSKeyLog(), reload: (() -> [UInt8])? = nil, requested: Bool = true) {
        self.log = log
        self.reload = reload
        self.requested = requested
    }

    /// Connections starting now are decrypted: a key log was asked for, or secrets arrived.
    package var isActive: Bool { requested || log.count > 0 }

    /// Keys may still arrive: a connection without them waits (a bounded time) instead of
    /// being given up at once.
    package var isLive: Bool { reload != nil }

    /// More key log text (appended lines, a Decryption Secrets Block).
    package func add(_ text: some Collection<UInt8>) {
        log.add(text)
    }

    /// The secrets of this client random, a live key log's appended lines read first: a
    /// connection's secrets arrive one line at a time (a TLS 1.3 client writes the server's
    /// handshake secret before its own), so a client random already known may still lack the
    /// one asked for. Called when a direction needs its next key, not per record.
    package func secrets(for clientRandom: [UInt8]) -> TLSKeyLog.Secrets? {
        if let reload {
            let more = reload()
            if !more.isEmpty { log.add(more) }
        }
        return log.secrets(for: clientRandom)
    }
}
