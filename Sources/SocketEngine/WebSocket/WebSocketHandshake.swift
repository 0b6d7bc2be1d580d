import NIOCore
import WebSocketDeflate

/// What the opening handshake established.
public struct WebSocketHandshake: Sendable, Equatable {
    /// The request target (path and query).
    package var resource: String
    /// The `Origin` header the client sent (nil: none).
    public var origin: String?
    /// The subprotocol both sides agreed on, if any.
    public var subprotocol: String?
    /// The `Host` header.
    public var host: String?
    /// The permessage-deflate agreement (nil: messages are not compressed).
    public var compression: PerMessageDeflate?

    /// A handshake for the request target `resource`; each header is nil when it was not sent.
    public init(resource: String, origin: String? = nil, subprotocol: String? = nil, host: String? = nil, compression: PerMessageDeflate? = nil) {
        self.resource = resource
        self.origin = origin
        self.subprotocol = subprotocol
        self.host = host
        self.compression = compression
    }

    /// `GET /chat, Origin: https://example.com, subprotocol chat.v1`.
    public var summary: String {
        var parts = ["GET \(resource)"]
        parts.append("Origin: \(origin ?? "(none)")")
        if let subprotocol { parts.append("subprotocol \(subprotocol)") }
        if let compression { parts.append(compression.summary) }
        return parts.joined(separator: ", ")
    }
}
