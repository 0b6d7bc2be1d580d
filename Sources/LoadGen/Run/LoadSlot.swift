import Histogram
import NIOCore
import SocketEngine

/// The counters and histograms of one event loop (``LoadShard``) or one connection thread
/// (``LoadThread``). Plain values; the owner decides how they are kept from races.
struct LoadStats: Sendable {
    var counters = LoadCounters()
    /// Latency from the time each message was due (closed loop: sent) to its reply, ns.
    var corrected = LoadStats.makeHistogram()
    /// Latency from the time each message was actually sent to its reply, ns.
    var uncorrected = LoadStats.makeHistogram()
    /// ``corrected`` since the last ``takeInterval()``.
    var interval = LoadStats.makeHistogram()
    /// TLS handshakes (`tls://`, `wss://`), ns.
    var handshakes = LoadStats.makeHistogram()
    /// The first message of each error kind, for the report.
    var firstErrors: [ErrorKind: String] = [:]

    /// Values up to one hour, in nanoseconds, 3 significant digits (1 µs resolution at 1 ms).
    static let highestTrackableNanos: UInt64 = 3_600_000_000_000
    static func makeHistogram() -> Histogram<UInt64> {
        Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: highestTrackableNanos, numberOfSignificantValueDigits: .three)
    }

    mutating func record(error kind: ErrorKind, _ error: any Error, target: String) {
        counters.count(kind)
        if firstErrors[kind] == nil {
            firstErrors[kind] = SocketEngineError.wrapping(error, context: target).message
        }
    }

    @inline(__always)
    mutating func recordLatency(corrected correctedNanos: Int64, uncorrected uncorrectedNanos: Int64) {
        let correctedValue = min(UInt64(clamping: max(0, correctedNanos)), Self.highestTrackableNanos)
        let uncorrectedValue = min(UInt64(clamping: max(0, uncorrectedNanos)), Self.highestTrackableNanos)
        corrected.record(correctedValue)
        interval.record(correctedValue)
        uncorrected.record(uncorrectedValue)
    }

    mutating func recordHandshake(_ nanos: Int64) {
        handshakes.record(min(UInt64(clamping: max(0, nanos)), Self.highestTrackableNanos))
    }

    /// ``interval`` so far; it starts again empty.
    mutating func takeInterval() -> Histogram<UInt64> {
        let taken = interval
        interval.reset()
        return taken
    }

    /// Adds another owner's figures (the report's collection).
    mutating func add(_ other: LoadStats) {
        counters.add(other.counters)
        corrected.add(other.corrected)
        uncorrected.add(other.uncorrected)
        handshakes.add(other.handshakes)
        for (kind, text) in other.firstErrors where firstErrors[kind] == nil { firstErrors[kind] = text }
    }
}

/// The messages of one connection slot, whatever does its I/O: which message goes next, the
/// unanswered ones in order, and how each send, reply, timeout and loss is counted.
///
/// Message numbering: slot `s` of `c` connections sends the run's messages `s`, `s + c`,
/// `s + 2c`, … (its `k`-th message is number `k·c + s`), so the open-loop schedule is spread
/// evenly over the connections and `{{seq}}` is unique in the run.
///
/// Replies are matched in order (the first unanswered message gets the first reply), which is
/// right for TCP and Unix streams; over UDP a lost datagram is noticed by its timeout.
struct LoadSlot {
    struct Pending {
        var due: Int64
        var sent: Int64
        var measured: Bool
    }

    let slot: Int
    private let stride: Int
    private let budget: Int?
    private let template: MessageTemplate
    let expectsReplies: Bool
    private let warmupNanos: Int64
    private(set) var pending = CircularBuffer<Pending>(initialCapacity: 16)
    /// This slot's next message (its `k`).
    private(set) var nextIndex = 0

    init(slot: Int, run: RunContext) {
        self.slot = slot
        stride = run.plan.connections
        budget = run.requestBudget(slot: slot)
        template = run.plan.message
        expectsReplies = run.plan.framing != nil
        warmupNanos = run.warmupNanos
    }

    /// The run's number of this slot's next message.
    var nextNumber: Int { nextIndex * stride + slot }

    /// The slot has sent its share of `--requests`, or the run is over.
    func isExhausted(_ run: RunContext) -> Bool {
        if run.isFinished { return true }
        if let budget, nextIndex >= budget { return true }
        return false
    }

    /// Skips the next message (open loop: it fell due while the slot had no connection).
    mutating func skip() { nextIndex += 1 }

    /// Appends the next message to `buffer` and counts it; returns its size. `due` is when it
    /// was due (closed loop: `now`), `start` the run's start.
    @inline(__always)
    mutating func append(dueAt due: Int64, now: Int64, start: Int64, to buffer: inout ByteBuffer, stats: inout LoadStats) -> Int {
        let number = nextNumber
        nextIndex += 1
        let before = buffer.writerIndex
        template.append(sequence: number + 1, connection: slot + 1, to: &buffer)
        let size = buffer.writerIndex - before
        let measured = due - start >= warmupNanos
        if measured {
            stats.counters.messagesSent += 1
            stats.counters.bytesSent += size
        } else {
            stats.counters.warmupSent += 1
        }
        if expectsReplies { pending.append(Pending(due: due, sent: now, measured: measured)) }
        return size
    }

    /// A reply of `bytes` wire bytes came at `now`: it answers the oldest unanswered message.
    @inline(__always)
    mutating func reply(bytes: Int, now: Int64, stats: inout LoadStats) {
        guard let message = pending.popFirst() else {
            // A reply to nothing: the server sent more frames than we asked for.
            stats.counters.bytesReceived += bytes
            return
        }
        guard message.measured else { return }
        stats.counters.messagesReceived += 1
        stats.counters.bytesReceived += bytes
        stats.recordLatency(corrected: now - message.due, uncorrected: now - message.sent)
    }

    /// The oldest unanswered message has waited longer than `limit` at `now`.
    func hasTimedOut(now: Int64, limit: Int64) -> Bool {
        guard let oldest = pending.first else { return false }
        return now - oldest.sent > limit
    }

    /// Datagrams: forgets the unanswered messages older than `limit` (they timed out).
    mutating func dropTimedOut(now: Int64, limit: Int64, stats: inout LoadStats) {
        while let first = pending.first, now - first.sent > limit {
            _ = pending.popFirst()
            if first.measured { stats.counters.timedOut += 1 }
        }
    }

    /// Forgets every unanswered message: those older than the timeout (when given) timed out,
    /// the rest are lost.
    mutating func dropPending(timeout: (now: Int64, limit: Int64)?, stats: inout LoadStats) {
        while let message = pending.popFirst() {
            guard message.measured else { continue }
            if let timeout, timeout.now - message.sent > timeout.limit {
                stats.counters.timedOut += 1
            } else {
                stats.counters.lost += 1
            }
        }
    }
}
