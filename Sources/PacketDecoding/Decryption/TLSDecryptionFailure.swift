/// Why a TLS connection's records are not decrypted; said once per connection.
package enum TLSDecryptionFailure: Equatable, Sendable {
    /// No ClientHello was seen (the capture started mid-connection): no client random to look up.
    case handshakeNotSeen
    /// The key log has no secrets for this connection's client random.
    case noKey
    /// The chosen cipher suite (or protocol version) is not one this decryptor handles.
    case unsupportedSuite(UInt16)
    /// A record did not authenticate: the key log's secret is not this connection's.
    case authenticationFailed
    /// Bytes were missing (not captured) or a record was malformed: the record sequence is lost.
    case lostRecords

    /// The reason as words, after `TLS not decrypted: `.
    package var text: String {
        switch self {
        case .handshakeNotSeen: "the handshake was not captured (capture started mid-connection)"
        case .noKey: "no key in the key log for this connection's client random"
        case .unsupportedSuite(let suite):
            "cipher suite \(TLSNames.cipherSuite(suite).map { "\($0)" } ?? "0x" + String(suite, radix: 16)) is not supported (TLS 1.2/1.3 AES-GCM and ChaCha20-Poly1305 are)"
        case .authenticationFailed: "a record failed authentication (the key log's secret is not this connection's)"
        case .lostRecords: "records are missing from the capture"
        }
    }
}
