import Histogram
import NIOCore
import NIOPosix
import SocketEngine
import Synchronization

/// What every connection of a run reads: the plan, the schedule and the clock's zero.
/// Immutable once the run has begun, except the atomics.
final class RunContext: Sendable {
    let plan: LoadPlan
    let schedule: RateSchedule?
    let pipeline: Int
    /// One address per target; slot `k` connects to `addresses[k % addresses.count]`.
    let addresses: [SocketAddress]
    /// The transport's nanoseconds (the loops' `now`, the threads' `CLOCK_MONOTONIC`) at which
    /// the run began (0 until then): every message is due at an offset from it.
    private let startStorage = Atomic<Int64>(0)
    /// Nanoseconds after the start at which the warm-up ends and measuring begins.
    let warmupNanos: Int64
    /// Nanoseconds after the start at which sending stops (Int64.max: when requests are sent);
    /// brought forward by ``interrupt(at:)``.
    var stopNanos: Int64 { stopStorage.load(ordering: .relaxed) }
    private let stopStorage: Atomic<Int64>
    /// The monotonic instant at which sending stops (Int64.max: none).
    var stopInstant: Int64 {
        let (stop, overflow) = start.addingReportingOverflow(stopNanos)
        return overflow ? .max : stop
    }
    /// Set when the run is over: no more sending, no reconnecting.
    private let finishedStorage = Atomic<Bool>(false)
    let connectionsOpen = OpenConnections()
    /// What each target's connections send (``LoadPlan/messageTemplates()``).
    private let templates: [MessageTemplate]
    /// HTTP targets: each request is a HEAD (its response has no body).
    let sendsHEAD: Bool

    init(plan: LoadPlan, addresses: [SocketAddress]) {
        self.plan = plan
        templates = (try? plan.messageTemplates()) ?? [plan.message]
        sendsHEAD = plan.isHTTP && (plan.http?.isHEAD ?? false)
        self.addresses = addresses
        schedule = plan.schedule
        pipeline = plan.effectivePipeline
        warmupNanos = plan.warmup.nanosecondsClamped
        stopStorage = Atomic(plan.sendingDuration?.nanosecondsClamped ?? .max)
    }

    /// The run was stopped early (``LoadRunner/stop()``) `offset` nanoseconds after its start
    /// (on the runner's clock: only offsets cross from it): nothing due after it is sent.
    /// Before the run has begun, nothing is sent at all.
    func interrupt(at offset: Int64) {
        let at = hasBegun ? max(0, offset) : 0
        var current = stopStorage.load(ordering: .relaxed)
        while at < current {
            let (exchanged, original) = stopStorage.compareExchange(expected: current, desired: at, ordering: .relaxed)
            if exchanged { break }
            current = original
        }
    }

    /// What connection `slot` sends.
    func template(slot: Int) -> MessageTemplate {
        templates[slot % templates.count]
    }

    func address(slot: Int) -> SocketAddress? {
        addresses.isEmpty ? nil : addresses[slot % addresses.count]
    }

    var start: Int64 { startStorage.load(ordering: .acquiring) }
    var hasBegun: Bool { start != 0 }
    func begin(at nanos: Int64) { startStorage.store(max(1, nanos), ordering: .releasing) }

    /// What a message without a reply within ``LoadPlan/replyTimeout`` fails with.
    var replyTimeoutError: SocketEngineError {
        SocketEngineError(.readTimeout, "no reply within \(plan.replyTimeout.formatted)")
    }

    var isFinished: Bool { finishedStorage.load(ordering: .acquiring) }
    func finish() { finishedStorage.store(true, ordering: .releasing) }

    /// How many messages connection `slot` sends in all (``LoadPlan/requests`` split evenly);
    /// nil: no count limit.
    func requestBudget(slot: Int) -> Int? {
        guard let requests = plan.requests else { return nil }
        let connections = plan.connections
        return requests / connections + (slot < requests % connections ? 1 : 0)
    }

    func connectionOpened() { connectionsOpen.opened() }

    func connectionClosed() { connectionsOpen.closed() }
}

/// The statistics and connections of one event loop. Touched only on ``loop`` (every method
/// must be called there), so recording a latency costs no lock or atomic.
final class LoadShard: @unchecked Sendable {
    let loop: any EventLoop
    let context: RunContext
    /// Opens a connection for a slot on this shard's loop (set by the runner).
    let connect: @Sendable (_ slot: Int, _ shard: LoadShard) -> Void

    /// Counters and histograms: touched only on ``loop``, so not checked for exclusive access
    /// at run time (each message updates them; see LoadConnectionHandler's state).
    @exclusivity(unchecked) var stats = LoadStats()
    /// Live connections by slot.
    var handlers: [Int: LoadConnectionHandler] = [:]
    /// Each slot's connection life: attempts, opens, failures, losses, and its back-off.
    var accounts: [Int: SlotAccounting] = [:]
    /// Slots whose first connect attempt has completed (either way).
    var attemptedSlots = 0
    /// The message state of slots whose connection ended, for the one that replaces it.
    var slotStates: [Int: LoadSlot] = [:]
    /// `--correlate` and `--label`, this loop's own copies (no reference count shared with
    /// another loop's thread on the hot path).
    let rules: (correlation: MessageField?, label: MessageField?)
    private var sweeper: RepeatedTask?

