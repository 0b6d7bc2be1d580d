import NIOCore
import NIOPosix
import Synchronization

import Glibc

/// Something a listener did on its own: refused a peer, or hit an accept error.
public enum ListenerEvent: Sendable {
    case rejected(peer: String, reason: SettingText)
}

/// A listening stream socket (TCP or Unix-domain) that hands out admitted clients as
/// ``Connection``s.
///
/// Admission happens before a connection is handed out: peers refused by the ``AccessPolicy``
/// or beyond ``ListenOptions/maximumClients`` are closed at once and reported through
/// ``events``. Accept errors such as `EMFILE` back off instead of spinning (NIO's
/// `AcceptBackoffHandler`).
///
/// A `tls://` client is handed out once its TLS handshake is done, a `ws://` or `wss://` client
/// once upgraded; a handshake that fails, or is not done within
/// ``SlotRules/handshakeTimeout`` of the accept, is a refusal with its reason. Places are kept
/// by the ``SlotRules`` of ``ListenOptions/slotRules`` (see ``ClientSlots``).
public final class Listener: Sendable {
    /// Where the listener is bound.
    public let localAddresses: [SocketAddress]
    /// Admitted clients, in accept order. Finishes when the listener is closed.
    public let connections: AsyncStream<Connection>
    /// Refusals, for logging. Bounded: under a flood of refused peers the oldest unread events
    /// are dropped; ``rejectedCount`` stays exact.
    package let events: AsyncStream<ListenerEvent>
    /// Every peer refused so far.
    package var rejectedCount: Int { refusals.count.count }
    private let refusals: Refusals
    /// The places under ``ListenOptions/maximumClients`` and who holds them.
    let slots: ClientSlots

    private let channels: [any Channel]
    private let connectionSink: AsyncStream<Connection>.Continuation
    private let socketPath: String?

    private init(
        channels: [any Channel],
        connections: (AsyncStream<Connection>, AsyncStream<Connection>.Continuation),
        refusals: Refusals,
        slots: ClientSlots,
        socketPath: String?
    ) {
        self.refusals = refusals
        self.slots = slots
        self.channels = channels
        self.localAddresses = channels.compactMap(\.localAddress)
        self.connections = connections.0
        self.connectionSink = connections.1
        self.events = refusals.stream
        self.socketPath = socketPath
        if slots.needsKeeper {
            // Ends once the listener has closed and its last client has gone.
            Task { await slots.keep() }
        }
    }

    /// Binds and starts accepting.
    public static func bind(_ endpoint: Endpoint, options: ListenOptions = ListenOptions()) async throws -> Listener {
        switch endpoint.transport {
        case .tcp, .unix, .ws, .wss, .http:
            break
        case .tls, .https:
            guard options.secureTransport != nil else {
                throw SocketEngineError(.unsupported, "tls:// needs a TLS layer (ListenOptions.secureTransport)")
            }
        case .udp:
            throw SocketEngineError(.unsupported, "listening on \(endpoint.transport.rawValue):// is not supported yet")
        }
        if endpoint.transport == .wss && options.secureTransport == nil { throw WebSocketClient.missingTLS(for: .wss) }
        let connections = AsyncStream<Connection>.makeStream()
        let refusals = Refusals()
        let slots = ClientSlots(limit: options.maximumClients, rules: options.slotRules, clock: options.clock, refusals: refusals)
        let bootstrap = makeBootstrap(
            endpoint: endpoint,
            options: options,
            connections: connections.1,
            refusals: refusals,
            slots: slots
        )

        if endpoint.transport == .unix {
            try removeStaleSocket(at: endpoint.path)
            let previous = umask(0o077)
            defer { umask(previous) }
            do {
                let channel = try await bootstrap.bind(unixDomainSocketPath: endpoint.path).get()
                return Listener(channels: [channel], connections: connections, refusals: refusals, slots: slots, socketPath: endpoint.path)
            } catch {
                throw SocketEngineError.wrapping(error, context: "bind unix:\(endpoint.path)")
            }
        }

        let addresses = try await BindPlan.addresses(for: endpoint, resolver: options.resolver, datagram: false)
        let channels = try await BindPlan.bindAll(
            addresses,
            optionalAfterFirst: endpoint.host.isEmpty,
            bind: { try await bootstrap.bind(to: $0).get() },
            port: { $0.localAddress?.port }
        )
        return Listener(channels: channels, connections: connections, refusals: refusals, slots: slots, socketPath: nil)
    }

    /// Keeps `connection`'s place until ``ClientSlot/release()`` rather than until its channel
    /// closes: for a client that goes on after its channel is closed (the relay's
    /// ``EpollRelayedClient``). On the connection's event loop. Nil: it holds no place of this listener.
    func keepSlot(of connection: Connection) -> ClientSlot? {
        guard let slot = slots.slot(for: connection.channel) else { return nil }
        slot.keep()
        slots.handedOver(slot)
        return slot
    }

