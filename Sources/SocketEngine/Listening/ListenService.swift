import Clocks
import NIOCore
import Synchronization

/// The engine side of `sockctl listen`: binds, admits clients, and serves each according to
/// the ``ListenMode``, until the first client is done (or, with `keepOpen`, until ``stop()``).
public final class ListenService: Sendable {
    /// What the service was asked to do.
    public let configuration: ListenConfiguration
    let output: any ByteSink
    let input: (any ByteSource)?
    let onEvent: @Sendable (ListenEvent) -> Void
    let state = Mutex(State())
    /// The listener, and whether ``stop()`` was called; times the summary on the options' clock.
    let listeners: ServiceListeners
    /// Open while at least one client (or UDP peer) is there: stdin waits for it, like `nc -l`.
    let presence = Presence()

    struct State {
        var clients: [Int: Connection] = [:]
        var clientInfo: [Int: ClientInfo] = [:]
        var datagramPeers: [SocketAddress] = []
        var summary = ListenSummary()
    }

    /// A service that writes what clients send to `output` and, in print mode, sends `input` to every
    /// client; `onEvent` hears clients come and go. Call ``bind()``, then ``run()``.
    public init(
        configuration: ListenConfiguration,
        output: any ByteSink,
        input: (any ByteSource)? = nil,
        onEvent: @escaping @Sendable (ListenEvent) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.listeners = ServiceListeners(clock: configuration.options.clock)
        self.output = output
        self.input = input
        self.onEvent = onEvent
    }

    /// Binds the endpoint; returns the bound addresses.
    public func bind() async throws -> [SocketAddress] {
        var options = configuration.options
        if configuration.endpoint.transport.isWebSocket {
            // Echo and canned replies are given by the WebSocket layer, message type kept.
            switch configuration.mode {
            case .echo: options.webSocket.answer = .echo
            case .respond(let body): options.webSocket.answer = .respond(body)
            case .print, .discard, .broadcast: break
            }
        }
        return try await listeners.bind(configuration.endpoint, options: options)
    }

    /// Serves until done (see the type's discussion). Call ``bind()`` first.
    public func run() async -> ListenSummary {
        // Stopped while binding (a signal as soon as the process started): closed, none served.
        let served = await listeners.serve(stream: { await runStream($0) }, datagram: { await runDatagram($0) })
        return state.withLock { state in
            state.summary.duration = served.duration
            return state.summary
        }
    }

    /// Stops accepting and closes every client (SIGINT). Safe to call more than once, and before
    /// or during ``bind()`` (``run()`` then returns at once).
    public func stop() {
        listeners.stop { state.withLock { state in state.clients.values.map { $0 as any RelayClosable } } }
    }

    // MARK: Stream clients

    private func runStream(_ listener: Listener) async {
        let watcher = Task { await self.watchRejections(listener.events) }
        let forwarder = configuration.mode == .print && !configuration.endpoint.transport.isHTTP ? input.map { input in
            Task { await self.forwardInput(input) }
        } : nil

        await withDiscardingTaskGroup { group in
            var nextID = 0
            for await connection in listener.connections {
                nextID += 1
                let client = ClientInfo(id: nextID, peer: connection.label, webSocket: connection.webSocket)
                let registered: Void? = listeners.register {
                    state.withLock { state in
                        state.clients[client.id] = connection
                        state.clientInfo[client.id] = client
                        state.summary.clients += 1
                    }
                }
                if registered == nil {
                    await connection.close()
                    continue
                }
                presence.set(true)
                onEvent(.clientConnected(client))
                group.addTask { await self.serveClient(connection, client) }
                if !configuration.keepOpen {
                    await listener.close()
                }
            }
        }
        forwarder?.cancel()
        await listener.close()
        let logged = await watcher.value
        state.withLock {
            $0.summary.rejected = listener.rejectedCount
            $0.summary.rejectedUnlogged = max(0, listener.rejectedCount - logged)
        }
    }

    /// Reports refusals; returns how many were reported.
    func watchRejections(_ events: AsyncStream<ListenerEvent>) async -> Int {
        var logged = 0
        for await event in events {
            switch event {
            case .rejected(let peer, let reason):
                logged += 1
                onEvent(.rejected(peer: peer, reason: reason))
            }
        }
        return logged
    }

    private func serveClient(_ connection: Connection, _ client: ClientInfo) async {
        let clock = configuration.options.clock
        let started = clock.now
        var failure: SocketEngineError?
        // A failed handshake shows up as the connection's error below.
        if let security = connection.security, let report = try? await security.get() {
            onEvent(.clientSecured(client, report))
        }
        do {
            switch configuration.mode {
            case _ where configuration.exec != nil:
                if let exec = configuration.exec { await serveExec(exec, connection, client) }
            case _ where configuration.endpoint.transport.isHTTP:
                try await serveHTTP(connection, client)
            case .print:
                try await printMessages(from: connection)
            case .discard:
                _ = try await connection.discardAll()
            case .echo where connection.webSocket != nil, .respond where connection.webSocket != nil:
                // Answered by the WebSocket layer: nothing reaches here, wait for the end.
                _ = try await connection.discardAll()
            case .echo, .respond, .broadcast:
                try await answerMessages(from: connection, client: client)
            }
            try await connection.closeWrite()
        } catch is CancellationError {
            failure = nil
        } catch {
            let wrapped = SocketEngineError.wrapping(error, context: connection.label)
            if wrapped.code != .connectionClosed { failure = wrapped }
        }
        await connection.close()
        let statistics = connection.statistics
        let anyLeft = state.withLock { state in
            state.clients[client.id] = nil
            state.clientInfo[client.id] = nil
            state.summary.bytesIn += statistics.bytesReceived
            state.summary.bytesOut += statistics.bytesSent
            return !state.clients.isEmpty
        }
        presence.set(anyLeft)
        onEvent(.clientDisconnected(
            client,
            bytesIn: statistics.bytesReceived,
            bytesOut: statistics.bytesSent,
            duration: clock.elapsed(since: started),
            error: failure
        ))
    }