    init(loop: any EventLoop, context: RunContext, connect: @escaping @Sendable (Int, LoadShard) -> Void) {
        self.loop = loop
        self.context = context
        self.connect = connect
        rules = (context.plan.correlation?.copy(), context.plan.label?.copy())
    }

    /// The loop's time in nanoseconds: the clock every message on this shard is stamped and
    /// scheduled by (real on a real loop, the test's on an `EmbeddedEventLoop`).
    var now: Int64 { Int64(truncatingIfNeeded: loop.now.uptimeNanoseconds) }

    func record(error kind: ErrorKind, _ error: any Error) {
        stats.record(error: kind, error, target: context.plan.endpoint.description)
    }

    // MARK: Connections

    /// A connect attempt for `slot` begins.
    func attempting(slot: Int) {
        accounts[slot, default: SlotAccounting()].attempting(&stats)
    }

    func opened(slot: Int, handler: LoadConnectionHandler) {
        handlers[slot] = handler
        if accounts[slot, default: SlotAccounting()].opened(&stats, context: context) { attemptedSlots += 1 }
    }

    func connectFailed(slot: Int, error: any Error) {
        let (delay, first) = accounts[slot, default: SlotAccounting()].failed(error, &stats, target: context.plan.endpoint.description)
        if first { attemptedSlots += 1 }
        scheduleReconnect(slot: slot, after: delay)
    }

    /// A live connection ended. `lost`: it ended before the run did (counted, reopened).
    func closed(slot: Int, lost: Bool) {
        handlers[slot] = nil
        if let delay = accounts[slot, default: SlotAccounting()].closed(lost: lost, &stats, context: context) {
            scheduleReconnect(slot: slot, after: delay)
        }
    }

    /// The server closed `slot`'s connection after a response (HTTP): it is opened again at
    /// once (on the next turn of the loop), not counted as lost.
    func closedByServer(slot: Int) {
        handlers[slot] = nil
        accounts[slot, default: SlotAccounting()].closedByServer(context: context)
        guard !context.isFinished else { return }
        loop.execute { [self] in
            guard !context.isFinished, handlers[slot] == nil else { return }
            connect(slot, self)
        }
    }

    /// Tries again after `delay` (``ReconnectPolicy/loadTest``), on this loop's time.
    func scheduleReconnect(slot: Int, after delay: Duration) {
        guard !context.isFinished else { return }
        loop.scheduleTask(in: delay.timeAmount) { [self] in
            guard !context.isFinished, handlers[slot] == nil else { return }
            connect(slot, self)
        }
    }

    // MARK: Run phases

    /// Starts every connection's sending (the ramp-up is over) and the reply-timeout sweeper.
    func beginSending() {
        for handler in handlers.values { handler.begin() }
        let period = TimeAmount.nanoseconds(max(10_000_000, min(100_000_000, context.plan.replyTimeout.nanosecondsClamped / 10)))
        sweeper = loop.scheduleRepeatedTask(initialDelay: period, delay: period) { [self] _ in
            let now = self.now
            for handler in handlers.values { handler.checkTimeouts(now: now) }
        }
    }

    /// Unanswered messages on this loop.
    var outstanding: Int {
        handlers.values.reduce(0) { $0 + $1.outstandingCount } + slotStates.values.reduce(0) { $0 + $1.openCount }
    }

    /// Connections with a message due before the end of sending that has not gone yet.
    var connectionsWithDueMessages: Int { handlers.values.reduce(0) { $0 + ($1.hasDueMessages ? 1 : 0) } }

    /// Closes every connection (the run is over); their unanswered messages count as lost.
    func closeConnections() -> EventLoopFuture<Void> {
        sweeper?.cancel()
        sweeper = nil
        // Messages waiting for a connection to be sent again (HTTP, after a server's close) are lost.
        for slot in Array(slotStates.keys) { slotStates[slot]?.dropPending(timeout: nil, stats: &stats) }
        let futures = handlers.values.map { $0.closeAtEnd() }
        return EventLoopFuture.andAllComplete(futures, on: loop)
    }

    /// The totals so far and the latencies since the previous snapshot (and all of them, when
    /// `cumulative`).
    func takeSnapshot(cumulative: Bool = false) -> LoadSnapshot {
        LoadSnapshot(
            counters: stats.counters, interval: stats.takeInterval(), outstanding: outstanding, open: handlers.count,
            cumulative: cumulative ? (stats.corrected, stats.uncorrected) : nil, labels: cumulative ? stats.labels : nil)
    }
}
