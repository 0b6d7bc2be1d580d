import NIOCore
import Synchronization

/// One client, as reported in events.
public struct ClientInfo: Sendable {
    /// 1, 2, 3 … in accept order.
    public let id: Int
    /// The client's address (`127.0.0.1:50412`, `[::1]:50412`), or `unix:PATH` for a Unix-socket client.
    public let peer: String
    /// For WebSocket clients: the path, Origin and subprotocol of the handshake.
    public var webSocket: WebSocketHandshake?
}

/// What a listen service reports as it goes.
public enum ListenEvent: Sendable {
    case clientConnected(ClientInfo)
    case clientDisconnected(ClientInfo, bytesIn: Int, bytesOut: Int, duration: Duration, error: SocketEngineError?)
    case rejected(peer: String, reason: SettingText)
    case datagram(peer: String, bytes: Int)
    case inputRejected(SocketEngineError)
    /// Broadcast messages not delivered to a client that could not keep up.
    case messagesDropped(ClientInfo, count: Int)
    /// A `tls://` client finished its handshake.
    case clientSecured(ClientInfo, SecurityReport)
    /// `listen http://` answered a request: its method and target (`-` when it could not be
    /// read), the answer's status and body length.
    case httpRequest(ClientInfo, method: String, target: String, status: Int, bodyBytes: Int)
    /// A client's command started (``ListenConfiguration/exec``).
    case childStarted(ClientInfo, pid: Int32)
    /// A client's command ended, or could not be started.
    case childEnded(ClientInfo, ExecOutcome)
}
