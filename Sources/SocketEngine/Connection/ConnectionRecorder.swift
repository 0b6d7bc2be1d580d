import NIOCore
import Synchronization

/// What a ``ConnectionRecorder`` hears about one connection.
public enum ConnectionRecordEvent: Sendable {
    /// The connection is up (always the first event of a connection).
    case opened(local: SocketAddress?, remote: SocketAddress?, transport: Endpoint.Transport)
    case sent(ByteBuffer)
    case received(ByteBuffer)
    /// `.sent`: this side shut down its output (FIN); `.received`: the peer's FIN arrived.
    case finished(TrafficDirection)
    /// `.sent`: this side aborted the connection; `.received`: the peer reset it.
    case reset(TrafficDirection)
    /// The connection is closed (always the last event).
    case closed
}

/// Hears every connection's life — addresses, bytes each way, FINs, resets — for `--record`.
///
/// Called on the connection's event loop with a number that tells connections apart: keep it
/// quick (queue the event, never block on I/O). Only connections handed to the application
/// are recorded: the losers of a Happy Eyeballs race are not.
public typealias ConnectionRecorder = @Sendable (_ connection: UInt64, _ event: ConnectionRecordEvent) -> Void

/// Numbers connections for recorders.
enum ConnectionNumbers {
    static let next = Atomic<UInt64>(1)

    static func take() -> UInt64 {
        next.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}
