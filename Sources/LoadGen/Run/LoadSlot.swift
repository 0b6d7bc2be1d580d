import HTTPScanning
import Histogram
import NIOCore
import SocketEngine

/// The counters and histograms of one event loop (``LoadShard``) or one thread of plain
/// system calls (``LoadThread``). Plain values; the owner decides how they are kept from races.
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
    /// Through a proxy: each tunnel's handshake (from connected to the proxy to the tunnel open), ns.
    var tunnels = LoadStats.makeHistogram()
    /// The first message of each error kind, for the report (worded by ``LoadPlan/naming``).
    var firstErrors: [ErrorKind: SettingText] = [:]
    /// Per `--label` value: counts and latency.
    var labels = LabelTable()

    /// Values up to one hour, in nanoseconds, 3 significant digits (1 µs resolution at 1 ms).
    static let highestTrackableNanos: UInt64 = 3_600_000_000_000
    static func makeHistogram() -> Histogram<UInt64> {
        Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: highestTrackableNanos, numberOfSignificantValueDigits: .three)
    }

    mutating func record(error kind: ErrorKind, _ error: any Error, target: String) {
        counters.count(kind)
        if firstErrors[kind] == nil {
            firstErrors[kind] = SocketEngineError.wrapping(error, context: target).text
        }
    }

    @inline(__always)
    mutating func recordLatency(corrected correctedNanos: Int64, uncorrected uncorrectedNanos: Int64, label: Int32 = -1) {
        let correctedValue = min(UInt64(clamping: max(0, correctedNanos)), Self.highestTrackableNanos)
        let uncorrectedValue = min(UInt64(clamping: max(0, uncorrectedNanos)), Self.highestTrackableNanos)
        corrected.record(correctedValue)
        interval.record(correctedValue)
        uncorrected.record(uncorrectedValue)
        if label >= 0 { labels.countReceived(label, correctedNanos: correctedValue) }
    }

    mutating func recordHandshake(_ nanos: Int64) {
        handshakes.record(min(UInt64(clamping: max(0, nanos)), Self.highestTrackableNanos))
    }

    mutating func recordTunnel(_ nanos: Int64) {
        tunnels.record(min(UInt64(clamping: max(0, nanos)), Self.highestTrackableNanos))
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
        tunnels.add(other.tunnels)
        labels.add(other.labels)
        for (kind, text) in other.firstErrors where firstErrors[kind] == nil { firstErrors[kind] = text }
    }
}

/// The messages of one connection slot, whatever does its I/O: which message goes next, the
/// unanswered ones, and how each send, reply, timeout and loss is counted.
///
/// Message numbering: slot `s` of `c` connections sends the run's messages `s`, `s + c`,
/// `s + 2c`, … (its `k`-th message is number `k·c + s`), so the open-loop schedule is spread
/// evenly over the connections and `{{seq}}` is unique in the run.
///
/// Replies are matched in order (the first unanswered message gets the first reply), which is
/// right for TCP and Unix streams; over UDP a lost datagram is noticed by its timeout. With
/// `--correlate` a reply answers the unanswered message with its key instead, wherever that
/// one is; a reply with no key, or whose key no unanswered message has, is `unmatched`.
struct LoadSlot {
    typealias Pending = OpenRequests.Request

    let slot: Int
    private let stride: Int
    private let budget: Int?
    private let template: MessageTemplate
    let expectsReplies: Bool
    private let warmupNanos: Int64
    private let context: RunContext
    /// `--correlate`: the rule that finds a message's key.
    private let correlation: MessageField?
    /// `--label`: the rule that finds a request's label.
    private let label: MessageField?
    /// The framing's bytes before and after a message's body (a length prefix, a delimiter).
    private let bodyHeader: Int
    private let bodyTrailer: Int
    /// Requests are HTTP messages (`http://`): a rule reads their body after the head.
    private let httpRequests: Bool
    private(set) var pending = OpenRequests()
    /// This slot's next message (its `k`).
    private(set) var nextIndex = 0
    /// HTTP: messages that were unanswered when the server closed their connection after an
    /// earlier response (`Connection: close`), sent again first on the next connection (from
    /// ``requeuedFront``), not counted as sent a second time.
    private var requeued: [Pending] = []
    private var requeuedFront = 0
    /// The server closed the connection after a response: the next one opens at once and goes
    /// on where this one stopped (an open loop skips nothing).
    private(set) var closedByServer = false

