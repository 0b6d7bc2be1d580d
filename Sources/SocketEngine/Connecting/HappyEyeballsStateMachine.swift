/// The connection-racing part of Happy Eyeballs (RFC 8305 §5), as a pure state machine.
///
/// Addresses are tried in the order given (``interleave(_:)`` puts IPv6 first and alternates
/// families). The first attempt starts at once; each later one starts when the attempt delay
/// (300 ms) has passed since the previous start, or immediately when every running attempt has
/// failed. The first attempt to connect wins and every other running attempt is cancelled. When
/// all addresses have failed, the result lists every failure.
///
/// The machine holds no timers: it asks for one with ``Action/startTimer(generation:)`` and is
/// told about it with ``timerFired(generation:)``; a timer from an older generation is ignored.
/// The overall connect timeout is the driver's business.
package struct HappyEyeballsStateMachine<Address: Sendable>: Sendable {
    package enum Action: Sendable {
        /// Start a connection attempt to `addresses[index]`.
        case startAttempt(index: Int)
        /// Arm the attempt-delay timer; report it with ``timerFired(generation:)``.
        case startTimer(generation: Int)
        /// `index` connected: use it and cancel the attempts listed.
        case succeed(index: Int, cancel: [Int])
        /// Every attempt failed.
        case fail
    }

    package let addresses: [Address]
    private var nextIndex = 0
    private var running: Set<Int> = []
    private var timerGeneration = 0
    package private(set) var isFinished = false
    /// Indices of the attempts that were started, in start order.
    package private(set) var started: [Int] = []

    package init(addresses: [Address]) {
        self.addresses = addresses
    }

    /// Begins racing.
    package mutating func start() -> [Action] {
        guard !addresses.isEmpty else {
            isFinished = true
            return [.fail]
        }
        return startNext()
    }

    /// The attempt delay elapsed.
    package mutating func timerFired(generation: Int) -> [Action] {
        guard !isFinished, generation == timerGeneration, nextIndex < addresses.count else { return [] }
        return startNext()
    }

    /// An attempt failed.
    package mutating func attemptFailed(index: Int) -> [Action] {
        guard !isFinished, running.remove(index) != nil else { return [] }
        if running.isEmpty {
            if nextIndex < addresses.count { return startNext() }
            isFinished = true
            return [.fail]
        }
        return []
    }

    /// An attempt connected.
    package mutating func attemptSucceeded(index: Int) -> [Action] {
        guard !isFinished, running.contains(index) else { return [] }
        isFinished = true
        running.remove(index)
        let losers = running.sorted()
        running.removeAll()
        return [.succeed(index: index, cancel: losers)]
    }

    /// The driver gave up (overall timeout): everything running should be cancelled.
    package mutating func abandon() -> [Int] {
        isFinished = true
        let losers = running.sorted()
        running.removeAll()
        return losers
    }

    private mutating func startNext() -> [Action] {
        let index = nextIndex
        nextIndex += 1
        running.insert(index)
        started.append(index)
        var actions: [Action] = [.startAttempt(index: index)]
        if nextIndex < addresses.count {
            timerGeneration += 1
            actions.append(.startTimer(generation: timerGeneration))
        }
        return actions
    }
}

extension HappyEyeballsStateMachine {
    /// RFC 8305 §4 ordering: keep each family's order, start with the preferred family (IPv6
    /// when present), then alternate families.
    package static func interleave(_ addresses: [Address], isIPv6: (Address) -> Bool) -> [Address] {
        let v6 = addresses.filter(isIPv6)
        let v4 = addresses.filter { !isIPv6($0) }
        var ordered: [Address] = []
        ordered.reserveCapacity(addresses.count)
        var index = 0
        while index < max(v6.count, v4.count) {
            if index < v6.count { ordered.append(v6[index]) }
            if index < v4.count { ordered.append(v4[index]) }
            index += 1
        }
        return ordered
    }
}
