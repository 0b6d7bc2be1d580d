import SocketEngine

/// `-v` lines for WebSocket events.
enum WebSocketEventRenderer {
    static func render(_ event: WebSocketEvent, diagnostics: Diagnostics) {
        switch event {
        case .upgraded:
            // Said in order by the connected line of connect and send (after the TCP and TLS
            // lines), and by listen's client line.
            break
        case .pingSent(let connection):
            diagnostics.event("\(connection): ping sent")
        case .pongReceived(let connection, let after):
            diagnostics.event("\(connection): pong received" + (after.map { " after \($0.formatted)" } ?? ""))
        case .pingAnswered(let connection):
            diagnostics.event("\(connection): ping received, pong sent")
        case .closeReceived(let connection, let code, let reason):
            let status = code.map(WebSocketCloseCode.describe) ?? "no status (1005)"
            diagnostics.event("\(connection): close received: \(status)" + (reason.isEmpty ? "" : " '\(reason)'"))
        case .closeSent(let connection, let code, let reason):
            diagnostics.event("\(connection): close sent: \(WebSocketCloseCode.describe(code))" + (reason.isEmpty ? "" : " '\(reason)'"))
        case .closedAbnormally(let connection):
            diagnostics.event("\(connection): connection ended without a close frame (1006)")
        case .failed(let connection, let violation):
            diagnostics.event("\(connection): protocol violation: \(violation.reason); closing with \(WebSocketCloseCode.describe(violation.closeCode))")
        }
    }
}
