/// Who holds a listener's places and which of them must go, by the ``SlotRules``: a pure state
/// machine over a clock's instants, told what each client has done and asked at given moments.
///
/// - ``expireIdle(at:)``: the serving clients with nothing either way for the idle timeout,
///   counted from their last byte or from when they started serving, whichever is later.
///   ``nextReview(after:)`` says when to ask next.
/// - ``makeRoom(at:)``: when a newcomer finds every place taken, the client with the lowest rate
///   over its judged window, if below the minimum rate. Windows are rolled when asked (a client's
///   window is judged once it is at least ``SlotRules/rateWindow`` old, and a new one begins), so
///   a rate is over the last window to twice that while newcomers keep coming — that is, while
///   places are scarce — and over a longer stretch after a calm.
/// - ``census(at:)``: what the holders are doing, for the line that refuses a newcomer.
///
/// Generic over the instant so tests drive it with a mock clock; it never reads a clock itself.
package struct SlotPolicy<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration, Instant: Sendable {
    /// Where a client is in its life.
    package enum Phase: Sendable, Equatable {
        /// Accepted on `tls://` (or `wss://`), the TLS handshake not done.
        case tlsHandshake
        /// Accepted on `ws://` (or past TLS on `wss://`), the HTTP upgrade not done.
        case webSocketHandshake
        /// Handed to the service.
        case serving
    }

    /// What a client's counters say: bytes moved either way so far, and when the last one did.
    package struct Activity: Sendable, Equatable {
        package var bytes: Int
        package var last: Instant

        package init(bytes: Int, last: Instant) {
            self.bytes = bytes
            self.last = last
        }
    }

    /// Why a client must go.
    package enum Verdict: Sendable, Equatable {
        /// Nothing either way for the idle timeout (this long).
        case idle(Duration)
        /// Its place goes to a newcomer: it moved `bytes` over `span`, below the minimum rate.
        case slow(bytes: Int, span: Duration)
    }

    /// What the holders of the places are doing; each client counted once, in the first of these
    /// that fits it.
    package struct Census: Sendable, Equatable {
        package var tlsHandshake = 0
        package var webSocketHandshake = 0
        /// Serving, nothing either way for a rate window or more.
        package var idle = 0
        /// Judged below the minimum rate.
        package var slow = 0
        /// Admitted less than a rate window ago.
        package var young = 0
        package var active = 0
    }

    private struct Client: Sendable {
        var phase: Phase
        let admitted: Instant
        var servingSince: Instant?
        var activity: Activity
        /// Where the window being filled began.
        var mark: (at: Instant, bytes: Int)
        /// Where the window being judged began; nil until the first has filled.
        var judged: (at: Instant, bytes: Int)?

        var idleSince: Instant? {
            guard let servingSince else { return nil }
            return max(servingSince, activity.last)
        }
    }

    package let rules: SlotRules
    private var clients: [UInt64: Client] = [:]

    package init(rules: SlotRules) {
        self.rules = rules
    }

    /// How many clients hold a place.
    package var count: Int { clients.count }

    /// Whether `id` holds a place.
    package func holds(_ id: UInt64) -> Bool { clients[id] != nil }

    /// The phase `id` is in (nil: it holds no place).
    package func phase(of id: UInt64) -> Phase? { clients[id]?.phase }

    // MARK: Changes

    /// `id` takes a place at `now`, in `phase`.
    package mutating func admit(_ id: UInt64, phase: Phase, at now: Instant) {
        clients[id] = Client(
            phase: phase, admitted: now, servingSince: phase == .serving ? now : nil,
            activity: Activity(bytes: 0, last: now), mark: (now, 0), judged: nil
        )
    }

    /// `id` moves on to `phase` at `now`.
    package mutating func enter(_ phase: Phase, id: UInt64, at now: Instant) {
        guard var client = clients[id] else { return }
        client.phase = phase
        if phase == .serving && client.servingSince == nil { client.servingSince = now }
        clients[id] = client
    }

    /// What `id`'s counters say now. Counters only grow: older figures are ignored.
    package mutating func observe(_ id: UInt64, _ activity: Activity) {
        guard var client = clients[id] else { return }
        client.activity.bytes = max(client.activity.bytes, activity.bytes)
        client.activity.last = max(client.activity.last, activity.last)
        clients[id] = client
    }

    /// `id` gives its place back.
    package mutating func remove(_ id: UInt64) {
        clients[id] = nil
    }

    // MARK: Idle timeout

    /// The serving clients idle for the timeout at `now`, each removed with its verdict (in the
    /// order they went idle).
    package mutating func expireIdle(at now: Instant) -> [(id: UInt64, verdict: Verdict)] {
        guard let timeout = rules.idleTimeout else { return [] }
        let expired = clients.compactMap { id, client -> (UInt64, Instant)? in
            guard let since = client.idleSince, since.advanced(by: timeout) <= now else { return nil }
            return (id, since)
        }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        for (id, _) in expired { clients[id] = nil }
        return expired.map { ($0.0, .idle(timeout)) }
    }

    /// When to call ``expireIdle(at:)`` next, after a review at `previous`: the earliest idle
    /// deadline, but no sooner than a sixteenth of the timeout after `previous`, so that clients
    /// going idle one after another are closed in batches rather than with a review each. Nil:
    /// no deadline (no timeout, or no client serving) until something changes.
    package func nextReview(after previous: Instant?) -> Instant? {
        guard let timeout = rules.idleTimeout else { return nil }
        guard let earliest = clients.values.compactMap({ $0.idleSince }).min() else { return nil }
        let due = earliest.advanced(by: timeout)
        guard let previous else { return due }
        return max(due, previous.advanced(by: timeout / 16))
    }

    // MARK: Making room

    /// The client whose place goes to a newcomer at `now`, removed, with its verdict: of the
    /// clients judged below the minimum rate, the slowest (then the one idle longest, then the
    /// first admitted). Nil when none is below it (or the rule is off).
    package mutating func makeRoom(at now: Instant) -> (id: UInt64, verdict: Verdict)? {
        guard rules.minimumRate > 0 else { return nil }
        var slowest: (id: UInt64, rate: Double, last: Instant, verdict: Verdict)?
        for id in Array(clients.keys) {
            guard var client = clients[id] else { continue }
            roll(&client, at: now)
            clients[id] = client
            guard let (rate, bytes, span) = judgedRate(client, at: now), rate < Double(rules.minimumRate) else { continue }
            let candidate = (id: id, rate: rate, last: client.activity.last, verdict: Verdict.slow(bytes: bytes, span: span))
            if let current = slowest, (current.rate, current.last, current.id) <= (candidate.rate, candidate.last, candidate.id) { continue }
            slowest = candidate
        }
        guard let slowest else { return nil }
        clients[slowest.id] = nil
        return (slowest.id, slowest.verdict)
    }

    /// Closes the client's window once it is a rate window old: it becomes the one judged.
    private func roll(_ client: inout Client, at now: Instant) {
        guard client.mark.at.advanced(by: rules.rateWindow) <= now else { return }
        client.judged = client.mark
        client.mark = (now, client.activity.bytes)
    }

    /// Bytes a second since the judged window began; nil before there is one.
    private func judgedRate(_ client: Client, at now: Instant) -> (rate: Double, bytes: Int, span: Duration)? {
        guard let judged = client.judged else { return nil }
        let span = judged.at.duration(to: now)
        let seconds = span.secondsDouble
        guard seconds > 0 else { return nil }
        let bytes = max(0, client.activity.bytes - judged.bytes)
        return (Double(bytes) / seconds, bytes, span)
    }

    // MARK: Census

    /// What the holders are doing at `now`.
    package func census(at now: Instant) -> Census {
        var census = Census()
        for client in clients.values {
            switch client.phase {
            case .tlsHandshake:
                census.tlsHandshake += 1
                continue
            case .webSocketHandshake:
                census.webSocketHandshake += 1
                continue
            case .serving:
                break
            }
            if let since = client.idleSince, since.advanced(by: rules.rateWindow) <= now {
                census.idle += 1
            } else if rules.minimumRate > 0, let (rate, _, _) = judgedRate(client, at: now), rate < Double(rules.minimumRate) {
                census.slow += 1
            } else if now < client.admitted.advanced(by: rules.rateWindow) {
                census.young += 1
            } else {
                census.active += 1
            }
        }
        return census
    }
}
