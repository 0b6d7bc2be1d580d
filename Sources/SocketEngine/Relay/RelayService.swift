import NIOCore
import ProxyProtocol
import Synchronization

/// The engine side of `sockctl proxy`: listens, gives every admitted client its own upstream
/// connection, and relays the two directions through ``RelayPump``s, with the faults of
/// ``faults`` applied, until ``stop()``.
///
/// A client's two directions end separately (a FIN is passed on as a FIN, a WebSocket close
/// as a FIN and back); a reset on one side resets the other; anything else that ends one
/// side closes both.
public final class RelayService: Sendable {
    /// What the relay was asked to do.
    public let configuration: RelayConfiguration
    /// The faults now applied; change them while running (the control socket does).
    public let faults: RelayFaultSet
    let onEvent: @Sendable (RelayEvent) -> Void
    let random: RelayRandom
    let state = Mutex(State())
    /// The listener, and whether ``stop()`` was called; times the summary on the relay's clock.
    let listeners: ServiceListeners

    struct State {
        /// Both sides of every client being relayed, for ``stop()``.
        var open: [Int: [any RelayClosable]] = [:]
        var nextID = 0
        var summary = RelaySummary()
        /// The counters of the clients being relayed, for ``liveSummary()``.
        var liveCounters: [Int: RelayCounters] = [:]
        /// Clients still open when ``stop()`` closed them: they did not end by themselves.
        var cut: Set<Int> = []
    }

    /// A relay that reports through `onEvent`. Call ``bind()``, then ``run()``.
    public init(configuration: RelayConfiguration, onEvent: @escaping @Sendable (RelayEvent) -> Void = { _ in }) {
        var configuration = configuration
        configuration.listenOptions.clock = configuration.clock
        configuration.connectOptions.clock = configuration.clock
        // A WebSocket close is a half-close through the relay: answered once the other side
        // has finished too.
        configuration.listenOptions.webSocket.defersCloseReply = true
        configuration.connectOptions.webSocket.defersCloseReply = true
        self.configuration = configuration
        self.listeners = ServiceListeners(clock: configuration.clock)
        self.faults = RelayFaultSet(configuration.faults)
        self.random = RelayRandom(seed: configuration.faultSeed)
        self.onEvent = onEvent
    }

    /// Binds the listening endpoint; returns the bound addresses.
    public func bind() async throws -> [SocketAddress] {
        try await listeners.bind(configuration.listen, options: configuration.listenOptions)
    }

    /// Relays until ``stop()``. Call ``bind()`` first.
    public func run() async -> RelaySummary {
        let served = await listeners.serve(stream: { await runStream($0) }, datagram: { await runDatagram($0) })
        return state.withLock { state in
            state.summary.duration = served.duration
            return state.summary
        }
    }

    /// Stops accepting and closes every client and its upstream (SIGINT). Safe to call more than
    /// once, and before or during ``bind()``. Every client still open is marked cut before it
    /// is closed, so that its end is reported as the relay's doing.
    public func stop() {
        listeners.stop {
            state.withLock { state in
                state.cut.formUnion(state.open.keys)
                return state.open.values.flatMap { $0 }
            }
        }
    }

    // MARK: Stream clients

    private func runStream(_ listener: Listener) async {
        let watcher = reportRefusals(listener.events)
        await withDiscardingTaskGroup { group in
            for await connection in listener.connections {
                guard let client = admit(peer: connection.label, side: connection) else {
                    await connection.close()
                    continue
                }
                group.addTask { await self.serve(connection, as: client) }
            }
        }
        await listener.close()
        await watcher.value
        state.withLock { $0.summary.rejected += listener.rejectedCount }
    }

    /// Reports every refusal of either listener kind as ``RelayEvent/rejected(peer:reason:)``
    /// until the listener closes.
    func reportRefusals(_ events: AsyncStream<ListenerEvent>) -> Task<Void, Never> {
        Task {
            for await event in events {
                if case .rejected(let peer, let reason) = event { self.onEvent(.rejected(peer: peer, reason: reason)) }
            }
        }
    }

