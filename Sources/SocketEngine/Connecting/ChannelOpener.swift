import NIOCore
import NIOPosix

import Glibc

/// The one place a client channel's bootstrap is configured, for the engine's ``Connector`` and
/// for a load generator that puts its own handler on the channel.
///
/// It sets the connect timeout, `TCP_NODELAY`, remote half-closure and the buffers; binds the
/// socket to the interface (`SO_BINDTODEVICE`) and to the source address of the target's family;
/// puts the TLS layer on `tls://` and `wss://` channels; for UDP binds the source (or the
/// wildcard address of the target's family), gives each read a 64 KiB buffer (a whole datagram)
/// and connects; for `ws://` and `wss://` performs the HTTP upgrade (``WebSocketClient``'s
/// negotiation: the accept key, the subprotocol and extensions checked, the bytes behind the 101
/// kept) and puts the WebSocket layer on. What goes on the channel then is the caller's
/// (``Hooks/install``): the engine's handlers, or a load test's. Which address to connect to
/// is the caller's too (Happy Eyeballs races several).
///
/// Through a proxy (``ConnectOptions/proxy``) the channel connects to the proxy and the
/// tunnel's handshake (``TunnelHandler``) comes first: the handlers above hear that the channel
/// is active once the tunnel to the destination is open, and the open completes then.
///
/// ```
/// tcp, unix:  [tunnel], install                          (in the initializer, before connecting)
/// tls:        [tunnel], TLS layer, install               (in the initializer)
/// udp:        bind, connect, install                     (no proxy)
/// ws, wss:    [tunnel], [TLS layer], HTTP upgrade -> 101 -> WebSocket layer, install
/// ```
package struct ChannelOpener: Sendable {
    /// The buffer settings of a stream channel.
    package enum Buffers: Sendable {
        /// The engine's connections: remote half-closure, ``Connection/writeWaterMark`` and
        /// ``Connection/receiveAllocator``.
        case connection
        /// NIO's defaults, for a load test's many connections; remote half-closure only for
        /// WebSocket, whose close handshake needs it.
        case nioDefaults
    }

    /// What the caller puts on each channel, and what it hears of the TLS handshake.
    package struct Hooks: Sendable {
        /// Puts the caller's handlers on the channel, on its loop: for tcp, tls (above the TLS
        /// layer) and unix in the initializer, before connecting; for udp once connected; for
        /// ws and wss once the server's 101 is in, above the WebSocket layer, before any frame
        /// that came behind the 101 is passed on. A throw fails the connection.
        package var install: @Sendable (any Channel, Installing) throws -> Void
        /// tls and wss: the TLS layer's handshake, given as the layer is put on (in the
        /// initializer, on the loop, before connecting).
        package var secured: (@Sendable (any Channel, EventLoopFuture<SecurityReport>) -> Void)?
        /// Through a proxy: the tunnel's handshake, given as its handler is put on (in the
        /// initializer, on the loop, before connecting).
        package var tunnelled: (@Sendable (any Channel, EventLoopFuture<TunnelReport>) -> Void)?

        package init(
            install: @escaping @Sendable (any Channel, Installing) throws -> Void,
            secured: (@Sendable (any Channel, EventLoopFuture<SecurityReport>) -> Void)? = nil,
            tunnelled: (@Sendable (any Channel, EventLoopFuture<TunnelReport>) -> Void)? = nil
        ) {
            self.install = install
            self.secured = secured
            self.tunnelled = tunnelled
        }
    }

    /// What ``Hooks/install`` is told about the channel it puts handlers on.
    package struct Installing {
        /// tls: the TLS layer's handshake, still under way (a handler may wait for it); nil
        /// for the other transports (over wss the handshake is done before the upgrade).
        package var handshake: EventLoopFuture<SecurityReport>?
        /// ws and wss: the upgrade's outcome and the WebSocket layer below the caller's
        /// handlers, which read each message as one `ByteBuffer` and write one message per
        /// buffer; nil for the other transports.
        package var webSocket: WebSocketLayer?
    }

    /// A WebSocket channel as its upgrade left it (see ``Installing/webSocket``).
    package struct WebSocketLayer {
        /// What the client and the server agreed.
        package let handshake: WebSocketHandshake
        /// The server's address as the connection's events name it.
        package let label: String
        /// The WebSocket layer's handler, right below the caller's.
        let handler: WebSocketHandler
    }

    /// A stream channel under way (tcp, tls, ws, wss, unix).
    struct Attempt: Sendable {
        /// Completes once connected: what a Happy Eyeballs race waits for.
        let connected: EventLoopFuture<any Channel>
        /// ws and wss: completes once upgraded (TLS for wss, the 101, ``Hooks/install`` run);
        /// a failure is as the handshake met it (``WebSocketClient/bounded(_:on:endpoint:timeout:timedOut:)``
        /// words it and closes the channel). nil for the other transports.
        let upgraded: EventLoopFuture<WebSocketHandshake>?
    }

    /// What the channels carry (`tls://`, `wss://`: the TLS layer is put on in the initializer).
    package let transport: Endpoint.Transport
    package let options: ConnectOptions
    package let buffers: Buffers
    /// The source addresses (``ConnectOptions/source`` resolved); each channel binds the one of
    /// its target's family. Empty: none bound.
    package let sources: [SocketAddress]

    package init(transport: Endpoint.Transport, options: ConnectOptions, buffers: Buffers, sources: [SocketAddress]) {
        self.transport = transport
        self.options = options
        self.buffers = buffers
        self.sources = sources
    }

    /// An opener for `transport` with the interface checked and the source resolved, once:
    /// throws `.invalidConfiguration` for an unknown interface or a source that does not resolve.
    package static func make(transport: Endpoint.Transport, options: ConnectOptions, buffers: Buffers) async throws(SocketEngineError) -> ChannelOpener {
        try checkInterface(options.interface)
        let sources = try await options.source?.resolve(options.resolver, datagram: transport == .udp) ?? []
        return ChannelOpener(transport: transport, options: options, buffers: buffers, sources: sources)
    }

    /// The TLS layer `transport` is carried over: the options' for tls, wss and https, nil for
    /// the others. Throws `.unsupported` when one of those finds the options without one.
    static func secureLayer(for transport: Endpoint.Transport, options: ConnectOptions) throws(SocketEngineError) -> (any SecureTransport)? {
        guard transport.isSecured else { return nil }
        guard let secure = options.secureTransport else {
            throw transport != .tls
                ? WebSocketClient.missingTLS(for: transport)
                : SocketEngineError(.unsupported, "tls:// needs a TLS layer (ConnectOptions.secureTransport)")
        }
        return secure
    }

    /// The proxy a connection to `endpoint` goes through (nil: none); throws `.unsupported` for
    /// a udp:// endpoint the options would send through one (a proxy carries streams only).
    package static func proxy(for endpoint: Endpoint, options: ConnectOptions) throws(SocketEngineError) -> ProxyEndpoint? {
        guard let proxy = options.proxy?.proxy(for: endpoint) else { return nil }
        guard endpoint.transport != .udp else {
            throw SocketEngineError(.unsupported, "\(endpoint) cannot go through the proxy \(proxy): a proxy carries streams only (no UDP)")
        }
        return proxy
    }

    /// Throws `.invalidConfiguration` when `interface` names no network interface of this host.
    package static func checkInterface(_ interface: String?) throws(SocketEngineError) {
        if let interface, if_nametoindex(interface) == 0 {
            throw SocketEngineError(.invalidConfiguration, "unknown interface '\(interface)'")
        }
    }

    /// The source to bind for a connection to `address`: nil when none is given; fails with
    /// `.bindFailed` when none is of `address`'s family.
    package func source(for address: SocketAddress) throws(SocketEngineError) -> SocketAddress? {
        guard !sources.isEmpty else { return nil }
        guard let match = sources.first(where: { $0.protocol == address.protocol }) else {
            throw SocketEngineError(.bindFailed, "no \(address.familyName) source address to bind")
        }
        return match
    }

    /// Opens one channel of ``transport`` to `address` (of `endpoint`, which gives the TLS
    /// server name and the WebSocket request) on `loop`, with the caller's handlers put on by
    /// `hooks`. Completes once the channel is connected (udp, tcp, unix; tls too: its
    /// handshake goes on, told to ``Hooks/secured``), or for ws and wss once upgraded: within
    /// ``ConnectOptions/connectTimeout`` from now, past which the channel is closed and the
    /// failure is a `.connectTimeout`; a refused or failed upgrade fails with the engine's
    /// `.webSocketHandshake` (or the TLS layer's error) and the channel closed.
    package func open(to address: SocketAddress, endpoint: Endpoint, on loop: any EventLoop, hooks: Hooks) -> EventLoopFuture<any Channel> {
        if transport == .udp { return openDatagram(to: address, on: loop, hooks: hooks) }
        let timeout = options.connectTimeout
        let attempt = connectStream(to: address, endpoint: endpoint, on: loop, hooks: hooks) { upgrade, channel in
            WebSocketClient.bounded(upgrade, on: channel, endpoint: endpoint, timeout: timeout) { _ in
                "WebSocket connection to \(endpoint) not upgraded within \(timeout.formatted)"
            }
        }
        guard let upgraded = attempt.upgraded else { return attempt.connected }
        return attempt.connected.flatMap { channel in upgraded.map { _ in channel } }
    }

    // MARK: Streams

    /// Connects a stream channel (tcp, tls, ws, wss, unix) to `address` on `loop`. In its
    /// initializer, on the loop: the interface binding, the TLS layer for tls and wss (with the
    /// endpoint's host as the server name), then for ws and wss the HTTP upgrade (its future
    /// passed through `bound`, in the initializer, for a time limit counted from there), else
    /// ``Hooks/install``; a throw fails the connect.
    func connectStream(
        to address: SocketAddress, endpoint: Endpoint, on loop: any EventLoop, hooks: Hooks,
        bound: @escaping @Sendable (EventLoopFuture<WebSocketHandshake>, any Channel) -> EventLoopFuture<WebSocketHandshake> = { upgrade, _ in upgrade }
    ) -> Attempt {
        let unix = transport == .unix
        var bootstrap = streamBootstrap(on: loop)
        if !unix {
            bootstrap = bootstrap.channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: options.noDelay ? 1 : 0)
        }
        let transport = self.transport
        let options = self.options
        let upgraded = transport.isWebSocket ? loop.makePromise(of: WebSocketHandshake.self) : nil
        let tunnel: TunnelClient?
        do {
            tunnel = try Self.tunnelClient(to: endpoint, at: address, options: options)
        } catch {
            upgraded?.fail(error)
            return Attempt(connected: loop.makeFailedFuture(error), upgraded: upgraded?.futureResult)
        }
        let tunnelled = tunnel.map { _ in loop.makePromise(of: TunnelReport.self) }
        bootstrap = bootstrap.channelInitializer { [interface = unix ? nil : options.interface] channel in
            Self.bind(channel, interface: interface).flatMapThrowing {
                var handshake: EventLoopFuture<SecurityReport>?
                if let secure = try Self.secureLayer(for: transport, options: options) {
                    let layer = try secure.addClientLayer(to: channel, host: endpoint.host)
                    hooks.secured?(channel, layer)
                    handshake = layer
                }
                // Below the TLS layer (which puts itself first): its bytes go before the ClientHello.
                if let preamble = options.preamble {
                    try channel.pipeline.syncOperations.addHandler(PreambleWriter(preamble), position: .first)
                }
                if let upgraded {
                    let upgrade = Self.upgrade(channel, endpoint: endpoint, options: options, install: hooks.install)
                    bound(handshake.map { layer in layer.flatMap { _ in upgrade } } ?? upgrade, channel).cascade(to: upgraded)
                } else {
                    try hooks.install(channel, Installing(handshake: handshake, webSocket: nil))
                }
                if let tunnel, let tunnelled {
                    // Nearest the socket, below the TLS layer (which puts itself first too).
                    let handler = TunnelHandler(client: tunnel, timeout: options.connectTimeout.timeAmount, promise: tunnelled)
                    try channel.pipeline.syncOperations.addHandler(handler, position: .first)
                    hooks.tunnelled?(channel, tunnelled.futureResult)
                }
            }
        }
        if !unix {
            do {
                if let source = try source(for: address) { bootstrap = bootstrap.bind(to: source) }
            } catch {
                upgraded?.fail(error)
                tunnelled?.fail(error)
                return Attempt(connected: loop.makeFailedFuture(error), upgraded: upgraded?.futureResult)
            }
        }
        var connected = bootstrap.connect(to: address)
        // A connect that fails before (or in) the initializer leaves no upgrade to wait for.
        if let upgraded { connected.whenFailure { upgraded.fail($0) } }
        if let tunnelled {
            // Through a proxy, connected means the tunnel is open.
            connected.whenFailure { tunnelled.fail($0) }
            connected = connected.flatMap { channel in tunnelled.futureResult.map { _ in channel } }
            if let upgraded { connected.whenFailure { upgraded.fail($0) } }
        }
        return Attempt(connected: connected, upgraded: upgraded?.futureResult)
    }

    /// The handshake of the tunnel to `endpoint` through the proxy at `address`, nil without a
    /// proxy (or for unix:, which never goes through one).
    static func tunnelClient(to endpoint: Endpoint, at address: SocketAddress, options: ConnectOptions) throws(SocketEngineError) -> TunnelClient? {
        guard endpoint.transport != .unix, let route = options.proxy, let proxy = try proxy(for: endpoint, options: options) else { return nil }
        return try TunnelClient(proxy: proxy, target: route.target(for: endpoint, through: proxy), label: address.displayString)
    }

    /// The HTTP upgrade (``WebSocketClient/negotiate(_:endpoint:options:install:)``), sent once
    /// the channel is active (for wss once TLS is up); on 101 the WebSocket layer, then `install`.
    private static func upgrade(
        _ channel: any Channel, endpoint: Endpoint, options: ConnectOptions,
        install: @escaping @Sendable (any Channel, Installing) throws -> Void
    ) -> EventLoopFuture<WebSocketHandshake> {
        let webSocket = options.webSocket
        return WebSocketClient.negotiate(channel, endpoint: endpoint, options: options) { channel, handshake, label in
            try WebSocketClient.install(on: channel, role: .client, handshake: handshake, options: webSocket, label: label) { channel, handler in
                try install(channel, Installing(handshake: nil, webSocket: WebSocketLayer(handshake: handshake, label: label, handler: handler)))
            }
        }
    }

    private func streamBootstrap(on loop: any EventLoop) -> ClientBootstrap {
        let bootstrap = ClientBootstrap(group: loop).connectTimeout(options.connectTimeout.timeAmount)
        switch buffers {
        case .connection:
            return bootstrap
                .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
                .channelOption(ChannelOptions.writeBufferWaterMark, value: Connection.writeWaterMark)
                .channelOption(ChannelOptions.recvAllocator, value: Connection.receiveAllocator)
        case .nioDefaults:
            return transport.isWebSocket ? bootstrap.channelOption(ChannelOptions.allowRemoteHalfClosure, value: true) : bootstrap
        }
    }

    // MARK: Datagrams

    /// A UDP channel on `loop`, bound to the source of `address`'s family (or that family's
    /// wildcard address) and the interface, then connected to `address`; ``Hooks/install`` runs
    /// once it is connected (a throw closes it and fails the open).
    private func openDatagram(to address: SocketAddress, on loop: any EventLoop, hooks: Hooks) -> EventLoopFuture<any Channel> {
        let local: SocketAddress
        do {
            if let source = try source(for: address) {
                local = source
            } else {
                local = try SocketAddress(ipAddress: address.protocol == .inet6 ? "::" : "0.0.0.0", port: 0)
            }
        } catch {
            return loop.makeFailedFuture(error)
        }
        return DatagramBootstrap(group: loop)
            .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65536))
            .channelInitializer { [interface = options.interface] channel in
                Self.bind(channel, interface: interface)
            }
            .bind(to: local)
            .flatMap { channel in
                channel.connect(to: address).flatMapThrowing {
                    try hooks.install(channel, Installing(handshake: nil, webSocket: nil))
                    return channel
                }
                .flatMapErrorThrowing { error in
                    channel.close(promise: nil)
                    throw error
                }
            }
    }

    // MARK: Interface

    /// Binds `channel` to a network interface (SO_BINDTODEVICE) before it connects; nil: none.
    static func bind(_ channel: any Channel, interface: String?) -> EventLoopFuture<Void> {
        guard let interface, let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededVoidFuture()
        }
        let name = InterfaceName(interface)
        return provider.unsafeSetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_BINDTODEVICE), value: name.bytes)
            .flatMapErrorThrowing { error in
                throw SocketEngineError.wrapping(error, context: "bind to interface \(interface)")
            }
    }
}

/// `IFNAMSIZ` bytes for `SO_BINDTODEVICE`: the interface's name, at most 15 bytes, NUL-terminated.
package struct InterfaceName: Sendable {
    package var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    package init(_ name: String) {
        let utf8 = Array(name.utf8.prefix(15))
        withUnsafeMutableBytes(of: &bytes) { raw in
            for (index, byte) in utf8.enumerated() { raw[index] = byte }
        }
    }
}
