import Foundation
import NIOCore
import SocketEngine
import Synchronization

/// Load-test connections on a thread of their own (`--io threads`): closed loops of plain
/// system calls, many connections to a thread, waited on with epoll (``EpollSet``) — write
/// the pipeline's messages, read what comes, match replies in order (``LoadSlot``), write the
/// next. No event loop, no task, no allocation per message: per reply one `read` and one
/// `send`, as wrk does.
///
/// With fewer connections than cores the runner gives each connection a thread of its own
/// (`spin`): after sending, the thread polls for the reply for up to ``spinNanos`` before it
/// sleeps, so a fast reply is seen without a wake-up (on loopback the wake-up is most of the
/// round trip).
///
/// Connections are opened on the thread (``BlockingConnection``: TLS and the WebSocket upgrade
/// within the connect timeout). Accounting is the event loops' (``LoadConnectionHandler``): a
/// connection that fails is reopened after the same back-off, its unanswered messages are lost
/// (or timed out); an HTTP server's close after a response reopens at once; messages
/// unanswered at the end are lost. The figures sit behind a lock taken once per batch of
/// replies, read by the runner's sampler. The reply timeout, the end of the run and a stop are
/// noticed within 100 ms whatever the servers do.
final class LoadThread: LoadWorker, @unchecked Sendable {
    /// How long a connection alone on its thread polls for its reply before it sleeps, ns.
    static let spinNanos: Int64 = 50_000
    /// The longest sleep: the end of the run is noticed within it.
    static let longestWaitNanos: Int64 = 100_000_000

    private let index: Int
    private let context: RunContext
    /// The targets; slot `k` goes to `endpoints[k % count]` at `addresses[k % count]`.
    private let endpoints: [Endpoint]
    private let addresses: [SocketAddress]
    private let source: SocketAddress?
    private let spin: Bool
    private let epoll: EpollSet

    private struct Shared: Sendable {
        var stats = LoadStats()
        /// Slots whose first attempt has completed.
        var attempted = 0
        var open = 0
        var outstanding = 0
    }
    private let shared = Mutex(Shared())
    /// Slots to open, and whether sending has begun: set by the runner, read by the thread.
    private let inbox = Mutex<(slots: [Int], begun: Bool)>(([], false))
    /// Set when the thread has returned; who waits for it in ``closeAll()``.
    private let exit = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let started = Atomic<Bool>(false)
    /// Sending has begun (the thread's own copy of the inbox's flag; only the thread uses it).
    @exclusivity(unchecked) private var begun = false
    /// The earliest back-off end or connect deadline on the thread (Int64.max: none): the
    /// connections are looked through only then, not at every wake-up.
    @exclusivity(unchecked) private var nextOpenCheck = Int64.max
    /// The connections that read bytes in the current batch of events, and what serving them
    /// came to: served together once the batch has been read (``serveReceived()``).
    @exclusivity(unchecked) private var received: [ThreadConnection] = []
    @exclusivity(unchecked) private var outcomes: [Outcome] = []

    /// What cutting a connection's replies came to.
    private enum Outcome {
        case open
        /// An HTTP server's close ended the connection.
        case closedByServer
        case failed(any Error)
    }

    /// Thread number `index` of the run; fails when no epoll set can be made.
    init(index: Int, context: RunContext, endpoints: [Endpoint], addresses: [SocketAddress], source: SocketAddress?, spin: Bool) throws {
        self.index = index
        self.context = context
        self.endpoints = endpoints
        self.addresses = addresses
        self.source = source
        self.spin = spin
        epoll = try EpollSet()
        received.reserveCapacity(128)
        outcomes.reserveCapacity(128)
    }

    // MARK: LoadWorker

    func open(slot: Int) {
        inbox.withLock { $0.slots.append(slot) }
        if !started.exchange(true, ordering: .relaxed) {
            let thread = Thread { [self] in
                run()
                let waiters = exit.withLock { exit in
                    exit.done = true
                    defer { exit.waiters.removeAll() }
                    return exit.waiters
                }
                waiters.forEach { $0.resume() }
            }
            thread.name = "sockctl-load-\(index)"
            thread.start()
        }
        epoll.signal()
    }

    func attemptedCount() async throws -> Int { shared.withLock { $0.attempted } }

    func begin() {
        inbox.withLock { $0.begun = true }
        epoll.signal()
    }

    func snapshot(cumulative: Bool) async throws -> LoadSnapshot {
        shared.withLock { state in
            LoadSnapshot(
                counters: state.stats.counters, interval: state.stats.takeInterval(), outstanding: state.outstanding, open: state.open,
                cumulative: cumulative ? (state.stats.corrected, state.stats.uncorrected) : nil, labels: cumulative ? state.stats.labels : nil)
        }
    }

