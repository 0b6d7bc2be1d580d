import NIOCore
import NIOWebSocket

/// A reason to fail a WebSocket connection: the close code to send (RFC 6455 §7.4.1) and a
/// short reason for humans (also sent as the close reason).
public struct WebSocketViolation: Sendable, Equatable, CustomStringConvertible {
    /// 1002 protocol error, 1007 invalid payload data, 1009 message too big.
    public let closeCode: UInt16
    /// Short, for humans; also the close frame's reason.
    public let reason: String

    /// A violation that fails the connection with `closeCode` and `reason`.
    public init(_ closeCode: UInt16, _ reason: String) {
        self.closeCode = closeCode
        self.reason = reason
    }

    /// `REASON (close code N)`.
    public var description: String { "\(reason) (close code \(closeCode))" }

    static func protocolError(_ reason: String) -> WebSocketViolation { .init(WebSocketCloseCode.protocolError, reason) }
}
