import Synchronization

/// The faults as one client sees them: which apply to it (each fault's probability is rolled
/// once per client, shared by both directions), and when it first met each fault (time-based
/// faults count from then: its connection, or the moment the fault was added).
final class ClientFaults: Sendable {
    let set: RelayFaultSet
    let random: RelayRandom
    private let clock: EngineClock
    private let connected: EngineClock.Instant
    private let state = Mutex<(rolls: [Int: Bool], seen: [Int: EngineClock.Instant])>(([:], [:]))

    init(set: RelayFaultSet, random: RelayRandom, clock: EngineClock) {
        self.set = set
        self.random = random
        self.clock = clock
        self.connected = clock.now
    }

    /// The faults of `entries` that act on this client in `direction` (any direction: nil).
    func applying(_ entries: [RelayFaultSet.Entry], to direction: RelayDirection?) -> [RelayFaultSet.Entry] {
        let now = clock.now
        let connected = self.connected
        let random = self.random
        return state.withLock { state in
            entries.filter { entry in
                if let direction, !entry.fault.directions.contains(direction) { return false }
                if state.seen[entry.id] == nil { state.seen[entry.id] = max(connected, now) }
                let probability = entry.fault.probability
                if probability >= 1 { return true }
                if probability <= 0 { return false }
                if let known = state.rolls[entry.id] { return known }
                let roll = random.nextUnit() < probability
                state.rolls[entry.id] = roll
                return roll
            }
        }
    }

    /// When this client first met fault `id` (its connection, if the fault was there already).
    func firstSeen(_ id: Int) -> EngineClock.Instant {
        state.withLock { $0.seen[id] } ?? connected
    }
}

/// The relay's source of chance (fault probabilities, drops, jitter): SplitMix64, seeded with
/// `--fault-seed` for a run that can be repeated exactly, or from the system otherwise.
final class RelayRandom: Sendable {
    private let state: Mutex<SplitMix64>

    init(seed: UInt64? = nil) {
        state = Mutex(SplitMix64(seed: seed ?? UInt64.random(in: .min ... .max)))
    }

    /// A number in 0 ..< 1.
    func nextUnit() -> Double {
        let value = state.withLock { $0.next() }
        return Double(value >> 11) / Double(1 << 53)
    }
}