    func unfinishedCount() async throws -> Int { shared.withLock { $0.outstanding } }

    /// Wakes the thread (the run is over) and waits for it to close its connections and
    /// return: at once, or once a connect in progress has reached its timeout.
    func closeAll() async {
        guard started.load(ordering: .relaxed) else { return }
        epoll.signal()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = exit.withLock { exit in
                if !exit.done { exit.waiters.append(continuation) }
                return exit.done
            }
            if done { continuation.resume() }
        }
    }

    func totals() async throws -> LoadStats { shared.withLock { $0.stats } }

    // MARK: The thread

    private var target: String { context.plan.endpoint.description }

    private func run() {
        var connections: [ThreadConnection] = []
        let limit = context.plan.replyTimeout.nanosecondsClamped
        /// When the replies' deadlines are next looked at.
        var nextTimeoutCheck = Int64.max
        /// Until when the thread polls instead of sleeping (`spin`, after a send).
        var spinUntil: Int64 = 0
        while !context.isFinished {
            let (slots, beginNow) = inbox.withLock { inbox in
                defer { inbox.slots.removeAll() }
                return (inbox.slots, inbox.begun)
            }
            for slot in slots {
                let connection = ThreadConnection(
                    slot: slot, token: UInt64(connections.count), endpoint: endpoints[slot % endpoints.count],
                    address: addresses[slot % addresses.count], context: context)
                connections.append(connection)
                openConnection(connection)
            }
            if beginNow && !begun {
                begun = true
                nextTimeoutCheck = BlockingSocket.now() + limit + 1
                for connection in connections where connection.stream != nil { start(connection) }
            }
            var now = BlockingSocket.now()
            if now >= nextOpenCheck {
                nextOpenCheck = openDue(connections, now: now)
                now = BlockingSocket.now()
            }
            if begun && now >= nextTimeoutCheck {
                nextTimeoutCheck = checkTimeouts(connections, now: now, limit: limit)
                now = BlockingSocket.now()
            }
            let deadline = min(nextTimeoutCheck, nextOpenCheck, now + Self.longestWaitNanos)
            let milliseconds = now < spinUntil ? 0 : Int32(clamping: max(0, deadline - now + 999_999) / 1_000_000)
            var sent = false
            epoll.wait(milliseconds: milliseconds) { token, events in
                guard token != EpollSet.wakeToken, token < UInt64(connections.count) else { return }
                if serve(connections[Int(token)], events: events) { sent = true }
            }
            if serveReceived() { sent = true }
            if sent && spin { spinUntil = BlockingSocket.now() + Self.spinNanos }
        }
        finish(connections)
    }

    /// Opens the connections whose back-off has ended, fails the connects past their deadline;
    /// returns when to look again.
    private func openDue(_ connections: [ThreadConnection], now: Int64) -> Int64 {
        var next = Int64.max
        for connection in connections {
            if let connecting = connection.connecting {
                if connecting.deadline <= now {
                    connectFailed(connection, BlockingSocket.connectTimedOut(connection.address, after: context.plan.connectOptions.connectTimeout))
                } else {
                    next = min(next, connecting.deadline)
                }
            }
            guard let retryAt = connection.retryAt else { continue }
            if retryAt <= now { openConnection(connection) }
            // Opening again may have begun a connect or a back-off.
            if let deadline = connection.connecting?.deadline ?? connection.retryAt { next = min(next, deadline) }
        }
        return next
    }

    /// Opens `connection` (an attempt counted; a failure waits for its back-off), and once
    /// sending has begun starts it. A plain socket's connect goes on while the thread serves
    /// the others (its end is an event); TLS and the WebSocket upgrade are waited for here,
    /// within the connect timeout.
    private func openConnection(_ connection: ThreadConnection) {
        shared.withLock { connection.account.attempting(&$0.stats) }
        connection.retryAt = nil
        let options = context.plan.connectOptions
        do {
            if BlockingConnection.hasHandshake(connection.endpoint, options: options) {
                let opened = try BlockingConnection.open(connection.endpoint, address: connection.address, source: source, options: options)
                if let tunnel = opened.tunnel { shared.withLock { $0.stats.recordTunnel(tunnel.duration.nanosecondsClamped) } }
                established(connection, opened.stream, leftover: opened.leftover, security: opened.security)
                return
            }
            let (socket, connected) = try BlockingSocket.startConnect(to: connection.address, source: source, interface: options.interface)
            if connected {
                established(connection, socket, leftover: ByteBuffer(), security: nil)
            } else {
                try epoll.add(socket.descriptor, token: connection.token, writable: true)
                let deadline = BlockingSocket.now() + options.connectTimeout.nanosecondsClamped
                connection.connecting = (socket, deadline)
                nextOpenCheck = min(nextOpenCheck, deadline)
            }
        } catch {
            connectFailed(connection, error)
        }
    }

    /// A connect under way has ended (its socket reported an event).
    private func connectEnded(_ connection: ThreadConnection, _ socket: BlockingSocket) {
        do {
            try socket.finishConnect()
            epoll.remove(socket.descriptor)
            established(connection, socket, leftover: ByteBuffer(), security: nil)
        } catch {
            connectFailed(connection, error)
        }
    }

    /// The connection is open: counted, and started once sending has begun.
    private func established(_ connection: ThreadConnection, _ stream: any BlockingStream, leftover: ByteBuffer, security: SecurityReport?) {
        connection.opened(stream, leftover: leftover, context: context)
        shared.withLock { shared in
            if let security { shared.stats.recordHandshake(security.handshakeDuration.nanosecondsClamped) }
            if connection.account.opened(&shared.stats, context: context) { shared.attempted += 1 }
            shared.open += 1
        }
        if begun { start(connection) }
    }

    /// The attempt failed: counted, and tried again after the back-off.
    private func connectFailed(_ connection: ThreadConnection, _ error: any Error) {
        connection.close()
        let delay = shared.withLock { shared in
            let (delay, first) = connection.account.failed(error, &shared.stats, target: target)
            if first { shared.attempted += 1 }
            return delay
        }
        connection.retryAt = context.isFinished ? nil : BlockingSocket.now() + delay.nanosecondsClamped
        if let retryAt = connection.retryAt { nextOpenCheck = min(nextOpenCheck, retryAt) }
    }

    /// Sending has begun for an open connection: its socket is watched, what came behind a
    /// WebSocket 101 is read, the pipeline filled.
    private func start(_ connection: ThreadConnection) {
        guard let stream = connection.stream, !connection.watched else { return }
        let now = BlockingSocket.now()
        do {
            try epoll.add(stream.descriptor, token: connection.token)
            connection.watched = true
            if connection.inbound.readableBytes > 0, try cut(connection, now: now, atEOF: false) {
                return serverClosed(connection, now: now)
            }
            _ = try send(connection, now: now)
        } catch {
            fail(connection, error, now: now)
        }
    }

    /// Handles the events of one connection's socket; true when messages went out.
    private func serve(_ connection: ThreadConnection, events: UInt32) -> Bool {
        if let connecting = connection.connecting {
            connectEnded(connection, connecting.socket)
            return false
        }
        guard let stream = connection.stream, connection.watched else { return false }
        let now = BlockingSocket.now()
        do {
            if events & EpollSet.readable != 0 {
                switch try stream.receiveAvailable(into: &connection.inbound) {
                case .bytes:
                    // Served with the others of the batch, once all have been read.
                    received.append(connection)
                    return false
                case .end:
                    if connection.http != nil {
                        // A body until close ends here; an idle connection closed is a server's close.
                        if try cut(connection, now: now, atEOF: true) || connection.state.pending.isEmpty {
                            serverClosed(connection, now: now)
                            return false
                        }
                    }
                    throw ChannelError.eof
                case .nothing:
                    break
                }
            }
            return try send(connection, now: now)
        } catch {
            fail(connection, error, now: now)
            return false
        }
    }

    /// Serves the connections that read bytes in the batch of events just handled: their
    /// replies cut and the messages behind them added under one lock, then the sends. Every
    /// reply of a batch is read before a message goes out (as wrk does), so the server takes
    /// its requests in bursts rather than one wake-up each. True when messages went out.
    private func serveReceived() -> Bool {
        guard !received.isEmpty else { return false }
        defer {
            received.removeAll(keepingCapacity: true)
            outcomes.removeAll(keepingCapacity: true)
        }
        let now = BlockingSocket.now()
        var added = false
        shared.withLock { shared in
            for connection in received {
                defer { shared.outstanding += connection.takeOutstandingChange() }
                do {
                    if try connection.cutReplies(now: now, atEOF: false, stats: &shared.stats) {
                        outcomes.append(.closedByServer)
                        continue
                    }
                } catch {
                    outcomes.append(.failed(error))
                    continue
                }
                if mayFill(connection, now: now), connection.fill(now: now, context: context, stats: &shared.stats) { added = true }
                outcomes.append(.open)
            }
        }
        for (connection, outcome) in zip(received, outcomes) {
            connection.compactInbound()
            switch outcome {
            case .open:
                do { try flush(connection) } catch { fail(connection, error, now: now) }
            case .closedByServer:
                serverClosed(connection, now: now)
            case .failed(let error):
                fail(connection, error, now: now)
            }
        }
        return added
    }

    /// Cuts the replies that came; true when an HTTP server's close ends the connection.
    private func cut(_ connection: ThreadConnection, now: Int64, atEOF: Bool) throws -> Bool {
        let closing = try shared.withLock { shared in
            defer { shared.outstanding += connection.takeOutstandingChange() }
            return try connection.cutReplies(now: now, atEOF: atEOF, stats: &shared.stats)
        }
        connection.compactInbound()
        return closing
    }

    /// Fills the pipeline (until sending stops) and hands the socket what it takes; watches it
    /// for writing while bytes wait. True when messages went out.
    private func send(_ connection: ThreadConnection, now: Int64) throws -> Bool {
        var added = false
        if mayFill(connection, now: now) {
            added = shared.withLock { shared in
                defer { shared.outstanding += connection.takeOutstandingChange() }
                return connection.fill(now: now, context: context, stats: &shared.stats)
            }
        }
        try flush(connection)
        return added
    }

    /// Whether the pipeline has room and sending goes on.
    private func mayFill(_ connection: ThreadConnection, now: Int64) -> Bool {
        now < context.stopInstant && connection.state.pending.count < context.pipeline
    }

    /// Hands the socket what it takes; watches it for writing while bytes wait.
    private func flush(_ connection: ThreadConnection) throws {
        let waiting = try connection.flush()
        if waiting != connection.watchingWrites, let stream = connection.stream {
            try epoll.watch(stream.descriptor, token: connection.token, writable: waiting)
            connection.watchingWrites = waiting
        }
    }

    /// Looks for replies past their deadline: such a connection fails (its messages time out)
    /// and is reopened after the back-off. Returns when to look again.
    private func checkTimeouts(_ connections: [ThreadConnection], now: Int64, limit: Int64) -> Int64 {
        var next = now + limit + 1
        for connection in connections where connection.watched {
            if connection.state.hasTimedOut(now: now, limit: limit) {
                shared.withLock { shared in
                    connection.state.dropPending(timeout: (now, limit), stats: &shared.stats)
                    shared.outstanding += connection.takeOutstandingChange()
                }
                fail(connection, context.replyTimeoutError, now: now)
            } else if let oldest = connection.state.pending.oldest {
                next = min(next, oldest.sent + limit + 1)
            }
        }
        return next
    }

    /// The connection failed: its unanswered messages are lost, the failure counted, and the
    /// slot reopened after the back-off (not once the run is over).
    private func fail(_ connection: ThreadConnection, _ failure: any Error, now: Int64) {
        connection.close()
        let lost = !context.isFinished
        let delay = shared.withLock { shared in
            connection.state.dropPending(timeout: nil, stats: &shared.stats)
            shared.outstanding += connection.takeOutstandingChange()
            shared.open -= 1
            if lost { shared.stats.record(error: ErrorKind.of(failure), failure, target: target) }
            return connection.account.closed(lost: lost, &shared.stats, context: context)
        }
        connection.retryAt = delay.map { now + $0.nanosecondsClamped }
        if let retryAt = connection.retryAt { nextOpenCheck = min(nextOpenCheck, retryAt) }
    }

    /// HTTP: the server closed after a response: counted, and the slot opened again at once;
    /// what was pipelined behind the response goes again on the new connection.
    private func serverClosed(_ connection: ThreadConnection, now: Int64) {
        connection.close()
        shared.withLock { shared in
            shared.stats.counters.countServerClose()
            connection.state.serverClosed()
            shared.outstanding += connection.takeOutstandingChange()
            shared.open -= 1
            connection.account.closedByServer(context: context)
        }
        if !context.isFinished { openConnection(connection) }
    }

    /// The run is over: every connection closes (a WebSocket's close frame sent if the socket
    /// takes it), its unanswered messages lost.
    private func finish(_ connections: [ThreadConnection]) {
        for connection in connections {
            connection.retryAt = nil
            guard let stream = connection.stream else {
                connection.close()  // a connect under way: not counted, as the run is over
                continue
            }
            if var close = connection.webSocket?.closeFrame() { _ = try? stream.sendAvailable(&close) }  // best effort: the run is over
            connection.close()
            shared.withLock { shared in
                connection.state.dropPending(timeout: nil, stats: &shared.stats)
                shared.outstanding += connection.takeOutstandingChange()
                shared.open -= 1
                _ = connection.account.closed(lost: false, &shared.stats, context: context)
            }
        }
    }
}