    private static func makeBootstrap(
        endpoint: Endpoint,
        options: ListenOptions,
        connections: AsyncStream<Connection>.Continuation,
        refusals: Refusals,
        slots: ClientSlots
    ) -> ServerBootstrap {
        let transport = endpoint.transport
        let phase: SlotPolicy<EngineClock.Instant>.Phase = switch transport {
        case .tls, .wss, .https: .tlsHandshake
        case .ws: .webSocketHandshake
        case .tcp, .unix, .udp, .http: .serving
        }
        return ServerBootstrap(group: options.group)
            .serverChannelOption(ChannelOptions.backlog, value: options.backlog)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoffHandler(shouldForwardIOErrorCaught: false))
                    // Before NIO's AcceptHandler: decides in accept order, on the server's loop.
                    try channel.pipeline.syncOperations.addHandler(
                        AdmissionHandler(access: options.access, refusals: refusals, slots: slots, phase: phase)
                    )
                }
            }
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelOption(ChannelOptions.writeBufferWaterMark, value: Connection.writeWaterMark)
            .childChannelOption(ChannelOptions.recvAllocator, value: Connection.receiveAllocator)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: transport == .unix ? 0 : 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try prepareClient(channel, endpoint: endpoint, options: options, refusals: refusals, slot: slots.slot(for: channel)) { connection in
                        // Accepted just as the listener closed: nobody will serve it.
                        if case .terminated = connections.yield(connection) { channel.close(promise: nil) }
                    }
                }
            }
    }

    /// Sets up an accepted client's channel, in its initializer: the TLS layer, the WebSocket
    /// upgrade, the engine's handlers. `admit` receives the connection once it can be served:
    /// when active (plain TCP and Unix), once the TLS handshake is done (`tls://`), once
    /// upgraded (`ws://`, `wss://`). A handshake that fails or is not done within the handshake
    /// timeout (in the loop's time, from now) is reported to `refusals` and the channel closed.
    static func prepareClient(
        _ channel: any Channel,
        endpoint: Endpoint,
        options: ListenOptions,
        refusals: Refusals,
        slot: ClientSlot?,
        admit: @escaping @Sendable (Connection) -> Void
    ) throws {
        if options.acceptsProxyProtocol {
            // The rest of the set-up waits for the header: the client's label is the address it carries.
            let peer = channel.remoteAddress
            let receiver = ProxyProtocolReceiver(timeout: options.slotRules.handshakeTimeout) { result in
                switch result {
                case .success:
                    do {
                        try prepareServing(channel, endpoint: endpoint, options: options, refusals: refusals, slot: slot, active: true, admit: admit)
                    } catch {
                        channel.close(promise: nil)
                        refusals.refuse(peer, because: SocketEngineError.classify(error).1)
                    }
                case .failure(let error):
                    refusals.refuse(peer, because: error.text)
                }
            }
            try channel.pipeline.syncOperations.addHandler(receiver)
            return
        }
        try prepareServing(channel, endpoint: endpoint, options: options, refusals: refusals, slot: slot, active: false, admit: admit)
    }

    /// ``prepareClient(_:endpoint:options:refusals:slot:admit:)`` after a PROXY protocol header,
    /// if any: `active` when the channel is active already (a plain client is then admitted at once).
    private static func prepareServing(
        _ channel: any Channel,
        endpoint: Endpoint,
        options: ListenOptions,
        refusals: Refusals,
        slot: ClientSlot?,
        active: Bool,
        admit: @escaping @Sendable (Connection) -> Void
    ) throws {
        let transport = endpoint.transport
        if transport.isWebSocket {
            // Handed out once upgraded (the channel is active by then).
            try WebSocketServer.prepare(channel, endpoint: endpoint, options: options, refusals: refusals, slot: slot, admit: admit)
            return
        }
        guard transport.isSecured, let secure = options.secureTransport else {
            try Connection.prepare(channel, transport: transport, setup: options.setup)
            let connection = try Connection.attach(to: channel, transport: transport)
            slot?.watch(connection.statistics)
            if active {
                admit(connection)
            } else {
                try channel.pipeline.syncOperations.handler(type: ConnectionHandler.self).onActive = { admit(connection) }
            }
            return
        }
        // Known from the accept; a closed channel no longer says.
        let peer = channel.remoteAddress
        let security = try secure.addServerLayer(to: channel)
        try Connection.prepare(channel, transport: transport, setup: options.setup)
        let connection = try Connection.attach(to: channel, transport: transport, security: security)
        slot?.watch(connection.statistics)
        let timeout = options.slotRules.handshakeTimeout
        let timedOut = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
        let timer = channel.eventLoop.assumeIsolated().scheduleTask(in: timeout.timeAmount) {
            timedOut.value = true
            // Closed (its place given back) before it is reported: whoever reads the report can connect.
            channel.close(promise: nil)
            refusals.refuse(peer ?? channel.remoteAddress, because: "no TLS handshake within \(timeout.formatted)")
        }
        security.assumeIsolated().whenComplete { result in
            timer.cancel()
            switch result {
            case .success:
                slot?.enter(.serving)
                admit(connection)
            case .failure(let error):
                let remote = peer ?? channel.remoteAddress
                channel.close(promise: nil)
                if !timedOut.value { refusals.refuse(remote, because: Self.handshakeFailure(error)) }
            }
        }
    }

    /// The reason a failed TLS handshake is refused with: `TLS handshake failed: …`.
    static func handshakeFailure(_ error: any Error) -> SettingText {
        let reason = SocketEngineError.classify(error).1
        return reason.description.hasPrefix("TLS") ? reason : "TLS handshake failed: \(reason)"
    }

    /// Stops accepting; clients already handed out are not touched.
    public func close() async {
        for channel in channels {
            try? await channel.close().get()
        }
        connectionSink.finish()
        refusals.finish()
        slots.finish()
        if let socketPath { unlink(socketPath) }
    }

    /// Removes a leftover socket file only if it is a socket nobody listens on.
    static func removeStaleSocket(at path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw SocketEngineError(.bindFailed, "bind unix:\(path): a file that is not a socket is in the way")
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else { return }
        defer { Syscall.close(probe) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8.prefix(107))
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result == 0 {
            throw SocketEngineError(.bindFailed, "bind unix:\(path): another process is listening on it")
        }
        if errno == ECONNREFUSED { unlink(path) }
    }
}