    private func printMessages(from connection: Connection) async throws {
        while let message = try await connection.readForPrinting(configuration.framing, maxFrameSize: configuration.maximumFrameSize) {
            try await output.write(message)
        }
    }

    /// Echo, respond and broadcast: each message gets an answer, optionally after a delay
    /// measured from its arrival (so pipelined messages are not delayed cumulatively).
    private func answerMessages(from connection: Connection, client: ClientInfo) async throws {
        let framing = configuration.framing
        switch configuration.mode {
        case .echo, .respond:
            // Each message is answered on its own: on the event loop, no task per message.
            let mode = configuration.mode
            let reply: ByteBuffer?
            if case .respond(let body) = mode { reply = try encode(body) } else { reply = nil }
            try await connection.answerEach(framing, maxFrameSize: configuration.maximumFrameSize, delay: configuration.delay) { message throws(SocketEngineError) in
                if let reply { return Answer(reply) }
                return Answer(framing == .raw ? message : try framing.encode(message))
            }
            return
        default:
            break
        }
        guard let delay = configuration.delay else {
            while let message = try await connection.readFrame(framing, maxFrameSize: configuration.maximumFrameSize) {
                try await answer(message, on: connection, client: client)
            }
            return
        }
        let queue = AsyncBoundedQueue<(EngineClock.Instant, ByteBuffer)>(capacity: 4096)
        let clock = configuration.options.clock
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    while let (due, message) = try await queue.next() {
                        try await clock.sleep(until: due)
                        try await self.answer(message, on: connection, client: client)
                    }
                } catch {
                    // Wakes the reader if it waits for room in a full queue.
                    queue.finish(throwing: error)
                    throw error
                }
            }
            do {
                while let message = try await connection.readFrame(framing, maxFrameSize: configuration.maximumFrameSize) {
                    try await queue.push((clock.now.advanced(by: delay), message))
                }
                queue.finish()
            } catch {
                queue.finish(throwing: error)
                // If the answering side failed first, report its error, not the wake-up.
                if error is CancellationError { try await group.waitForAll() }
                group.cancelAll()
                throw error
            }
            try await group.waitForAll()
        }
    }

    private func answer(_ message: ByteBuffer, on connection: Connection, client: ClientInfo) async throws {
        switch configuration.mode {
        case .echo:
            try await connection.send(try encode(message))
        case .respond(let body):
            try await connection.send(try encode(body))
        case .broadcast:
            let encoded = try encode(message)
            let others = state.withLock { state in
                state.clients.filter { $0.key != client.id }.compactMap { id, connection in
                    state.clientInfo[id].map { ($0, connection) }
                }
            }
            var dropped = 0
            for (info, other) in others where !other.trySend(encoded) {
                dropped += 1
                onEvent(.messagesDropped(info, count: 1))
            }
            if dropped > 0 { state.withLock { $0.summary.messagesDropped += dropped } }
        case .print, .discard:
            break
        }
    }

    func encode(_ message: ByteBuffer) throws(SocketEngineError) -> ByteBuffer {
        // A WebSocket message is its own frame.
        configuration.framing == .raw || configuration.endpoint.transport.isWebSocket ? message : try configuration.framing.encode(message)
    }

    /// Print mode: what arrives on the input goes to every connected client. Input is read
    /// only while someone is there to receive it, so nothing typed early is lost.
    func forwardInput(_ input: any ByteSource) async {
        let transport = configuration.endpoint.transport
        var encoder = MessageEncoder.forInput(
            over: transport, framing: configuration.framing,
            binaryMessages: configuration.options.webSocket.messageKind == .binary, maximumFrameSize: configuration.maximumFrameSize
        )
        let keepsEmpty = MessageEncoder.sendsEmptyMessages(over: transport)
        do {
            while true {
                try await presence.wait()
                guard let chunk = try await input.next() else { break }
                let encoded = encoder.encode(chunk)
                encoded.rejected.forEach { onEvent(.inputRejected($0)) }
                for message in encoded.messages where keepsEmpty || message.readableBytes > 0 { await sendToAll(message) }
            }
            let tail = encoder.finish()
            tail.rejected.forEach { onEvent(.inputRejected($0)) }
            for message in tail.messages where keepsEmpty || message.readableBytes > 0 { await sendToAll(message) }
        } catch {
            return
        }
    }

    private func sendToAll(_ bytes: ByteBuffer) async {
        let datagramListener = listeners.datagramListener
        let (clients, peers) = state.withLock { state in (Array(state.clients.values), state.datagramPeers) }
        for client in clients {
            try? await client.send(bytes)
        }
        if let datagramListener {
            for peer in peers {
                guard (try? await datagramListener.send(bytes, to: peer)) != nil else { continue }
                state.withLock {
                    $0.summary.datagramsOut += 1
                    $0.summary.bytesOut += bytes.readableBytes
                }
            }
        }
    }

}
