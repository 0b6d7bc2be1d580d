import SocketEngine

/// The settings the TLS layer's texts name (handshake refusals and their remedies).
extension SettingKey {
    /// The CA certificates trusted to sign the server's certificate.
    package static let cafile = SettingKey("cafile", plainName: "the CA file")
    /// The server public keys accepted (pinned).
    package static let pin = SettingKey("pin", plainName: "the pinned keys")
    /// The CA certificates a server trusts to sign its clients' certificates.
    package static let clientCA = SettingKey("client-ca", plainName: "the client CA file")
    /// The certificate this side presents.
    package static let cert = SettingKey("cert", plainName: "a certificate")
    /// The private key of that certificate.
    package static let key = SettingKey("key", plainName: "its key")

    /// Every key the TLS layer declares (it also names the engine's ``insecure``).
    package static let tlsKeys: [SettingKey] = [.cafile, .pin, .clientCA, .cert, .key]
}