    /// The slot's state; `rules` are the run's `--correlate` and `--label` rules, as copied
    /// for the thread that serves the slot (``MessageField/copy()``).
    init(slot: Int, run: RunContext, rules: (correlation: MessageField?, label: MessageField?)) {
        self.slot = slot
        context = run
        stride = run.plan.connections
        budget = run.requestBudget(slot: slot)
        template = run.template(slot: slot)
        expectsReplies = run.plan.framing != nil
        warmupNanos = run.warmupNanos
        correlation = expectsReplies ? rules.correlation : nil
        label = expectsReplies ? rules.label : nil
        (bodyHeader, bodyTrailer) = template.framing.bodyMargins
        httpRequests = run.plan.isHTTP
    }

    /// The run's number of this slot's next message.
    var nextNumber: Int { nextIndex * stride + slot }

    /// The slot has sent its share of `--requests`, or the run is over.
    ///
    /// `mutating` (it changes nothing) so that the send loops read the slot in place: as a
    /// plain method, called on the handler's stored slot once per message, the optimizer copied
    /// the whole slot (a retain and release of each of its references) every time — send-only
    /// load fell from 21 to 3 million messages/s.
    @inline(__always)
    mutating func isExhausted(_ run: RunContext) -> Bool {
        if run.isFinished { return true }
        if requeuedFront < requeued.count { return false }
        if let budget, nextIndex >= budget { return true }
        return false
    }

    /// Skips the next message (open loop: it fell due while the slot had no connection).
    mutating func skip() { nextIndex += 1 }