    /// Numbers a new client and registers its side for ``stop()``; nil once stopped.
    func admit(peer: String, side: any RelayPeer) -> RelayClient? {
        let client = listeners.register {
            state.withLock { state in
                state.nextID += 1
                state.summary.clients += 1
                state.open[state.nextID] = [side]
                return RelayClient(id: state.nextID, peer: peer)
            }
        }
        if let client { onEvent(.clientConnected(client)) }
        return client
    }

    private func serve(_ connection: Connection, as client: RelayClient) async {
        let clock = configuration.clock
        let started = clock.now
        if let security = connection.security {
            do {
                _ = try await security.get()
            } catch {
                await connection.close()
                finish(client, counters: RelayCounters(), started: started, error: SocketEngineError.wrapping(error, context: client.peer))
                return
            }
        }
        var options = configuration.connectOptions
        // The upstream on the client's own event loop: no thread hop between the two sockets.
        options.group = connection.channel.eventLoop
        if let version = configuration.sendsProxyProtocol {
            let channel = connection.channel
            options.preamble = ProxyProtocolHeader(version: version, source: channel.remoteAddress, destination: channel.localAddress).encoded()
        }
        guard let upstream = await connectUpstream(for: client, options: options, started: started, closing: connection) else { return }
        let counters = RelayCounters()
        state.withLock { $0.liveCounters[client.id] = counters }
        let activity = upstream.carriesMessages && upstream.transport == .udp ? RelayActivity(clock: configuration.clock) : nil
        let outcome = await relay(client, connection, upstream, counters: counters, activity: activity)
        finish(client, counters: counters, started: started, error: outcome.error, reset: outcome.reset)
    }

    /// The client's upstream connection, or nil (reported, client closed) when it cannot be made.
    func connectUpstream(for client: RelayClient, options: ConnectOptions, started: EngineClock.Instant, closing side: any RelayPeer) async -> Connection? {
        do {
            let (upstream, report) = try await Connector(endpoint: configuration.upstream, options: options).connect()
            let registered: Void? = listeners.register { state.withLock { $0.open[client.id, default: []].append(upstream) } }
            guard registered != nil else {
                await upstream.close()
                await side.close()
                finish(client, counters: RelayCounters(), started: started, error: nil)
                return nil
            }
            onEvent(.upstreamConnected(client, address: report.connectedAddress?.displayString ?? upstream.label))
            return upstream
        } catch {
            let wrapped = SocketEngineError.wrapping(error, context: "connect to \(configuration.upstream)")
            onEvent(.upstreamFailed(client, wrapped))
            state.withLock { $0.summary.upstreamFailures += 1 }
            await side.close()
            finish(client, counters: RelayCounters(), started: started, error: wrapped)
            return nil
        }
    }

    /// Unregisters a client, adds its counts to the summary and reports it gone.
    func finish(_ client: RelayClient, counters: RelayCounters, started: EngineClock.Instant, error: SocketEngineError?, reset: Bool = false) {
        let error = state.withLock { state -> SocketEngineError? in
            state.open[client.id] = nil
            state.liveCounters[client.id] = nil
            state.summary.bytesUp += counters.bytesUp
            state.summary.bytesDown += counters.bytesDown
            state.summary.dropped += counters.droppedMessages
            state.summary.discardedBytes += counters.discardedBytes
            if reset { state.summary.resets += 1 }
            // Cut by stop(): an end or an I/O error either side then saw came from the relay
            // closing it, not from the client or its server. A reset or a fault that had already
            // ended the client is what ended it.
            let cut = state.cut.remove(client.id) != nil
            if cut, error == nil || error?.code == .connectionClosed || error?.code == .ioError {
                return SocketEngineError(.connectionClosed, "\(client.peer): relay stopped")
            }
            return error
        }
        onEvent(.clientDisconnected(
            client, bytesUp: counters.bytesUp, bytesDown: counters.bytesDown,
            duration: configuration.clock.elapsed(since: started), error: error
        ))
    }
}
