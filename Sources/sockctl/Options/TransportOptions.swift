import ArgumentParser
import SocketEngine

/// How a client reaches its peer over any transport: the connection options, WebSocket message
/// options, the headers of what it sends, and TLS. Shared by every command that connects
/// (connect, send, replay through ``ClientOptions``; loadtest directly); it becomes the engine's
/// ``ConnectOptions``.
struct TransportOptions: ParsableArguments {
    @OptionGroup(title: "Connection") var connection: ConnectionOptions
    @OptionGroup(title: "WebSocket") var webSocket: WebSocketMessageOptions
    @OptionGroup(title: "Headers (http://, https://, ws:// and wss://)") var headers: HeaderOptions
    @OptionGroup(title: "TLS (tls://, https:// and wss://)") var tls: TLSOptions
    @OptionGroup(title: "Proxy") var proxy: ProxyOptions

    /// The connect options for `endpoint`: WebSocket options only for `ws://` and `wss://`,
    /// headers for those and `http://` and `https://`, TLS only for the secured transports
    /// (given for another endpoint, any of them is a usage error). With `diagnostics` (the run,
    /// not `validate()`), the TLS key log is opened.
    func connectOptions(for endpoint: Endpoint, diagnostics: Diagnostics? = nil) throws -> ConnectOptions {
        var options = connection.makeConnectOptions()
        options.secureTransport = try tls.layer(for: endpoint, diagnostics: diagnostics)
        options.proxy = try proxy.route(for: endpoint, diagnostics: diagnostics)
        if endpoint.transport.isWebSocket {
            webSocket.apply(to: &options.webSocket)
            try headers.apply(to: &options.webSocket)
        } else if webSocket.anyGiven {
            throw UsageError("WebSocket options need a ws:// or wss:// endpoint")
        } else {
            _ = try httpRequestHeaders(for: endpoint)
        }
        return options
    }

    /// The headers to add to each HTTP request to `endpoint` (`http://`, `https://`), checked;
    /// none for a WebSocket endpoint (they go into its handshake: ``connectOptions(for:)``).
    /// Headers given for another transport are a usage error: sockctl makes no request head there.
    func httpRequestHeaders(for endpoint: Endpoint) throws -> [(name: String, value: String)] {
        if endpoint.transport.isWebSocket { return [] }
        if endpoint.transport.isHTTP { return try headers.httpRequestHeaders() }
        if headers.origin != nil {
            throw UsageError("WebSocket options need a ws:// or wss:// endpoint")
        }
        if !headers.headers.isEmpty {
            throw UsageError("--header needs an http://, https://, ws:// or wss:// endpoint (over \(endpoint.transport.rawValue)://, sockctl sends the bytes as given)")
        }
        return []
    }
}
