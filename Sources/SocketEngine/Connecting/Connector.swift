import NIOCore
import NIOPosix
import Synchronization

import Glibc

/// Opens connections to an ``Endpoint``: resolution off the event loop, Happy Eyeballs racing
/// (RFC 8305) for TCP, source and interface binding, and one overall connect timeout.
///
/// A failure names every address tried and why each failed:
/// `connect to localhost:7 failed: [::1]:7: connection refused (ECONNREFUSED); 127.0.0.1:7: …`
package struct Connector: Sendable {
    package let endpoint: Endpoint
    package let options: ConnectOptions

    package init(endpoint: Endpoint, options: ConnectOptions = ConnectOptions()) {
        self.endpoint = endpoint
        self.options = options
    }

    /// Connects, or throws ``SocketEngineError`` (`.connectionRefused`, `.connectTimeout`,
    /// `.connectFailed`, `.resolutionFailed`, `.unsupported`, …).
    package func connect() async throws -> (Connection, ConnectReport) {
        switch endpoint.transport {
        case .tcp, .udp:
            break
        case .tls:
            guard options.secureTransport != nil else {
                throw SocketEngineError(.unsupported, "tls:// needs a TLS layer (ConnectOptions.secureTransport)")
            }
        case .unix:
            return try await connectUnix()
        case .ws, .wss:
            if endpoint.transport == .wss && options.secureTransport == nil { throw WebSocketClient.missingTLS(for: .wss) }
        }
        if let interface = options.interface, if_nametoindex(interface) == 0 {
            throw SocketEngineError(.invalidConfiguration, "unknown interface '\(interface)'")
        }

        var report = ConnectReport()
        let clock = options.clock
        let resolveStart = clock.now
        let datagram = endpoint.transport == .udp
        let resolver = options.resolver
        let endpoint = self.endpoint
        // The connect timeout covers resolution too: a resolver that never answers must not
        // hold the command past --connect-timeout. An address literal needs no resolver (and
        // no wait for a thread: on a busy machine that wait was counted against the timeout).
        let all: [SocketAddress]
        if let literal = try? SocketAddress(ipAddress: endpoint.host, port: endpoint.port) {
            all = [literal]
        } else {
            let timeout = options.connectTimeout
            all = try await withTimeout(timeout, on: clock, expired: {
                SocketEngineError(.connectTimeout, "resolving '\(endpoint.host)' timed out after \(timeout.formatted)")
            }) {
                try await resolver.resolve(host: endpoint.host, port: endpoint.port, datagram: datagram)
            }
        }
        report.resolveDuration = clock.elapsed(since: resolveStart)
        let allowed = all.filter { options.family.allows($0) }
        guard !allowed.isEmpty else {
            let found = all.map { $0.ipAddress ?? "?" }.joined(separator: ", ")
            throw SocketEngineError(
                .resolutionFailed,
                "'\(endpoint.host)' has no \(options.family.name) address (it resolved to \(found))"
            )
        }
        let ordered = HappyEyeballsStateMachine.interleave(allowed) { if case .v6 = $0 { true } else { false } }
        report.resolved = ordered
        let sources = try await resolveSource()

        if datagram {
            return try await connectDatagram(to: ordered[0], sources: sources, report: report)
        }
        let budget = max(.milliseconds(1), options.connectTimeout - report.resolveDuration)
        return try await race(ordered, sources: sources, report: report, budget: budget)
    }

    // MARK: TCP

    /// Races `addresses` within `budget` (what is left of the connect timeout after resolving).
    private func race(_ addresses: [SocketAddress], sources: [SocketAddress], report: ConnectReport, budget: Duration) async throws -> (Connection, ConnectReport) {
        let loop = options.group.next()
        let options = self.options
        let endpoint = self.endpoint
        // tls://: every attempt gets the TLS layer; only the winner's handshake is waited for.
        let attempts = RaceAttempts(secure: endpoint.transport == .tls ? options.secureTransport : nil, host: endpoint.host)
        let result = try await loop.flatSubmit {
            let race = ConnectionRace(
                loop: loop,
                addresses: addresses,
                attemptDelay: options.attemptDelay.timeAmount,
                target: endpoint.description,
                configuredTimeout: options.connectTimeout.timeAmount
            ) { address in
                Connector.openStream(on: loop, to: address, sources: sources, options: options, attempts: attempts, endpoint: endpoint)
            }
            return race.run(timeout: budget.timeAmount)
        }.get()
        var report = report
        report.attempts = result.attempts
        report.connectedAddress = addresses[result.index]
        report.connectDuration = .nanoseconds(result.elapsed.nanoseconds)
        if endpoint.transport.isWebSocket {
            // TLS (wss) and the upgrade have what is left of the connect timeout.
            let left = max(.milliseconds(1), budget - report.connectDuration)
            let (connection, handshake, security) = try await loop.flatSubmit {
                WebSocketClient.upgrade(
                    result.channel, endpoint: endpoint, options: options, timeout: left,
                    note: attempts.webSocketNote(of: result.channel)?.value
                )
            }.get()
            report.security = security
            report.webSocket = handshake
            return (connection, report)
        }
        // The engine's handler as the channel was set up with it: a TLS 1.3 server that refuses
        // our certificate sends its alert after the handshake and closes the channel, pipeline
        // and all, maybe before we get here; the handler has recorded the alert all the same,
        // so what the connection reports is the reason, however fast that went.
        let handler = attempts.handler(of: result.channel)
        if let handshake = attempts.handshake(of: result.channel) {
            let left = max(.milliseconds(1), budget - report.connectDuration)
            let peer = addresses[result.index].displayString
            do {
                report.security = try await withTimeout(left, on: options.clock, expired: {
                    SocketEngineError(.connectTimeout, "TLS handshake with \(peer) timed out after \(left.formatted)")
                }) {
                    try await handshake.get()
                }
            } catch {
                // Not awaited: a TLS close waits for the peer's close_notify.
                result.channel.close(promise: nil)
                throw SocketEngineError.wrapping(error, context: "TLS with \(addresses[result.index].displayString)")
            }
        }
        let transport = endpoint.transport
        let connection = try await loop.submit {
            guard let handler = handler?.value else {
                throw SocketEngineError(.connectionClosed, "the connection to \(addresses[result.index].displayString) has no engine handler")
            }
            return Connection.attach(to: result.channel, handler: handler, transport: transport)
        }.get()
        return (connection, report)
    }

    /// What a race's attempts were set up with, by channel: the TLS layer's handshake (tls://)
    /// and the engine's connection handler, taken when the channel was initialized — not looked
    /// up later in a pipeline that may be gone.
    final class RaceAttempts: Sendable {
        let secure: (any SecureTransport)?
        /// The endpoint's host as written, for the TLS layer.
        let host: String
        private let handshakes = Mutex<[ObjectIdentifier: EventLoopFuture<SecurityReport>]>([:])
        private let handlers = Mutex<[ObjectIdentifier: NIOLoopBound<ConnectionHandler>]>([:])
        private let webSocketNotes = Mutex<[ObjectIdentifier: NIOLoopBound<HandshakeNote>]>([:])

        init(secure: (any SecureTransport)?, host: String) {
            self.secure = secure
            self.host = host
        }

        /// Puts the TLS layer (if any) on an attempt's channel (in its initializer).
        func secure(_ channel: any Channel) throws {
            guard let secure else { return }
            let handshake = try secure.addClientLayer(to: channel, host: host)
            handshakes.withLock { $0[ObjectIdentifier(channel)] = handshake }
        }

        /// Keeps the engine's handler of a prepared channel, or its WebSocket handshake note (on
        /// its loop, in its initializer).
        func remember(_ channel: any Channel) {
            if let handler = try? channel.pipeline.syncOperations.handler(type: ConnectionHandler.self) {
                handlers.withLock { $0[ObjectIdentifier(channel)] = NIOLoopBound(handler, eventLoop: channel.eventLoop) }
            }
            if let note = try? channel.pipeline.syncOperations.handler(type: HandshakeNote.self) {
                webSocketNotes.withLock { $0[ObjectIdentifier(channel)] = NIOLoopBound(note, eventLoop: channel.eventLoop) }
            }
        }

        func handshake(of channel: any Channel) -> EventLoopFuture<SecurityReport>? {
            handshakes.withLock { $0[ObjectIdentifier(channel)] }
        }

        func handler(of channel: any Channel) -> NIOLoopBound<ConnectionHandler>? {
            handlers.withLock { $0[ObjectIdentifier(channel)] }
        }

        /// The WebSocket handshake's note: a server that says everything at once and closes can
        /// end the connection, pipeline and all, before the upgrade is looked at.
        func webSocketNote(of channel: any Channel) -> NIOLoopBound<HandshakeNote>? {
            webSocketNotes.withLock { $0[ObjectIdentifier(channel)] }
        }
    }

    static func openStream(
        on loop: any EventLoop, to address: SocketAddress, sources: [SocketAddress], options: ConnectOptions,
        attempts: RaceAttempts? = nil, endpoint: Endpoint? = nil
    ) -> EventLoopFuture<any Channel> {
        var bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(options.connectTimeout.timeAmount)
            .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .channelOption(ChannelOptions.writeBufferWaterMark, value: Connection.writeWaterMark)
            .channelOption(ChannelOptions.recvAllocator, value: Connection.receiveAllocator)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: options.noDelay ? 1 : 0)
            .channelInitializer { channel in
                do {
                    try attempts?.secure(channel)
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
                // tls:// channels get the engine's handlers as tcp ones do (after the TLS layer).
                let transport = endpoint.map { $0.transport == .tls ? .tcp : $0.transport } ?? .tcp
                return Connector.prepare(channel, interface: options.interface, transport: transport, options: options, endpoint: endpoint)
                    .map { attempts?.remember(channel) }
            }
        if !sources.isEmpty {
            guard let source = sources.first(where: { $0.protocol == address.protocol }) else {
                let family = address.familyName
                return loop.makeFailedFuture(SocketEngineError(.bindFailed, "no \(family) source address to bind"))
            }
            bootstrap = bootstrap.bind(to: source)
        }
        return bootstrap.connect(to: address)
    }

    /// Installs the engine's handlers (and the interface binding) on a fresh channel.
    static func prepare(_ channel: any Channel, interface: String?, transport: Endpoint.Transport, options: ConnectOptions, endpoint: Endpoint? = nil) -> EventLoopFuture<Void> {
        let bound: EventLoopFuture<Void>
        if let interface {
            bound = bindToDevice(channel, interface: interface)
        } else {
            bound = channel.eventLoop.makeSucceededVoidFuture()
        }
        return bound.flatMapThrowing {
            if transport.isWebSocket, let endpoint {
                // TLS (wss) and the HTTP upgrade; the engine's handlers come after the upgrade.
                try WebSocketClient.prepare(channel, endpoint: endpoint, options: options)
                return
            }
            try Connection.prepare(channel, transport: transport, setup: options.setup)
        }
    }

    /// Binds `channel` to a network interface (SO_BINDTODEVICE) before it connects.
    package static func bindToDevice(_ channel: any Channel, interface: String) -> EventLoopFuture<Void> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededVoidFuture()
        }
        var name = InterfaceName()
        let bytes = Array(interface.utf8.prefix(15))
        withUnsafeMutableBytes(of: &name.bytes) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return provider.unsafeSetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_BINDTODEVICE), value: name.bytes)
            .flatMapErrorThrowing { error in
                throw SocketEngineError.wrapping(error, context: "bind to interface \(interface)")
            }
    }

    private func resolveSource() async throws -> [SocketAddress] {
        guard let source = options.source, !source.isEmpty else { return [] }
        let (host, port) = try ConnectOptions.sourceHostAndPort(source)
        let datagram = endpoint.transport == .udp
        do {
            return try await options.resolver.resolve(host: host, port: port, datagram: datagram)
        } catch let error as SocketEngineError {
            throw SocketEngineError(.invalidConfiguration, "source address: \(error.text)")
        }
    }

    // MARK: UDP

    private func connectDatagram(to address: SocketAddress, sources: [SocketAddress], report: ConnectReport) async throws -> (Connection, ConnectReport) {
        let loop = options.group.next()
        let options = self.options
        var local: SocketAddress
        if sources.isEmpty {
            if case .v6 = address {
                local = try SocketAddress(ipAddress: "::", port: 0)
            } else {
                local = try SocketAddress(ipAddress: "0.0.0.0", port: 0)
            }
        } else if let match = sources.first(where: { $0.protocol == address.protocol }) {
            local = match
        } else {
            throw SocketEngineError(.bindFailed, "no \(address.familyName) source address to bind")
        }
        let start = options.clock.now
        let channel: any Channel
        do {
            channel = try await DatagramBootstrap(group: loop)
                .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65536))
                .channelInitializer { channel in
                    Connector.prepare(channel, interface: options.interface, transport: .udp, options: options)
                }
                .bind(to: local)
                .flatMap { channel in channel.connect(to: address).map { channel } }
                .get()
        } catch {
            throw SocketEngineError.wrapping(error, context: "connect to \(address.displayString)")
        }
        var report = report
        report.attempts = [.init(address: address, startedAfter: .zero, outcome: .connected)]
        report.connectedAddress = address
        report.connectDuration = options.clock.elapsed(since: start)
        let connection = try await loop.submit { try Connection.attach(to: channel, transport: .udp) }.get()
        return (connection, report)
    }

    // MARK: Unix

    private func connectUnix() async throws -> (Connection, ConnectReport) {
        let loop = options.group.next()
        let options = self.options
        let path = endpoint.path
        let start = options.clock.now
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(options.connectTimeout.timeAmount)
                .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
                .channelOption(ChannelOptions.writeBufferWaterMark, value: Connection.writeWaterMark)
                .channelOption(ChannelOptions.recvAllocator, value: Connection.receiveAllocator)
                .channelInitializer { channel in
                    Connector.prepare(channel, interface: nil, transport: .unix, options: options)
                }
                .connect(unixDomainSocketPath: path)
                .get()
        } catch {
            throw SocketEngineError.wrapping(error, context: "connect to unix:\(path)")
        }
        var report = ConnectReport()
        let address = channel.remoteAddress ?? (try? SocketAddress(unixDomainSocketPath: path))
        if let address {
            report.resolved = [address]
            report.attempts = [.init(address: address, startedAfter: .zero, outcome: .connected)]
        }
        report.connectedAddress = address
        report.connectDuration = options.clock.elapsed(since: start)
        let connection = try await loop.submit { try Connection.attach(to: channel, transport: .unix) }.get()
        return (connection, report)
    }
}

/// `IFNAMSIZ` bytes for `SO_BINDTODEVICE`.
struct InterfaceName: Sendable {
    var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}
