extension WebSocketEvent {
    /// The `-v` line of a WebSocket event; nil for the upgrade, which the connected line (or
    /// listen's client line) already tells in order.
    public var logLine: LogLine? {
        switch self {
        case .upgraded:
            return nil
        case .pingSent(let connection):
            return .event("\(connection): ping sent")
        case .pongReceived(let connection, let after):
            return .event("\(connection): pong received" + (after.map { " after \($0.formatted)" } ?? ""))
        case .pingAnswered(let connection):
            return .event("\(connection): ping received, pong sent")
        case .closeReceived(let connection, let code, let reason):
            let status = code.map(WebSocketCloseCode.describe) ?? "no status (1005)"
            return .event("\(connection): close received: \(status)" + (reason.isEmpty ? "" : " '\(reason)'"))
        case .closeSent(let connection, let code, let reason):
            return .event("\(connection): close sent: \(WebSocketCloseCode.describe(code))" + (reason.isEmpty ? "" : " '\(reason)'"))
        case .closedAbnormally(let connection):
            return .event("\(connection): connection ended without a close frame (1006)")
        case .failed(let connection, let violation):
            return .event("\(connection): protocol violation: \(violation.reason); closing with \(WebSocketCloseCode.describe(violation.closeCode))")
        }
    }
}
