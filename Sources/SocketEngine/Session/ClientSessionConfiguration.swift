import NIOCore
import Synchronization

/// Everything `sockctl connect` asks of a session.
public struct ClientSessionConfiguration: Sendable {
    public enum Direction: Sendable {
        case both
        /// Send input; what arrives is read and counted but not delivered.
        case sendOnly
        /// Never read input; deliver what arrives.
        case receiveOnly
    }

    /// What end of input does to the connection.
    public enum InputEnd: Sendable {
        /// Shut down the write side and keep receiving until the peer closes (ncat's default).
        case halfClose
        /// Do nothing; keep the connection open until the peer closes (`--no-shutdown`).
        case keepOpen
        /// Close the whole connection (`--close-on-eof`).
        case close
    }

    public var endpoint: Endpoint
    public var connect = ConnectOptions()
    public var framing: Framing = .raw
    public var maximumFrameSize = FrameDecoder.defaultMaximumFrameSize
    public var direction: Direction = .both
    public var inputEnd: InputEnd = .halfClose
    public var idleTimeout: Duration?
    public var reconnect: ReconnectPolicy?
    public var heartbeat: HeartbeatConfiguration?
    /// `--crlf`: LF becomes CRLF in raw input.
    public var translateLineEndings = false
    /// End the session as soon as the peer finishes sending, even if input is still open
    /// (what an interactive user expects). Otherwise the peer's FIN only ends its direction
    /// and input keeps flowing until it ends. With a reconnect policy the peer finishing
    /// always ends the connection (and a new one is made).
    public var endsWhenPeerFinishes = false
    /// Datagrams have no end of stream: after input ends, a UDP session keeps receiving
    /// replies until nothing has arrived for this long (or for `idleTimeout`, if set).
    package var datagramLinger: Duration = .seconds(2)

    public init(endpoint: Endpoint) {
        self.endpoint = endpoint
    }
}
