import NIOCore

/// How WebSocket connections (`ws://`, `wss://`) behave, on either side: handshake headers,
/// limits, pings, closing, and answers given on the event loop.
public struct WebSocketOptions: Sendable {
    /// What the connection answers by itself, on the event loop, to each message.
    public enum Answer: Sendable, Equatable {
        /// Send every message back with its own type (text stays text): `listen --echo`,
        /// `connect --echo-messages` (the Autobahn client mode).
        case echo
        /// Answer every message with this body, as a message of ``WebSocketOptions/messageKind``.
        case respond(ByteBuffer)
    }

    /// Extra request headers (client): `--header 'K: V'`.
    public var headers: [(name: String, value: String)] = []
    /// Client: the subprotocols offered (`Sec-WebSocket-Protocol`), in preference order.
    /// Server: the subprotocols accepted; the first one the client offers that is listed here
    /// is chosen.
    public var subprotocols: [String] = []
    /// Client: the `Origin` header to send.
    public var origin: String?
    /// Server: only these origins may connect (others get 403); empty: any origin, and clients
    /// that send none.
    public var allowedOrigins: [String] = []
    /// The largest message accepted, across its fragments; a larger one fails the connection
    /// with 1009 before it is buffered.
    public var maximumMessageSize = 16 << 20
    /// Send a ping this often (nil: never). Pings from the peer are always answered.
    public var pingInterval: Duration?
    /// The close code sent when this side ends the connection (`--close-code`).
    public var closeCode: UInt16 = WebSocketCloseCode.normal
    /// The close reason sent with it.
    public var closeReason = ""
    /// The type of the messages this side sends (`--binary`).
    public var messageKind: WebSocketMessageKind = .text
    /// Answer messages on the event loop instead of delivering them (nil: deliver them).
    public var answer: Answer?
    /// How long to wait for the HTTP upgrade once connected (the client also stays within
    /// the connect timeout).
    public var handshakeTimeout: Duration = .seconds(10)
    /// How long to wait for the peer's close frame, or for the server to close the TCP
    /// connection, once this side has sent its close frame.
    public var closeTimeout: Duration = .seconds(2)
    /// Sees handshakes, pings, pongs and closes (for `-v`), on the event loop: keep it quick.
    public var onEvent: (@Sendable (WebSocketEvent) -> Void)?

    public init() {}
}

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

/// What the opening handshake established.
public struct WebSocketHandshake: Sendable, Equatable {
    /// The request target (path and query).
    public var resource: String
    /// The `Origin` header the client sent (nil: none).
    public var origin: String?
    /// The subprotocol both sides agreed on, if any.
    public var subprotocol: String?
    /// The `Host` header.
    public var host: String?

    public init(resource: String, origin: String? = nil, subprotocol: String? = nil, host: String? = nil) {
        self.resource = resource
        self.origin = origin
        self.subprotocol = subprotocol
        self.host = host
    }

    /// `GET /chat, Origin: https://example.com, subprotocol chat.v1`.
    public var summary: String {
        var parts = ["GET \(resource)"]
        parts.append("Origin: \(origin ?? "(none)")")
        if let subprotocol { parts.append("subprotocol \(subprotocol)") }
        return parts.joined(separator: ", ")
    }
}

extension SocketEngineError.Code {
    /// The WebSocket handshake failed (HTTP status other than 101, a bad `Sec-WebSocket-Accept` …).
    public static let webSocketHandshake = Self("websocket-handshake")
    /// The peer broke RFC 6455; this side failed the connection with the close code in the message.
    public static let webSocketProtocol = Self("websocket-protocol")
    /// The peer closed the WebSocket with a code other than 1000 (normal) or 1001 (going away).
    public static let webSocketClosed = Self("websocket-closed")
}

extension Endpoint.Transport {
    /// `ws://` and `wss://`.
    public var isWebSocket: Bool { self == .ws || self == .wss }

    /// Transports whose reads return whole messages rather than a byte stream: UDP datagrams
    /// and WebSocket messages. Framing never applies on the wire for these.
    public var isMessageOriented: Bool { self == .udp || isWebSocket }
}
