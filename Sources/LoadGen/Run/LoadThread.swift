import Foundation
import NIOCore
import SocketEngine
import Synchronization

/// One load-test connection on a thread of its own (`--io threads`): a closed loop of plain
/// system calls on a ``BlockingSocket`` — write the pipeline's messages, wait for replies,
/// match them in order (``LoadSlot``), repeat. No event loop, no task, no allocation per
/// message.
///
/// Waiting for a reply: with `spin`, the thread polls the socket for up to ``spinNanos``
/// before it sleeps in `poll(2)`, so a fast reply is seen without a wake-up (on loopback the
/// wake-up is most of the round trip). The reply timeout, the end of the run and the peer
/// closing are all noticed within 100 ms, whatever the server does.
///
/// Accounting is the event loops' (``LoadConnectionHandler``): a connection that fails is
/// reopened with the same back-off, its unanswered messages are lost (or timed out); messages
/// unanswered at the end are lost. The figures sit behind a lock taken once per batch of
/// replies, read by the runner's sampler.
final class LoadThread: LoadWorker, @unchecked Sendable {
    /// How long a waiting connection polls before it sleeps, ns.
    static let spinNanos: Int64 = 50_000

    private let slot: Int
    private let context: RunContext
    /// The target this connection's slot goes to; `ws://`: the upgrade's path and host.
    private let endpoint: Endpoint
    private let address: SocketAddress
    private let source: SocketAddress?
    private let spin: Bool

    private struct Shared: Sendable {
        var stats = LoadStats()
        var attempted = false
        var open = false
        var outstanding = 0
    }
    private let shared = Mutex(Shared())
    /// ``begin()`` was called.
    private let begun = Atomic<Bool>(false)
    private let beginSignal = DispatchSemaphore(value: 0)
    /// Set when the thread has returned; who waits for it in ``closeAll()``.
    private let exit = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let started = Atomic<Bool>(false)

    init(slot: Int, context: RunContext, endpoint: Endpoint, address: SocketAddress, source: SocketAddress?, spin: Bool) {
        self.slot = slot
        self.context = context
        self.endpoint = endpoint
        self.address = address
        self.source = source
        self.spin = spin
    }

    // MARK: LoadWorker

