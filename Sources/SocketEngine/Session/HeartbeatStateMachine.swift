/// Keeps a connection alive and notices a dead peer (`--heartbeat`).
///
/// Every `interval` it asks for the heartbeat payload to be sent. Anything received from the
/// peer counts as a sign of life; when nothing has arrived for `allowedMisses` intervals, the
/// peer is declared dead. It is generic over the clock's instant so tests drive it with a mock
/// clock.
package struct HeartbeatStateMachine<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration, Instant: Sendable {
    package enum Action: Sendable, Equatable {
        /// Send the heartbeat payload now.
        case sendHeartbeat
        /// Nothing came back for this long: the peer is dead.
        case declareDead(silentFor: Duration)
        /// Nothing to do before this instant; call ``tick(now:)`` again then.
        case wait(until: Instant)
    }

    package let interval: Duration
    package let allowedMisses: Int
    private var lastReceived: Instant
    private var nextSend: Instant
    package private(set) var isDead = false

    package init(interval: Duration, allowedMisses: Int, now: Instant) {
        self.interval = interval
        self.allowedMisses = max(1, allowedMisses)
        self.lastReceived = now
        self.nextSend = now.advanced(by: interval)
    }

    /// Something arrived from the peer.
    package mutating func received(at instant: Instant) {
        if instant > lastReceived { lastReceived = instant }
    }

    /// What to do at `now`.
    package mutating func tick(now: Instant) -> [Action] {
        guard !isDead else { return [] }
        let deadAt = lastReceived.advanced(by: interval * allowedMisses)
        if now >= deadAt {
            isDead = true
            return [.declareDead(silentFor: lastReceived.duration(to: now))]
        }
        var actions: [Action] = []
        if now >= nextSend {
            actions.append(.sendHeartbeat)
            while nextSend <= now { nextSend = nextSend.advanced(by: interval) }
        }
        actions.append(.wait(until: min(nextSend, deadAt)))
        return actions
    }
}
