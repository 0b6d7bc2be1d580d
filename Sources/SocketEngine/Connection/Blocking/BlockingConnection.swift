import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Opens a connection for a thread that drives it with plain system calls (loadtest's
/// `threads` I/O): connect (from a source address, on an interface), then TLS for `tls://` and
/// `wss://`, then the WebSocket upgrade for `ws://` and `wss://` — all within the connect
/// timeout, with the event loops' checks and wording.
///
/// Through a proxy (``ConnectOptions/proxy``) `address` is the proxy's and the tunnel's
/// handshake (``BlockingTunnel``) runs first, on the socket, before anything else.
///
/// ```
/// tcp://, unix:   BlockingSocket                                        ([tunnel] first)
/// tls://          BlockingChannel [TLS layer]                          (as the stream)
/// ws://           BlockingChannel [HTTP upgrade] -> 101 -> BlockingSocket
/// wss://          BlockingChannel [TLS layer, HTTP upgrade] -> 101 -> BlockingChannel [TLS layer]
/// ```
///
/// The TLS layer is the engine's (``SecureTransport``) and the upgrade is
/// ``WebSocketClient``'s own negotiation, both run in a ``BlockingChannel``: NIO's upgrader
/// checks `Sec-WebSocket-Accept`, the engine checks the subprotocol and refuses any
/// extension. Once upgraded, a `ws://` connection goes back to the bare socket (no handler is
/// left on the data path); the WebSocket framing is the caller's (``WebSocketClientFramer``).
package enum BlockingConnection {
    /// An open connection.
    package struct Opened {
        /// What to read and write through.
        package var stream: any BlockingStream
        /// The TLS handshake (`tls://`, `wss://`): its duration measured on the socket's clock.
        package var security: SecurityReport?
        /// What the server sent right behind its 101 (its first frames), or through a proxy
        /// behind the proxy's last message; empty otherwise.
        package var leftover: ByteBuffer
        /// Through a proxy: the tunnel and how long its handshake took.
        package var tunnel: TunnelReport?
    }

    /// Whether opening `transport` takes more than the connect: a TLS handshake, a WebSocket
    /// upgrade. (Without, a caller may connect with ``BlockingSocket/startConnect(to:source:interface:)``
    /// and not wait.)
    package static func hasHandshake(_ transport: Endpoint.Transport) -> Bool {
        transport.isSecured || transport.isWebSocket
    }

    /// Whether opening `endpoint` with `options` takes more than the connect: a proxy's tunnel,
    /// a TLS handshake, a WebSocket upgrade.
    package static func hasHandshake(_ endpoint: Endpoint, options: ConnectOptions) -> Bool {
        hasHandshake(endpoint.transport) || (endpoint.transport != .unix && options.proxy?.proxy(for: endpoint) != nil)
    }

    /// Connects to `address` (one of `endpoint`'s) with `options`' source-independent settings
    /// (interface, TLS, WebSocket), bound first to `source` when given, within
    /// `options.connectTimeout`.
    package static func open(_ endpoint: Endpoint, address: SocketAddress, source: SocketAddress?, options: ConnectOptions) throws -> Opened {
        let timeout = options.connectTimeout
        let deadline = BlockingSocket.now() &+ timeout.nanosecondsClamped
        let tunnelClient = try ChannelOpener.tunnelClient(to: endpoint, at: address, options: options)
        let socket = try BlockingSocket.connect(to: address, source: source, interface: options.interface, timeout: timeout)
        var tunnel: TunnelReport?
        var behind = ByteBuffer()
        if let tunnelClient {
            do {
                (tunnel, behind) = try BlockingTunnel.open(tunnelClient, on: socket, until: deadline)
            } catch {
                socket.close()
                throw error
            }
        }
        let transport = endpoint.transport
        let secured = transport.isSecured
        guard hasHandshake(transport) else { return Opened(stream: socket, security: nil, leftover: behind, tunnel: tunnel) }
        let channel = try BlockingChannel(socket: socket, peer: address)
        do {
            var layer: EventLoopFuture<SecurityReport>?
            if secured {
                guard let secure = options.secureTransport else { throw WebSocketClient.missingTLS(for: transport) }
                layer = try secure.addClientLayer(to: channel.channel, host: endpoint.host)
            }
            var upgrade: (future: EventLoopFuture<WebSocketHandshake>, leftover: LeftoverCollector)?
            if transport.isWebSocket {
                upgrade = try prepareUpgrade(channel.channel, endpoint: endpoint, options: options)
            }
            let started = BlockingSocket.now()
            channel.activate()
            // What came behind the proxy's answer is the server's first bytes.
            if behind.readableBytes > 0 { try channel.receiveFirst(behind) }
            var security: SecurityReport?
            if let layer {
                security = try channel.drive(
                    layer, until: deadline,
                    timedOut: { SocketEngineError(.connectTimeout, "TLS handshake with \(address.displayString) not done in time") },
                    closed: { SocketEngineError(.tlsFailed, "TLS handshake with \(address.displayString) failed: the server closed the connection") })
                security?.handshakeDuration = .nanoseconds(BlockingSocket.now() - started)
            }
            guard let upgrade else { return Opened(stream: channel, security: security, leftover: channel.takeInbound(), tunnel: tunnel) }
            do {
                _ = try channel.drive(
                    upgrade.future, until: deadline,
                    // The event loops' wording (a load connection not upgraded in time).
                    timedOut: { SocketEngineError(.connectTimeout, "WebSocket connection to \(endpoint) not upgraded within \(timeout.formatted)") },
                    closed: { ChannelError.eof })
            } catch {
                throw WebSocketClient.handshakeFailure(error, label: address.displayString)
            }
            // Once the upgrade has finished passing them on; from then on bytes reach the end.
            channel.remove(upgrade.leftover)
            var leftover = upgrade.leftover.take()
            var rest = channel.takeInbound()
            leftover.writeBuffer(&rest)
            return Opened(stream: secured ? channel : channel.release(), security: security, leftover: leftover, tunnel: tunnel)
        } catch {
            channel.close()
            throw error
        }
    }

    /// The HTTP upgrade of ``WebSocketClient/negotiate(_:endpoint:options:install:)``, whose
    /// install keeps the bytes behind the 101 as they are: NIO's frame decoder goes, and a
    /// ``LeftoverCollector`` takes what the upgrade passes on. (NIO's frame encoder stays, out of
    /// the way: a ``BlockingChannel``'s writes enter below it.)
    private static func prepareUpgrade(
        _ channel: any Channel, endpoint: Endpoint, options: ConnectOptions
    ) throws -> (future: EventLoopFuture<WebSocketHandshake>, leftover: LeftoverCollector) {
        let collector = LeftoverCollector()
        let bound = NIOLoopBound(collector, eventLoop: channel.eventLoop)
        let onEvent = options.webSocket.onEvent
        // The blocking framer (WebSocketClientFramer) sends and reads uncompressed messages only.
        var options = options
        options.webSocket.compression = false
        let future = WebSocketClient.negotiate(channel, endpoint: endpoint, options: options) { channel, handshake, label in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
            try operations.addHandler(bound.value, position: .before(decoder))
            operations.removeHandler(decoder, promise: nil)
            operations.removeHandler(try operations.handler(type: EndOfInputWatcher.self), promise: nil)
            onEvent?(.upgraded(connection: label, handshake: handshake))
        }
        return (future, collector)
    }
}

/// Takes the bytes NIO's upgrade passes on behind a 101, in place of the frame decoder.
private final class LeftoverCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    private var bytes = ByteBuffer()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        bytes.writeBuffer(&chunk)
    }

    /// What came.
    func take() -> ByteBuffer {
        defer { bytes = ByteBuffer() }
        return bytes
    }
}
