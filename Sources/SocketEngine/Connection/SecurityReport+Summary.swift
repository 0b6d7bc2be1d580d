
extension SecurityReport {
    /// `TLSv1.3, TLS_AES_128_GCM_SHA256, peer CN=localhost, verified (chain and host name), handshake 2.1ms`
    public var summary: String {
        var parts: [String] = []
        if let protocolVersion { parts.append(protocolVersion) }
        if let cipher { parts.append(cipher) }
        if let applicationProtocol { parts.append("ALPN \(applicationProtocol)") }
        parts.append("peer " + (peerSubject ?? "without a certificate"))
        parts.append(verification)
        parts.append("handshake \(handshakeDuration.formatted)")
        return parts.joined(separator: ", ")
    }
}
