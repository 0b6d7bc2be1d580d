extension SlotPolicy.Census {
    /// What holds the places, for the line refusing a newcomer: `2 in TLS handshake, 60 idle
    /// for 10s or more, 38 active` (only the kinds there are).
    package func text(rules: SlotRules) -> String {
        let window = rules.rateWindow.formatted
        let parts: [(Int, String)] = [
            (tlsHandshake, "in TLS handshake"),
            (webSocketHandshake, "in WebSocket handshake"),
            (idle, "idle for \(window) or more"),
            (slow, "below \(SlotRules.rateText(rules.minimumRate))"),
            (young, "connected less than \(window) ago"),
            (active, "active"),
        ]
        let text = parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        return text.isEmpty ? "none" : text
    }
}

extension SlotPolicy.Verdict {
    /// Why a client was closed: `idle for 30s`, `made room for a new client: 10 bytes in 10s, below 500 bytes/s`.
    package func text(rules: SlotRules) -> String {
        switch self {
        case .idle(let timeout):
            return "idle for \(timeout.formatted)"
        case .slow(let bytes, let span):
            return "made room for a new client: \(plural(bytes, "byte")) in \(span.formatted), below \(SlotRules.rateText(rules.minimumRate))"
        }
    }

    /// The error a closed client ends with.
    package func error(peer: String, rules: SlotRules) -> SocketEngineError {
        switch self {
        case .idle: SocketEngineError(.idleTimeout, "\(peer): \(text(rules: rules))")
        case .slow: SocketEngineError(.clientShed, "\(peer): \(text(rules: rules))")
        }
    }
}

extension SlotRules {
    /// `500 bytes/s`, `4KiB/s`.
    package static func rateText(_ bytesPerSecond: Int) -> String {
        let size = ByteCount.format(bytesPerSecond)
        return size.allSatisfy(\.isNumber) ? "\(size) bytes/s" : "\(size)/s"
    }
}
