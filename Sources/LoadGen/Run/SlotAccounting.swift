import SocketEngine

/// The counting of one slot's connection life, the same on an event loop (``LoadShard``) and
/// on a thread of plain system calls (``LoadThread``): every attempt, every connection opened, failed or
/// lost, and the back-off before the next attempt (``ReconnectPolicy/loadTest``).
///
/// The figures go into the caller's ``LoadStats`` (a shard's, or a thread's behind its lock);
/// the open-connection count into the run's ``RunContext``.
struct SlotAccounting: Sendable {
    private var reconnect = ReconnectStateMachine(policy: .loadTest)
    /// The slot's first attempt has completed, either way.
    private(set) var attempted = false

    /// An attempt begins.
    func attempting(_ stats: inout LoadStats) {
        stats.counters.connectAttempts += 1
    }

    /// The attempt opened a connection: the back-off starts again. Returns true for the slot's
    /// first completed attempt.
    mutating func opened(_ stats: inout LoadStats, context: RunContext) -> Bool {
        reconnect.connected()
        stats.counters.connectsSucceeded += 1
        context.connectionOpened()
        return markAttempted()
    }

    /// The attempt failed with `error`; returns how long to wait before the next one and
    /// whether this was the slot's first completed attempt.
    mutating func failed(_ error: any Error, _ stats: inout LoadStats, target: String) -> (backOff: Duration, first: Bool) {
        stats.counters.connectsFailed += 1
        stats.record(error: ErrorKind.of(error), error, target: target)
        return (nextDelay(), markAttempted())
    }

    /// A live connection ended; `lost`: before the run did (counted). Returns the wait before
    /// reopening it, nil when it is not reopened.
    mutating func closed(lost: Bool, _ stats: inout LoadStats, context: RunContext) -> Duration? {
        context.connectionClosed()
        guard lost && !context.isFinished else { return nil }
        stats.counters.connectionsLost += 1
        return nextDelay()
    }

    /// The server closed a live connection after answering (HTTP `Connection: close`): not a
    /// loss, no back-off; it is opened again at once.
    func closedByServer(context: RunContext) {
        context.connectionClosed()
    }

    private mutating func nextDelay() -> Duration {
        switch reconnect.disconnected() {
        case .reconnect(let delay, _, _): delay
        case .giveUp: ReconnectPolicy.loadTest.maximumDelay ?? .seconds(2)
        }
    }

    private mutating func markAttempted() -> Bool {
        defer { attempted = true }
        return !attempted
    }
}
