import NIOCore
import Synchronization

/// The places of one stream listener: who holds them, the limit (``ListenOptions/maximumClients``)
/// and the ``SlotRules`` applied to the holders, over the ``SlotPolicy``.
///
/// A client takes a place when admitted, on the listening channel's event loop
/// (``admit(_:phase:)``), before its channel is set up, and gives it back when it is gone
/// (``ClientSlot/release()``). When every place is taken, the slowest client below the minimum
/// rate is closed to make room for the newcomer; with none, the newcomer is refused with a
/// census of what holds the places. With an idle timeout, a keeper task sleeping on the
/// listener's clock closes the clients idle that long (``keep()``).
///
/// Closing a client that was never handed to the service (its handshake not done) counts as a
/// refusal, with the reason; a client handed out ends with the reason as its error.
final class ClientSlots: Sendable {
    typealias Phase = SlotPolicy<EngineClock.Instant>.Phase
    typealias Verdict = SlotPolicy<EngineClock.Instant>.Verdict

    let rules: SlotRules
    private let limit: Int?
    private let clock: EngineClock
    private let refusals: Refusals
    private let state: Mutex<State>
    /// Bumped when the keeper must look again before its deadline (or has none).
    private let changes = AsyncMonitor<UInt64>(0)

    private struct Holder {
        let slot: ClientSlot
        let peer: SocketAddress?
        let channel: ObjectIdentifier?
        var statistics: ConnectionStatistics?
        var serving: Bool
    }

    private struct State {
        var policy: SlotPolicy<EngineClock.Instant>
        var holders: [UInt64: Holder] = [:]
        /// The admitted channels whose place their close gives back, for their set-up and handover.
        var channels: [ObjectIdentifier: UInt64] = [:]
        var nextID: UInt64 = 0
        /// The listener has closed: the keeper ends once the last client has gone.
        var closed = false
        /// When the keeper means to look next (nil: it waits for a change).
        var keeperDeadline: EngineClock.Instant?
        /// The last refusal for want of room, and when: a flood of newcomers to a full server
        /// is refused with it for a thousandth of a rate window, rather than each paying for a
        /// look at every client.
        var lastRefusal: (at: EngineClock.Instant, reason: String)?
    }

    /// How an arrival was decided.
    enum Admission {
        case admitted(ClientSlot)
        case refused(String)
    }

    init(limit: Int?, rules: SlotRules, clock: EngineClock, refusals: Refusals) {
        self.limit = limit
        self.rules = rules
        self.clock = clock
        self.refusals = refusals
        state = Mutex(State(policy: SlotPolicy(rules: rules)))
    }

    /// Whether the rules need ``keep()`` running.
    var needsKeeper: Bool { rules.idleTimeout != nil }

    /// How many places are held.
    var count: Int { state.withLock { $0.policy.count } }

    // MARK: Arrivals

    /// Gives `channel` a place, in `phase`, making room if needed; the place is given back when
    /// the channel closes (unless kept). Refused: why, with what holds the places.
    func admit(_ channel: any Channel, phase: Phase) -> Admission {
        let now = clock.now
        let key = ObjectIdentifier(channel)
        let decision = state.withLock { state -> (Admission, (ClientSlot, SocketAddress?, Bool, Verdict)?) in
            var shed: (ClientSlot, SocketAddress?, Bool, Verdict)?
            if let limit, state.policy.count >= limit {
                if let last = state.lastRefusal, now < last.at.advanced(by: rules.rateWindow / 1000) {
                    return (.refused(last.reason), nil)
                }
                Self.observeAll(&state)
                guard let (victim, verdict) = state.policy.makeRoom(at: now), let holder = Self.forget(victim, in: &state) else {
                    let census = state.policy.census(at: now).text(rules: rules)
                    let reason = "max clients reached (\(limit)): \(census)"
                    state.lastRefusal = (now, reason)
                    return (.refused(reason), nil)
                }
                shed = (holder.slot, holder.peer, holder.serving, verdict)
            }
            state.nextID += 1
            let slot = ClientSlot(id: state.nextID, slots: self)
            state.policy.admit(slot.id, phase: phase, at: now)
            state.holders[slot.id] = Holder(slot: slot, peer: channel.remoteAddress, channel: key, statistics: nil, serving: phase == .serving)
            state.channels[key] = slot.id
            if phase == .serving { wakeKeeperIfWaiting(&state) }
            return (.admitted(slot), shed)
        }
        if let (slot, peer, serving, verdict) = decision.1 { close(slot, peer: peer, serving: serving, verdict) }
        if case .admitted(let slot) = decision.0 {
            slot.closeWith { error in Self.close(channel, with: error) }
            channel.closeFuture.whenComplete { _ in
                if !slot.isKept { slot.release() }
            }
        }
        return decision.0
    }

