import NIOCore

extension Endpoint.Transport {
    /// `ws://` and `wss://`.
    public var isWebSocket: Bool { self == .ws || self == .wss }

    /// Transports whose reads return whole messages rather than a byte stream: UDP datagrams
    /// and WebSocket messages. Framing never applies on the wire for these.
    public var isMessageOriented: Bool { self == .udp || isWebSocket }
}

extension SocketEngineError.Code {
    /// The WebSocket handshake failed (HTTP status other than 101, a bad `Sec-WebSocket-Accept` …).
    package static let webSocketHandshake = Self("websocket-handshake")
    /// The peer broke RFC 6455; this side failed the connection with the close code in the message.
    package static let webSocketProtocol = Self("websocket-protocol")
    /// The peer closed the WebSocket with a code other than 1000 (normal) or 1001 (going away).
    package static let webSocketClosed = Self("websocket-closed")
}
