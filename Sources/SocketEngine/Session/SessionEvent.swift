import NIOCore
import Synchronization

/// What a session reports as it goes (rendered by `-v`).
public enum SessionEvent: Sendable {
    case connected(ConnectReport, local: SocketAddress?, remote: SocketAddress?)
    case connectFailed(SocketEngineError)
    case inputFinished(ClientSessionConfiguration.InputEnd)
    case inputRejected(SocketEngineError)
    case peerFinished
    case connectionLost(SocketEngineError?)
    case reconnecting(after: Duration, attempt: Int, of: Int)
    case heartbeatSent
    case peerUnresponsive(silentFor: Duration)
    case idleTimeout(Duration)
}
