import NIOCore
import NIOPosix

import Glibc

/// The one place a client channel's bootstrap is configured, for the engine's ``Connector`` and
/// for a load generator that puts its own handler on the channel.
///
/// It sets the connect timeout, `TCP_NODELAY`, remote half-closure and the buffers; binds the
/// socket to the interface (`SO_BINDTODEVICE`) and to the source address of the target's family;
/// puts the TLS layer on `tls://` channels; and for UDP binds the source (or the wildcard
/// address of the target's family), gives each read a 64 KiB buffer (a whole datagram) and
/// connects. What goes on the channel then is the caller's: the engine's handlers, the
/// WebSocket upgrade (``WebSocketClient``, ``WebSocketLoadClient``), or a load test's handler.
/// Which address to connect to is the caller's too (Happy Eyeballs races several).
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

    /// What the channels carry (`tls://`: the TLS layer is put on in the initializer).
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

    // MARK: Streams

    /// Connects a stream channel (tcp, tls, ws, wss; unix by address) to `address` on `loop`.
    /// In its initializer, on the loop: the interface binding, the TLS layer for `tls://` (with
    /// `host` as the server name), then `initialize` with that layer's handshake (nil but for
    /// `tls://`); a throw fails the connect.
    package func openStream(
        to address: SocketAddress, host: String, on loop: any EventLoop,
        initialize: @escaping @Sendable (any Channel, EventLoopFuture<SecurityReport>?) throws -> Void
    ) -> EventLoopFuture<any Channel> {
        let unix = transport == .unix
        var bootstrap = streamBootstrap(on: loop)
        if !unix {
            bootstrap = bootstrap.channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: options.noDelay ? 1 : 0)
        }
        let transport = self.transport
        let secure = options.secureTransport
        bootstrap = bootstrap.channelInitializer { [interface = unix ? nil : options.interface] channel in
            Self.bind(channel, interface: interface).flatMapThrowing {
                var handshake: EventLoopFuture<SecurityReport>?
                if transport == .tls {
                    guard let secure else {
                        throw SocketEngineError(.unsupported, "tls:// needs a TLS layer (ConnectOptions.secureTransport)")
                    }
                    handshake = try secure.addClientLayer(to: channel, host: host)
                }
                try initialize(channel, handshake)
            }
        }
        if !unix {
            do {
                if let source = try source(for: address) { bootstrap = bootstrap.bind(to: source) }
            } catch {
                return loop.makeFailedFuture(error)
            }
        }
        return bootstrap.connect(to: address)
    }

    /// Connects a Unix stream socket at `path` on `loop`; `initialize` runs in its initializer.
    package func openUnix(path: String, on loop: any EventLoop, initialize: @escaping @Sendable (any Channel) throws -> Void) -> EventLoopFuture<any Channel> {
        streamBootstrap(on: loop)
            .channelInitializer { channel in channel.eventLoop.makeCompletedFuture { try initialize(channel) } }
            .connect(unixDomainSocketPath: path)
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
    /// wildcard address) and the interface, then connected to `address`. `initialize` runs in
    /// its initializer, before it is bound.
    package func openDatagram(
        to address: SocketAddress, on loop: any EventLoop, initialize: @escaping @Sendable (any Channel) throws -> Void = { _ in }
    ) -> EventLoopFuture<any Channel> {
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
                Self.bind(channel, interface: interface).flatMapThrowing { try initialize(channel) }
            }
            .bind(to: local)
            .flatMap { channel in
                channel.connect(to: address).map { channel }.flatMapErrorThrowing { error in
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