    /// Appends the next message to `buffer` and counts it; returns its size. `due` is when it
    /// was due (closed loop: `now`), `start` the run's start.
    @inline(__always)
    mutating func append(dueAt due: Int64, now: Int64, start: Int64, to buffer: inout ByteBuffer, stats: inout LoadStats) -> Int {
        if requeuedFront < requeued.count { return appendAgain(now: now, to: &buffer) }
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
        guard expectsReplies else { return size }
        var request = Pending(due: due, sent: now, measured: measured, label: -1, number: number)
        if correlation == nil && label == nil {
            pending.append(request, key: nil)
            return size
        }
        // The body: the message as written, without its framing (an HTTP request's: after its
        // head, unless the rule reads the request line).
        var bodyStart = before + bodyHeader
        var bodyLength = max(0, size - bodyHeader - bodyTrailer)
        if httpRequests && !(label?.readsRequestLine ?? false) {
            let headLength = buffer.withUnsafeReadableBytes { raw in Self.headLength(raw, from: before - buffer.readerIndex, size: size) }
            bodyStart = before + headLength
            bodyLength = size - headLength
        }
        let (key, labelKey): (FieldKey?, FieldKey?) = buffer.withUnsafeReadableBytes { raw in
            let offset = bodyStart - buffer.readerIndex
            guard offset >= 0, offset + bodyLength <= raw.count else { return (nil, nil) }
            let body = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + bodyLength)])
            return (correlation?.key(in: body), label?.key(in: body))
        }
        if let label {
            request.label = stats.labels.index(for: labelKey) {
                buffer.withUnsafeReadableBytes { raw in
                    let offset = bodyStart - buffer.readerIndex
                    guard offset >= 0, offset + bodyLength <= raw.count else { return nil }
                    return label.value(in: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + bodyLength)]))
                }
            }
            if measured { stats.labels.countSent(request.label) }
        }
        if let displaced = pending.append(request, key: key) {
            // Two open messages with one key: the older can no longer be told apart.
            stats.counters.duplicateKeys += 1
            Self.count(lost: displaced, stats: &stats)
        }
        return size
    }

    /// Sends again the oldest message the server's close left unanswered: the same number, due
    /// time, label and key, now sent at `now`; it was counted as sent the first time.
    @inline(never)
    private mutating func appendAgain(now: Int64, to buffer: inout ByteBuffer) -> Int {
        var request = requeued[requeuedFront]
        requeuedFront += 1
        if requeuedFront == requeued.count {
            requeued.removeAll(keepingCapacity: true)
            requeuedFront = 0
        }
        let before = buffer.writerIndex
        template.append(sequence: request.number + 1, connection: slot + 1, to: &buffer)
        request.sent = now
        request.answered = false
        pending.append(request, key: request.key)
        return buffer.writerIndex - before
    }

    /// Messages wait to be sent again (the server closed their connection).
    var hasRequeued: Bool { requeuedFront < requeued.count }

    /// Unanswered messages: sent and waiting, or waiting to be sent again.
    var openCount: Int { pending.count + requeued.count - requeuedFront }

    /// The server closed the connection after answering (HTTP `Connection: close`): the
    /// messages still unanswered on it go first on the next connection.
    mutating func serverClosed() {
        var again: [Pending] = []
        pending.removeAll { again.append($0) }
        again += requeued[requeuedFront...]
        requeued = again
        requeuedFront = 0
        closedByServer = true
    }

    /// The connection that replaces the one the server closed has opened: true once (it goes
    /// on without skipping what fell due meanwhile).
    mutating func takeServerClose() -> Bool {
        defer { closedByServer = false }
        return closedByServer
    }

    /// An HTTP response came at `now`: a final one answers the oldest unanswered message and is
    /// counted by status; an interim one (1xx) answers nothing.
    @inline(__always)
    mutating func reply(http info: HTTPMessageInfo, now: Int64, stats: inout LoadStats) {
        if info.isInterim {
            if now - context.start >= warmupNanos { stats.counters.countInterim() }
            return
        }
        guard let message = pending.popOldest() else {
            stats.counters.bytesReceived += info.wireBytes
            return
        }
        answered(message, bytes: info.wireBytes, now: now, stats: &stats)
        if message.measured { stats.counters.countHTTP(status: info.status) }
    }

    /// The length of the HTTP head (through its empty line) of the `size` bytes at `offset` in `raw`.
    private static func headLength(_ raw: UnsafeRawBufferPointer, from offset: Int, size: Int) -> Int {
        guard offset >= 0, size >= 4, offset + size <= raw.count else { return 0 }
        for index in offset..<(offset + size - 3)
        where raw[index] == 0x0D && raw[index + 1] == 0x0A && raw[index + 2] == 0x0D && raw[index + 3] == 0x0A {
            return index + 4 - offset
        }
        return size
    }

    /// A reply of `bytes` wire bytes came at `now`: it answers the oldest unanswered message.
    @inline(__always)
    mutating func reply(bytes: Int, now: Int64, stats: inout LoadStats) {
        guard let message = pending.popOldest() else {
            // A reply to nothing: the server sent more frames than we asked for.
            stats.counters.bytesReceived += bytes
            return
        }
        answered(message, bytes: bytes, now: now, stats: &stats)
    }

    /// A reply `frame` (its body, as the framing cut it) of `bytes` wire bytes came at `now`:
    /// with `--correlate` it answers the unanswered message with its key, else the oldest.
    @inline(__always)
    mutating func reply(_ frame: ByteBuffer, bytes: Int, now: Int64, stats: inout LoadStats) {
        if correlation == nil {
            reply(bytes: bytes, now: now, stats: &stats)
            return
        }
        guard let key = correlation?.key(in: frame), let message = pending.answer(key: key) else {
            stats.counters.bytesReceived += bytes
            if now - context.start >= warmupNanos { stats.counters.unmatched += 1 }
            return
        }
        answered(message, bytes: bytes, now: now, stats: &stats)
    }

    @inline(__always)
    private func answered(_ message: Pending, bytes: Int, now: Int64, stats: inout LoadStats) {
        guard message.measured else { return }
        stats.counters.messagesReceived += 1
        stats.counters.bytesReceived += bytes
        stats.recordLatency(corrected: now - message.due, uncorrected: now - message.sent, label: message.label)
    }

    private static func count(lost message: Pending, stats: inout LoadStats) {
        guard message.measured else { return }
        stats.counters.lost += 1
        stats.labels.countLost(message.label)
    }

    private static func count(timedOut message: Pending, stats: inout LoadStats) {
        guard message.measured else { return }
        stats.counters.timedOut += 1
        stats.labels.countTimedOut(message.label)
    }

    /// The oldest unanswered message has waited longer than `limit` at `now`.
    func hasTimedOut(now: Int64, limit: Int64) -> Bool {
        guard let oldest = pending.oldest else { return false }
        return now - oldest.sent > limit
    }

    /// Datagrams: forgets the unanswered messages older than `limit` (they timed out).
    mutating func dropTimedOut(now: Int64, limit: Int64, stats: inout LoadStats) {
        while let first = pending.oldest, now - first.sent > limit {
            _ = pending.popOldest()
            Self.count(timedOut: first, stats: &stats)
        }
    }

    /// Forgets every unanswered message: those older than the timeout (when given) timed out,
    /// the rest (those waiting to be sent again included) are lost.
    mutating func dropPending(timeout: (now: Int64, limit: Int64)?, stats: inout LoadStats) {
        for message in requeued[requeuedFront...] { Self.count(lost: message, stats: &stats) }
        requeued.removeAll()
        requeuedFront = 0
        pending.removeAll { message in
            if let timeout, timeout.now - message.sent > timeout.limit {
                Self.count(timedOut: message, stats: &stats)
            } else {
                Self.count(lost: message, stats: &stats)
            }
        }
    }
}
