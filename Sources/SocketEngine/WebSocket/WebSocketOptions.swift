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
    /// Client: offer permessage-deflate (RFC 7692); server: accept it when a client offers it.
    /// False: the client offers nothing and the server declines every offer.
    public var compression = true
    /// Answer messages on the event loop instead of delivering them (nil: deliver them).
    public var answer: Answer?
    /// How long to wait for the peer's close frame, or for the server to close the TCP
    /// connection, once this side has sent its close frame.
    package var closeTimeout: Duration = .seconds(2)
    /// Answer the peer's close frame only when this side ends its output (half-close), not at
    /// once: a relay keeps sending what the other side of it still has, as RFC 6455 §5.5.1
    /// allows, and closes when that side has finished.
    package var defersCloseReply = false
    /// Sees handshakes, pings, pongs and closes (for `-v`), on the event loop: keep it quick.
    public var onEvent: (@Sendable (WebSocketEvent) -> Void)?

    /// The defaults: text messages, messages up to 16 MiB, no pings, close code 1000, any origin.
    public init() {}
}
