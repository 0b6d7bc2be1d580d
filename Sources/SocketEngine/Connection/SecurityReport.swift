import NIOCore

/// What a security layer (TLS) reports once its handshake is done: for `-v`, `send --json`
/// and load-test reports.
public struct SecurityReport: Sendable, Equatable {
    /// `TLSv1.3`, `TLSv1.2`.
    public var protocolVersion: String?
    /// The negotiated cipher suite, IANA name (`TLS_AES_128_GCM_SHA256`).
    public var cipher: String?
    /// The peer certificate's subject (`CN=localhost`), if it sent one.
    public var peerSubject: String?
    /// How the peer was checked: `verified`, `verified, pin matched`, `not verified` (with verification turned off), the setting by key.
    public var verification: SettingText
    /// The ALPN protocol agreed, if any.
    package var applicationProtocol: String?
    /// From the start of the handshake to its end.
    public var handshakeDuration: Duration

    /// The report of a finished handshake; only `verification` has no default.
    public init(protocolVersion: String? = nil, cipher: String? = nil, peerSubject: String? = nil, verification: SettingText,
                applicationProtocol: String? = nil, handshakeDuration: Duration = .zero) {
        self.protocolVersion = protocolVersion
        self.cipher = cipher
        self.peerSubject = peerSubject
        self.verification = verification
        self.applicationProtocol = applicationProtocol
        self.handshakeDuration = handshakeDuration
    }
}
