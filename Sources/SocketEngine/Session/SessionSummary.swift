import NIOCore
import Synchronization

/// How a session went, for the summary and the exit status.
public struct SessionSummary: Sendable {
    /// Why a session ended.
    public enum End: Sendable, Equatable {
        /// Input ended and the exchange completed.
        case completed
        /// The peer closed the connection.
        case peerClosed
        /// `--idle-timeout` expired.
        case idle
        /// An error ended the session (see ``error``).
        case failed
        /// ``ClientSession/stop()`` ended it early (SIGINT, SIGTERM).
        case interrupted
    }

    package var end: End = .failed
    /// True when ``ClientSession/stop()`` ended the session before it ended on its own.
    public var interrupted: Bool { end == .interrupted }
    /// Set when the session failed: connect refused, reset, unresponsive peer, gave up reconnecting …
    public var error: SocketEngineError?
    /// Connections established (more than one after reconnects).
    public var connections = 0
    /// Bytes handed to the kernel, over all connections.
    public var bytesSent = 0
    /// Bytes received, over all connections.
    public var bytesReceived = 0
    /// Bytes read from the input source.
    package var inputBytes = 0
    /// Bytes queued for sending that never reached the kernel because their connection died.
    public var bytesLost = 0
    package var heartbeatsSent = 0
    /// Heartbeats not sent because the connection's send buffer was full.
    public var heartbeatsSkipped = 0
    /// UDP datagrams that arrived faster than the output took them and were dropped.
    public var datagramsDropped = 0
    /// From the start of ``ClientSession/run()`` to its end.
    public var duration: Duration = .zero
}