    /// The place `channel` was admitted to (nil: none, or handed over).
    func slot(for channel: any Channel) -> ClientSlot? {
        state.withLock { state in
            state.channels[ObjectIdentifier(channel)].flatMap { state.holders[$0]?.slot }
        }
    }

    /// Closes an event-loop client: its reads end with `error`.
    private static func close(_ channel: any Channel, with error: SocketEngineError) {
        channel.eventLoop.execute {
            if let handler = try? channel.pipeline.syncOperations.handler(type: ConnectionHandler.self) {
                handler.record(failure: error)
            }
            channel.close(promise: nil)
        }
    }

    // MARK: From the slots

    func enter(_ phase: Phase, id: UInt64) {
        let now = clock.now
        state.withLock { state in
            guard state.holders[id] != nil else { return }
            state.policy.enter(phase, id: id, at: now)
            state.holders[id]?.serving = phase == .serving
            if phase == .serving { wakeKeeperIfWaiting(&state) }
        }
    }

    func watch(_ statistics: ConnectionStatistics, id: UInt64) {
        state.withLock { $0.holders[id]?.statistics = statistics }
    }

    /// A kept place: no longer found by its channel, which has been handed over.
    func handedOver(_ slot: ClientSlot) {
        state.withLock { state in
            if let key = state.holders[slot.id]?.channel { state.channels[key] = nil }
        }
    }

    func release(_ id: UInt64) {
        state.withLock { state in
            _ = Self.forget(id, in: &state)
            if state.closed && state.holders.isEmpty { bumpKeeper() }
        }
    }

    private static func forget(_ id: UInt64, in state: inout State) -> Holder? {
        state.policy.remove(id)
        guard let holder = state.holders.removeValue(forKey: id) else { return nil }
        if let key = holder.channel, state.channels[key] == id { state.channels[key] = nil }
        return holder
    }

    private static func observeAll(_ state: inout State) {
        for (id, holder) in state.holders {
            guard let statistics = holder.statistics else { continue }
            state.policy.observe(id, .init(bytes: statistics.bytesReceived &+ statistics.bytesSent, last: statistics.lastActivity))
        }
    }

    /// Closes a client the rules let go; a client never handed out counts as refused.
    private func close(_ slot: ClientSlot, peer: SocketAddress?, serving: Bool, _ verdict: Verdict) {
        if !serving { refusals.refuse(peer, because: SettingText(verdict.text(rules: rules))) }
        slot.close(because: verdict.error(peer: peer?.peerDescription ?? "client", rules: rules))
    }

    // MARK: The keeper

    /// The listener has closed; the keeper ends once every client has gone.
    func finish() {
        state.withLock { state in
            state.closed = true
            bumpKeeper()
        }
    }

    /// Closes clients idle for the timeout until the listener has closed and every client has
    /// gone; sleeps on the listener's clock until the next idle deadline in between (see
    /// ``SlotPolicy/nextReview(after:)``).
    func keep() async {
        guard let timeout = rules.idleTimeout else { return }
        let (changes, clock) = (self.changes, self.clock)
        while true {
            let now = clock.now
            let (expired, deadline, done, seen) = state.withLock { state in
                Self.observeAll(&state)
                let expired = state.policy.expireIdle(at: now).compactMap { id, verdict in
                    Self.forget(id, in: &state).map { ($0, verdict) }
                }
                let deadline = state.policy.nextReview(after: now)
                state.keeperDeadline = deadline
                return (expired, deadline, state.closed && state.holders.isEmpty, changes.value)
            }
            for (holder, verdict) in expired { close(holder.slot, peer: holder.peer, serving: holder.serving, verdict) }
            if done { return }
            let woken = await withTaskGroup(of: Bool.self) { group in
                group.addTask { (try? await changes.wait { $0 != seen ? () : nil }) != nil }
                if let deadline { group.addTask { (try? await clock.sleep(until: deadline, tolerance: timeout / 64)) != nil } }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            if !woken && Task.isCancelled { return }
        }
    }

    /// A client started serving: its idle deadline can be the first only if the keeper has none.
    private func wakeKeeperIfWaiting(_ state: inout State) {
        guard needsKeeper, state.keeperDeadline == nil else { return }
        bumpKeeper()
    }

    private func bumpKeeper() {
        guard needsKeeper else { return }
        changes.update { $0 &+= 1 }
    }
}
