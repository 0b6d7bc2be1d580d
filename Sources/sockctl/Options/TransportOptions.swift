import ArgumentParser
import SocketEngine

/// How a client reaches its peer over any transport: the connection options, WebSocket message
/// and handshake options, and TLS. Shared by every command that connects (connect, send, replay
/// through ``ClientOptions``; loadtest directly); it becomes the engine's ``ConnectOptions``.
struct TransportOptions: ParsableArguments {
    @OptionGroup(title: "Connection") var connection: ConnectionOptions
    @OptionGroup(title: "WebSocket") var webSocket: WebSocketMessageOptions
    @OptionGroup(title: "WebSocket") var handshake: WebSocketHandshakeOptions
    @OptionGroup(title: "TLS (tls:// and wss://)") var tls: TLSOptions

    /// The connect options for `endpoint`: WebSocket options only for `ws://` and `wss://`, TLS
    /// only for `tls://` and `wss://` (given for another endpoint, either is a usage error).
    func connectOptions(for endpoint: Endpoint) throws -> ConnectOptions {
        var options = connection.makeConnectOptions()
        options.secureTransport = try tls.layer(for: endpoint)
        if endpoint.transport.isWebSocket {
            webSocket.apply(to: &options.webSocket)
            handshake.apply(to: &options.webSocket)
        } else if webSocket.anyGiven || handshake.anyGiven {
            throw UsageError("WebSocket options need a ws:// or wss:// endpoint")
        }
        return options
    }
}
