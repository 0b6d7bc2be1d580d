import NIOCore
import Synchronization

/// Everything `sockctl connect` asks of a session.
public struct ClientSessionConfiguration: Sendable {
    /// Which way bytes flow (`--send-only`, `--recv-only`).
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

    /// Where to connect.
    public var endpoint: Endpoint
    /// How to connect: address family, source, timeout, resolver, TLS and WebSocket options.
    public var connect = ConnectOptions()
    /// How input and received bytes are cut into messages (`--framing`); `raw` by default.
    public var framing: Framing = .raw
    /// The largest message accepted, in bytes (`--max-frame`); 16 MiB by default.
    public var maximumFrameSize = FrameDecoder.defaultMaximumFrameSize
    /// Which way bytes flow; both ways by default.
    public var direction: Direction = .both
    /// What end of input does to the connection; a half-close by default.
    public var inputEnd: InputEnd = .halfClose
    /// End the session once no byte has gone either way for this long (`--idle-timeout`); nil: never.
    public var idleTimeout: Duration?
    /// When to connect again after a lost or failed connection (`--reconnect`); nil: the first loss
    /// ends the session.
    public var reconnect: ReconnectPolicy?
    /// Send a payload every interval and give up on a silent peer (`--heartbeat`); nil: no heartbeat.
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

    /// A session to `endpoint` with the defaults: both directions, raw framing, half-close at end of
    /// input, no idle timeout, no reconnect.
    public init(endpoint: Endpoint) {
        self.endpoint = endpoint
    }
}
