import NIOCore
import NIOHTTP1
import NIOWebSocket

import Glibc

/// WebSocket client connections for a load generator, which puts its own handler where the
/// engine's connection handler goes: it reads each message as one `ByteBuffer` and each
/// buffer it writes is one message.
package enum WebSocketLoadClient {
    /// In the channel initializer (on the channel's loop), before connecting: for `wss://` the
    /// TLS layer, then the HTTP upgrade, sent as soon as the channel is active. On 101 the
    /// WebSocket layer and `handler` are added. Returns the TLS report (`wss://` only) and
    /// the upgrade's future; a connection that is not upgraded within `timeout` (counted from
    /// now, so it covers connecting, TLS and the upgrade) or is refused is closed, and the
    /// upgrade fails with the reason.
    package static func prepare(
        _ channel: any Channel,
        endpoint: Endpoint,
        options: ConnectOptions,
        timeout: Duration,
        handler: some ChannelHandler
    ) throws -> (security: EventLoopFuture<SecurityReport>?, upgraded: EventLoopFuture<Void>) {
        let security = try WebSocketClient.addTLSLayer(to: channel, endpoint: endpoint, options: options)
        let bound = NIOLoopBound(handler, eventLoop: channel.eventLoop)
        let webSocket = options.webSocket
        let upgraded = WebSocketClient.negotiate(channel, endpoint: endpoint, options: options) { channel, handshake, label in
            try WebSocketClient.install(on: channel, role: .client, handshake: handshake, options: webSocket, label: label) { channel, _ in
                try channel.pipeline.syncOperations.addHandler(bound.value)
            }
        }
        let both = (security.map { report in report.flatMap { _ in upgraded } } ?? upgraded).map { _ in () }
        let result = WebSocketClient.bounded(both, on: channel, endpoint: endpoint, timeout: timeout) { _ in
            "WebSocket connection to \(endpoint) not upgraded within \(timeout.formatted)"
        }
        return (security, result)
    }
}
