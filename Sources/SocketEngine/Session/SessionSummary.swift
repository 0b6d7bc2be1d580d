import NIOCore
import Synchronization

/// How a session went, for the summary and the exit status.
public struct SessionSummary: Sendable {
    public enum End: Sendable, Equatable {
        /// Input ended and the exchange completed.
        case completed
        /// The peer closed the connection.
        case peerClosed
        /// `--idle-timeout` expired.
        case idle
        /// An error ended the session (see ``error``).
        case failed
    }

    package var end: End = .failed
    /// Set when the session failed: connect refused, reset, unresponsive peer, gave up reconnecting …
    public var error: SocketEngineError?
    public var connections = 0
    public var bytesSent = 0
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
    public var duration: Duration = .zero
}
