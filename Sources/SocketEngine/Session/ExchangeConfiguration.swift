import NIOCore

/// Everything `sockctl send` asks of one exchange.
public struct ExchangeConfiguration: Sendable {
    /// Where to connect.
    public var endpoint: Endpoint
    /// How to connect: address family, source, timeout, resolver, TLS and WebSocket options.
    public var connect = ConnectOptions()
    /// How messages are framed on the wire and responses cut (`--framing`); `raw` by default.
    public var framing: Framing = .raw
    /// The largest response accepted, in bytes (`--max-frame`); 16 MiB by default.
    public var maximumFrameSize = FrameDecoder.defaultMaximumFrameSize
    /// Message bodies, each sent as one frame (one datagram on UDP).
    public var messages: [ByteBuffer] = []
    /// Responses to wait for after each round. With `raw` framing over a stream, any value
    /// above zero means "everything until the peer closes", which counts as one response.
    public var responses = 1
    /// Send the messages (and wait for the responses) this many times on one connection.
    public var rounds = 1
    /// Budget for the whole exchange after the connection is up.
    public var timeout: Duration = Self.defaultTimeout
    /// The budget unless one is given: 5 s.
    public static let defaultTimeout: Duration = .seconds(5)
    /// Keep received responses in the result (for JSON), up to this many bytes in total.
    public var collectLimit = 0
    /// `send --correlate`: the key of a message body (nil: it has none). With it, each round
    /// waits for every message's own reply — the response with the message's key — however
    /// the replies are ordered and whatever else arrives; ``responses`` is not used. Each
    /// message needs a key of its own within its round.
    public var correlate: (@Sendable (ByteBuffer) -> String?)?

    /// `http://` and `https://`: how each message (or, with none, one request without a body)
    /// is sent as a request; each gets one response, cut as HTTP (``framing`` is not used).
    public var http: HTTPRequestSpec?

    /// An exchange with `endpoint` with the defaults: no messages, one response, one round, a 5 s timeout.
    public init(endpoint: Endpoint) {
        self.endpoint = endpoint
    }

    /// The responses the whole exchange waits for: one per message with ``correlate``; else
    /// ``responses`` per round, or one when reading until the peer closes.
    public var expectedResponses: Int {
        if http != nil { return max(1, messages.count) * rounds }
        if correlate != nil { return messages.count * rounds }
        return readsUntilClose ? min(1, responses) : responses * rounds
    }

    /// True when responses are read until the peer closes instead of counted.
    public var readsUntilClose: Bool {
        http == nil && framing == .raw && !endpoint.transport.isMessageOriented
    }
}
