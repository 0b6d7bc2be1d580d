import NIOCore

/// What a WebSocket connection did, for `-v`.
public enum WebSocketEvent: Sendable {
    /// The upgrade succeeded: what was asked for and agreed.
    case upgraded(connection: String, handshake: WebSocketHandshake)
    case pingSent(connection: String)
    case pongReceived(connection: String, after: Duration?)
    case pingAnswered(connection: String)
    /// The peer sent a close frame (`code` nil: it carried no status).
    case closeReceived(connection: String, code: UInt16?, reason: String)
    case closeSent(connection: String, code: UInt16, reason: String)
    /// This side failed the connection for a protocol violation.
    case failed(connection: String, WebSocketViolation)
    /// The TCP connection ended with no close frame from either side (reported as 1006).
    case closedAbnormally(connection: String)
}
