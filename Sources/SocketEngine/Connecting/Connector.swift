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
        if endpoint.transport == .unix { return try await connectUnix() }
        _ = try ChannelOpener.secureLayer(for: endpoint.transport, options: options)
        try ChannelOpener.checkInterface(options.interface)
        // Through a proxy the race is to the proxy's addresses; the destination is the tunnel's.
        let proxy = try ChannelOpener.proxy(for: endpoint, options: options)

        var report = ConnectReport()
        var options = self.options
        let clock = options.clock
        let resolveStart = clock.now
        let datagram = endpoint.transport == .udp
        let resolver = options.resolver
        let endpoint = self.endpoint
        let host = proxy?.host ?? endpoint.host
        let port = proxy?.port ?? endpoint.port
        // The connect timeout covers resolution too: a resolver that never answers must not
        // hold the command past --connect-timeout. An address literal needs no resolver (and
        // no wait for a thread: on a busy machine that wait was counted against the timeout).
        let all: [SocketAddress]
        let timeout = options.connectTimeout
        if let literal = try? SocketAddress(ipAddress: host, port: port) {
            all = [literal]
        } else {
            all = try await withTimeout(timeout, on: clock, expired: {
                SocketEngineError(.connectTimeout, "resolving '\(host)' timed out after \(timeout.formatted)")
            }) {
                try await resolver.resolve(host: host, port: port, datagram: datagram)
            }
        }
        if let route = options.proxy, proxy != nil {
            // socks5://, socks4://: the destination's name is resolved here, its address sent.
            let settings = options
            options.proxy = try await withTimeout(timeout, on: clock, expired: {
                SocketEngineError(.connectTimeout, "resolving '\(endpoint.host)' timed out after \(timeout.formatted)")
            }) {
                try await route.resolvingNames(of: [endpoint], options: settings)
            }
        }
        report.resolveDuration = clock.elapsed(since: resolveStart)
        let allowed = all.filter { options.family.allows($0) }
        guard !allowed.isEmpty else {
            let found = all.map { $0.ipAddress ?? "?" }.joined(separator: ", ")
            throw SocketEngineError(
                .resolutionFailed,
                "'\(host)' has no \(options.family.name) address (it resolved to \(found))"
            )
        }
        let ordered = HappyEyeballsStateMachine.interleave(allowed) { if case .v6 = $0 { true } else { false } }
        report.resolved = ordered
        let sources = try await options.source?.resolve(resolver, datagram: datagram) ?? []
        let opener = ChannelOpener(transport: endpoint.transport, options: options, buffers: .connection, sources: sources)

        if datagram {
            return try await connectDatagram(to: ordered[0], opener: opener, report: report)
        }
        let budget = max(.milliseconds(1), options.connectTimeout - report.resolveDuration)
        let target = proxy.map { "\(endpoint) through the proxy \($0)" } ?? endpoint.description
        return try await race(ordered, opener: opener, report: report, budget: budget, options: options, target: target)
    }

    // MARK: TCP

    /// Races `addresses` within `budget` (what is left of the connect timeout after resolving),
    /// naming `target` in its failure.
    private func race(
        _ addresses: [SocketAddress], opener: ChannelOpener, report: ConnectReport, budget: Duration, options: ConnectOptions, target: String
    ) async throws -> (Connection, ConnectReport) {
        let loop = options.group.next()
        let endpoint = self.endpoint
        // tls://: every attempt gets the TLS layer; only the winner's handshake is waited for.
        // ws://, wss://: every attempt sends its upgrade; only the winner's is waited for.
        let attempts = RaceAttempts()
        let hooks = ChannelOpener.Hooks(
            install: { channel, installing in
                try Connector.install(on: channel, installing, endpoint: endpoint, options: options)
                attempts.remember(channel)
            },
            secured: { channel, handshake in attempts.keep(handshake, of: channel) },
            tunnelled: { channel, tunnel in attempts.keep(tunnel, of: channel) }
        )
        let result = try await loop.flatSubmit {
            let race = ConnectionRace(
                loop: loop,
                addresses: addresses,
                attemptDelay: options.attemptDelay.timeAmount,
                target: target,
                configuredTimeout: options.connectTimeout.timeAmount
            ) { address in
                let attempt = opener.connectStream(to: address, endpoint: endpoint, on: loop, hooks: hooks)
                guard let upgraded = attempt.upgraded else { return attempt.connected }
                return attempt.connected.map { channel in
                    // The connection, made as the upgrade completes (on the loop, before
                    // anything the server sent behind its 101 is read further).
                    attempts.keep(upgraded.flatMapThrowing { handshake in
                        guard let handler = attempts.handler(of: channel)?.value else {
                            throw SocketEngineError(.connectionClosed, "the connection to \(address.displayString) has no engine handler")
                        }
                        return (Connection.attach(to: channel, handler: handler, transport: endpoint.transport, webSocket: handshake), handshake)
                    }, of: channel)
                    return channel
                }
            }
            return race.run(timeout: budget.timeAmount)
        }.get()
        var report = report
        report.attempts = result.attempts
        report.connectedAddress = addresses[result.index]
        report.connectDuration = .nanoseconds(result.elapsed.nanoseconds)
        if let tunnel = attempts.tunnel(of: result.channel) { report.tunnel = try? await tunnel.get() }
        if endpoint.transport.isWebSocket {
            // TLS (wss) and the upgrade have what is left of the connect timeout.
            let left = max(.milliseconds(1), budget - report.connectDuration)
            let (connection, handshake, security) = try await loop.flatSubmit {
                WebSocketClient.upgrade(
                    result.channel, endpoint: endpoint, timeout: left,
                    upgrade: attempts.upgrade(of: result.channel), security: attempts.handshake(of: result.channel)
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

    /// What a race's attempts were set up with, by channel: the TLS layer's handshake (tls://,
    /// wss://), the engine's connection handler and the WebSocket upgrade (ws://, wss://),
    /// taken as the channel was set up — not looked up later in a pipeline that may be gone.
    final class RaceAttempts: Sendable {
        private let handshakes = Mutex<[ObjectIdentifier: EventLoopFuture<SecurityReport>]>([:])
        private let handlers = Mutex<[ObjectIdentifier: NIOLoopBound<ConnectionHandler>]>([:])
        private let upgrades = Mutex<[ObjectIdentifier: EventLoopFuture<(Connection, WebSocketHandshake)>]>([:])
        private let tunnels = Mutex<[ObjectIdentifier: EventLoopFuture<TunnelReport>]>([:])

        /// Keeps the handshake of an attempt's tunnel (in its initializer).
        func keep(_ tunnel: EventLoopFuture<TunnelReport>, of channel: any Channel) {
            tunnels.withLock { $0[ObjectIdentifier(channel)] = tunnel }
        }

        func tunnel(of channel: any Channel) -> EventLoopFuture<TunnelReport>? {
            tunnels.withLock { $0[ObjectIdentifier(channel)] }
        }

        /// Keeps the handshake of an attempt's TLS layer (in its initializer).
        func keep(_ handshake: EventLoopFuture<SecurityReport>, of channel: any Channel) {
            handshakes.withLock { $0[ObjectIdentifier(channel)] = handshake }
        }

        /// Keeps an attempt's WebSocket upgrade (once it has connected).
        func keep(_ upgrade: EventLoopFuture<(Connection, WebSocketHandshake)>, of channel: any Channel) {
            upgrades.withLock { $0[ObjectIdentifier(channel)] = upgrade }
        }

        /// Keeps the engine's handler of a prepared channel (on its loop, as the handler is put on).
        func remember(_ channel: any Channel) {
            if let handler = try? channel.pipeline.syncOperations.handler(type: ConnectionHandler.self) {
                handlers.withLock { $0[ObjectIdentifier(channel)] = NIOLoopBound(handler, eventLoop: channel.eventLoop) }
            }
        }

        func handshake(of channel: any Channel) -> EventLoopFuture<SecurityReport>? {
            handshakes.withLock { $0[ObjectIdentifier(channel)] }
        }

        func handler(of channel: any Channel) -> NIOLoopBound<ConnectionHandler>? {
            handlers.withLock { $0[ObjectIdentifier(channel)] }
        }

        /// The WebSocket upgrade and the connection it makes: a server that says everything at
        /// once and closes can end the connection, pipeline and all, before it is looked at.
        func upgrade(of channel: any Channel) -> EventLoopFuture<(Connection, WebSocketHandshake)>? {
            upgrades.withLock { $0[ObjectIdentifier(channel)] }
        }
    }

    /// The engine's handlers, as the opener puts them on (``ChannelOpener/Hooks/install``): on a
    /// fresh channel (above the TLS layer of tls://), or on ws:// and wss:// after the upgrade,
    /// above the WebSocket layer.
    static func install(on channel: any Channel, _ installing: ChannelOpener.Installing, endpoint: Endpoint, options: ConnectOptions) throws {
        if let webSocket = installing.webSocket {
            try WebSocketClient.installConnectionHandler(on: channel, above: webSocket.handler, setup: options.setup)
            return
        }
        try Connection.prepare(channel, transport: endpoint.transport.isWebSocket ? endpoint.transport : endpoint.transport.carrier == .tls ? .tcp : endpoint.transport.carrier, setup: options.setup)
    }

    // MARK: UDP

    private func connectDatagram(to address: SocketAddress, opener: ChannelOpener, report: ConnectReport) async throws -> (Connection, ConnectReport) {
        let loop = options.group.next()
        let options = self.options
        let start = options.clock.now
        let channel: any Channel
        do {
            let hooks = ChannelOpener.Hooks { channel, _ in try Connection.prepare(channel, transport: .udp, setup: options.setup) }
            channel = try await opener.open(to: address, endpoint: endpoint, on: loop, hooks: hooks).get()
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
            let opener = ChannelOpener(transport: .unix, options: options, buffers: .connection, sources: [])
            let hooks = ChannelOpener.Hooks { channel, _ in try Connection.prepare(channel, transport: .unix, setup: options.setup) }
            channel = try await opener.open(to: try SocketAddress(unixDomainSocketPath: path), endpoint: endpoint, on: loop, hooks: hooks).get()
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
