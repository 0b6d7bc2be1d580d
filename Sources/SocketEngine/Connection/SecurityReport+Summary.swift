
extension SecurityReport {
    /// `TLSv1.3, TLS_AES_128_GCM_SHA256, peer CN=localhost, verified (chain and host name), handshake 2.1ms`
    public var summary: SettingText {
        var parts: [SettingText] = []
        if let protocolVersion { parts.append(SettingText(protocolVersion)) }
        if let cipher { parts.append(SettingText(cipher)) }
        if let applicationProtocol { parts.append("ALPN \(applicationProtocol)") }
        parts.append(SettingText("peer " + (peerSubject ?? "without a certificate")))
        parts.append(verification)
        parts.append("handshake \(handshakeDuration.formatted)")
        var text: SettingText = ""
        for (index, part) in parts.enumerated() { text = index == 0 ? part : "\(text), \(part)" }
        return text
    }
}
