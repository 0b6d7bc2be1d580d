import Histogram
import NIOCore

/// What the runner drives: the connections of one event loop (``LoadShard``), or of one
/// thread of plain system calls (``LoadThread``).
protocol LoadWorker: AnyObject, Sendable {
    /// Opens the connection of `slot` (the ramp-up); failures are counted and retried.
    func open(slot: Int)
    /// Slots whose first connect attempt has completed, either way.
    func attemptedCount() async throws -> Int
    /// The ramp-up is over: start sending.
    func begin()
    /// The totals so far and the latencies since the previous snapshot; `cumulative`: with
    /// copies of the whole latency histograms too (for `--metrics-listen`).
    func snapshot(cumulative: Bool) async throws -> LoadSnapshot
    /// Unanswered messages, plus connections with a message due that has not gone yet.
    func unfinishedCount() async throws -> Int
    /// Closes every connection (the run is over, ``RunContext/finish()`` was called): their
    /// unanswered messages count as lost.
    func closeAll() async
    /// Every figure, once closed.
    func totals() async throws -> LoadStats
}

struct LoadSnapshot: Sendable {
    var counters: LoadCounters
    var interval: Histogram<UInt64>
    var outstanding: Int
    var open: Int
    /// Every latency so far (corrected, uncorrected), when asked for.
    var cumulative: (corrected: Histogram<UInt64>, uncorrected: Histogram<UInt64>)? = nil
    /// Every `--label` value's figures so far, with ``cumulative``.
    var labels: LabelTable? = nil
}

extension LoadShard: LoadWorker {
    func open(slot: Int) {
        loop.execute { [self] in connect(slot, self) }
    }

    func attemptedCount() async throws -> Int {
        try await loop.submit { [self] in attemptedSlots }.get()
    }

    func begin() {
        loop.execute { [self] in beginSending() }
    }

    func snapshot(cumulative: Bool) async throws -> LoadSnapshot {
        try await loop.submit { [self] in takeSnapshot(cumulative: cumulative) }.get()
    }

    func unfinishedCount() async throws -> Int {
        try await loop.submit { [self] in outstanding + connectionsWithDueMessages }.get()
    }

    func closeAll() async {
        try? await loop.flatSubmit { [self] in closeConnections() }.get()
    }

    func totals() async throws -> LoadStats {
        try await loop.submit { [self] in stats }.get()
    }
}
