import NIOCore

/// A security layer the engine puts on stream connections for `tls://` and `wss://` (the
/// SocketEngineTLS target provides one). Keeping it behind this protocol keeps BoringSSL out of
/// the engine and out of every build that does not need it.
///
/// Both calls run on the channel's event loop inside its initializer, before the engine's own
/// handlers are added: they put their handlers first in the pipeline, so no byte reaches the
/// engine unprotected. The future completes when the handshake has succeeded (and any extra
/// check, such as a pinned key, has passed) and fails with a ``SocketEngineError`` naming the
/// reason otherwise; the channel is closed then.
public protocol SecureTransport: Sendable {
    /// The client side. `host`: the endpoint's host as the user wrote it, a name or an address
    /// literal, whatever the path that connects; the layer alone decides from it (and its own
    /// options) what goes into SNI and which name or address the certificate must carry.
    func addClientLayer(to channel: any Channel, host: String) throws -> EventLoopFuture<SecurityReport>

    /// The server side, on an accepted connection.
    func addServerLayer(to channel: any Channel) throws -> EventLoopFuture<SecurityReport>
}