    func open(slot: Int) {
        // A LoadThread serves the one slot it was made for.
        guard slot == self.slot, !started.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [self] in
            main()
            let waiters = exit.withLock { exit in
                exit.done = true
                defer { exit.waiters.removeAll() }
                return exit.waiters
            }
            waiters.forEach { $0.resume() }
        }
        thread.name = "sockctl-load-\(slot)"
        thread.start()
    }

    func attemptedCount() async throws -> Int { shared.withLock { $0.attempted ? 1 : 0 } }

    func begin() {
        begun.store(true, ordering: .releasing)
        beginSignal.signal()
    }

    func snapshot(cumulative: Bool) async throws -> LoadSnapshot {
        shared.withLock { state in
            LoadSnapshot(
                counters: state.stats.counters, interval: state.stats.takeInterval(), outstanding: state.outstanding, open: state.open ? 1 : 0,
                cumulative: cumulative ? (state.stats.corrected, state.stats.uncorrected) : nil, labels: cumulative ? state.stats.labels : nil)
        }
    }

    func unfinishedCount() async throws -> Int { shared.withLock { $0.outstanding } }

    /// Waits for the thread to see the end and return: within 100 ms of the run's end, or once
    /// a connect in progress has reached its timeout.
    func closeAll() async {
        guard started.load(ordering: .relaxed) else { return }
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

    private func main() {
        var state = LoadSlot(slot: slot, run: context, rules: (context.plan.correlation?.copy(), context.plan.label?.copy()))
        var account = SlotAccounting()
        while !context.isFinished {
            shared.withLock { account.attempting(&$0.stats) }
            let socket: any BlockingStream
            var leftover = ByteBuffer()
            do {
                socket = try openStream(leftover: &leftover)
            } catch {
                let delay = shared.withLock { shared in
                    shared.attempted = true
                    return account.failed(error, &shared.stats, target: target).backOff
                }
                guard backOff(delay) else { break }
                continue
            }
            shared.withLock { shared in
                _ = account.opened(&shared.stats, context: context)
                shared.attempted = true
                shared.open = true
            }
            let failure = serve(socket, inbound: leftover, state: &state)
            socket.close()
            if failure is ClosedByServer && !context.isFinished {
                // HTTP: the server closed after a response; opened again at once, not lost.
                shared.withLock { shared in
                    shared.open = false
                    account.closedByServer(context: context)
                }
                continue
            }
            let lost = failure != nil && !context.isFinished
            let delay = shared.withLock { shared in
                shared.open = false
                shared.outstanding = 0
                if lost, let failure { shared.stats.record(error: ErrorKind.of(failure), failure, target: target) }
                return account.closed(lost: lost, &shared.stats, context: context)
            }
            guard let delay, backOff(delay) else { break }
        }
    }

    /// Connects through ``BlockingConnection`` (for `wss://` TLS, for `ws://` and `wss://` the
    /// upgrade, all within the connect timeout); the TLS handshake's time goes to the report.
    /// `leftover`: what the server sent behind its 101.
    private func openStream(leftover: inout ByteBuffer) throws -> any BlockingStream {
        let opened = try BlockingConnection.open(endpoint, address: address, source: source, options: context.plan.connectOptions)
        if let security = opened.security {
            shared.withLock { $0.stats.recordHandshake(security.handshakeDuration.nanosecondsClamped) }
        }
        leftover = opened.leftover
        return opened.stream
    }

    /// Sleeps `delay` (``SlotAccounting``'s back-off, the event loops' own) in 5 ms steps;
    /// false when the run ended meanwhile.
    private func backOff(_ delay: Duration) -> Bool {
        let until = BlockingSocket.now() + delay.nanosecondsClamped
        while BlockingSocket.now() < until {
            if context.isFinished { return false }
            usleep(5000)
        }
        return !context.isFinished
    }

    /// HTTP: what ``serve(_:inbound:state:)`` returns when the server closed the connection
    /// after a response: it is opened again at once.
    private struct ClosedByServer: Error {}

    /// The server's close after a response (HTTP): counted; what was pipelined behind it goes
    /// again on the next connection.
    private func serverClosed(_ state: inout LoadSlot) -> any Error {
        shared.withLock { shared in
            shared.stats.counters.countServerClose()
            state.serverClosed()
            shared.outstanding = state.openCount
        }
        return ClosedByServer()
    }

    /// Runs one connection until the run ends (nil) or the connection fails (the error).
    /// `inbound`: what came before (a WebSocket server's first frames, behind its 101).
    private func serve(_ socket: some BlockingStream, inbound: ByteBuffer, state: inout LoadSlot) -> (any Error)? {
        while !begun.load(ordering: .acquiring) {
            if context.isFinished { return nil }
            _ = beginSignal.wait(timeout: .now() + .milliseconds(50))
        }
        let plan = context.plan
        let start = context.start
        let limit = plan.replyTimeout.nanosecondsClamped
        let pipeline = context.pipeline
        var decoder = FrameDecoder(framing: plan.framing ?? .raw, maximumFrameSize: plan.maximumFrameSize)
        var http = plan.isHTTP ? HTTPResponseCutter(sendsHEAD: context.sendsHEAD) : nil
        var webSocket = endpoint.transport.isWebSocket ? WebSocketClientFramer(slot: slot, options: plan.connectOptions.webSocket, maximumFrameSize: plan.maximumFrameSize) : nil
        var inbound = inbound
        var outbound = ByteBuffer()
        inbound.reserveCapacity(65536)
        outbound.reserveCapacity(4096)
        do {
            while true {
                if context.isFinished {
                    shared.withLock { state.dropPending(timeout: nil, stats: &$0.stats) }
                    if var close = webSocket?.closeFrame() { _ = try? socket.sendAvailable(&close) }  // best effort: the run is over
                    return nil
                }
                var now = BlockingSocket.now()
                if now < context.stopInstant && state.pending.count < pipeline && !state.isExhausted(context) {
                    shared.withLock { shared in
                        while state.pending.count < pipeline && !state.isExhausted(context) {
                            if webSocket != nil {
                                webSocket?.send(into: &outbound) { state.append(dueAt: now, now: now, start: start, to: &$0, stats: &shared.stats) }
                            } else {
                                _ = state.append(dueAt: now, now: now, start: start, to: &outbound, stats: &shared.stats)
                                http?.sent(pending: state.pending.count)
                            }
                        }
                        shared.outstanding = state.openCount
                    }
                }
                if outbound.readableBytes > 0 {
                    try socket.sendAvailable(&outbound)
                    if outbound.readableBytes == 0 { outbound.clear() } else { outbound.discardReadBytes() }
                }
                let waiting = !state.pending.isEmpty
                let oldestDeadline = state.pending.oldest.map { $0.sent + limit + 1 } ?? .max
                let got = try socket.receive(
                    into: &inbound, spinUntil: spin && waiting ? now + Self.spinNanos : 0,
                    waitUntil: min(oldestDeadline, now + (waiting ? 100_000_000 : 10_000_000)),
                    alsoWritable: outbound.readableBytes > 0)
                now = BlockingSocket.now()
                switch got {
                case .bytes:
                    let closing = try shared.withLock { shared in
                        defer { shared.outstanding = state.openCount }
                        if http != nil {
                            return try http?.cut(&inbound, atEOF: false, state: &state, now: now, stats: &shared.stats) ?? false
                        }
                        if webSocket != nil {
                            // A message's payload bytes, as the event loops count them.
                            try webSocket?.receive(from: &inbound, answers: &outbound) { state.reply($0, bytes: $0.readableBytes, now: now, stats: &shared.stats) }
                        } else {
                            var consumedFrom = inbound.readerIndex
                            while let frame = try decoder.decode(&inbound) {
                                // Wire bytes: the frame with its delimiter or length prefix.
                                state.reply(frame, bytes: inbound.readerIndex - consumedFrom, now: now, stats: &shared.stats)
                                consumedFrom = inbound.readerIndex
                            }
                        }
                        return false
                    }
                    if inbound.readableBytes == 0 { inbound.clear() } else { inbound.discardReadBytes() }
                    if closing { return serverClosed(&state) }
                case .end:
                    if http != nil {
                        // A body until close ends here; an idle connection closed is a server's close.
                        let closing = try shared.withLock { shared in
                            try http?.cut(&inbound, atEOF: true, state: &state, now: now, stats: &shared.stats) ?? false
                        }
                        if closing || state.pending.isEmpty { return serverClosed(&state) }
                    }
                    throw ChannelError.eof
                case .nothing:
                    if state.hasTimedOut(now: now, limit: limit) {
                        shared.withLock { state.dropPending(timeout: (now, limit), stats: &$0.stats) }
                        return context.replyTimeoutError
                    }
                }
            }
        } catch {
            shared.withLock { state.dropPending(timeout: nil, stats: &$0.stats) }
            return error
        }
    }
}
