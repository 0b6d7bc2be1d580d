import Histogram
import Recording
import SocketEngine
import Synchronization

/// What every copy of a `--from-pcap` run adds to: the load statistics (``LoadStats``, as any
/// load test counts them), the verification results, the `--requests` budget and the open
/// connections. Shared by all copies; each change takes a lock (replayed traffic runs at the
/// recording's pace, not at millions of messages a second).
final class ReplayTally: Sendable {
    /// A mismatch's place, so the report names the same first one whatever the scheduling:
    /// the lowest stream, then message, copy and round.
    struct Place: Comparable, Sendable {
        var stream: Int
        var message: Int
        var copy: Int
        var round: Int

        static func < (a: Place, b: Place) -> Bool {
            (a.stream, a.message, a.copy, a.round) < (b.stream, b.message, b.copy, b.round)
        }
    }

    /// Everything counted, under ``state``'s lock.
    struct State: Sendable {
        var stats = LoadStats()
        var runs = 0
        var runsCompleted = 0
        var oneWay = 0
        var checked = 0
        var mismatched = 0
        var firstMismatch: (place: Place, mismatch: ReplayVerifier.Mismatch)?
    }

    let state = Mutex(State())
    private let tickets: Atomic<Int>
    private let limited: Bool
    private let connections = OpenConnections()
    let target: String

    /// `requests`: the most messages the run sends (nil: no limit).
    init(requests: Int?, target: String) {
        tickets = Atomic(requests ?? 0)
        limited = requests != nil
        self.target = target
    }

    /// Takes the right to send one more message; false when `--requests` are all sent.
    func takeTicket() -> Bool {
        guard limited else { return true }
        while true {
            let left = tickets.load(ordering: .relaxed)
            guard left > 0 else { return false }
            if tickets.compareExchange(expected: left, desired: left - 1, ordering: .relaxed).exchanged { return true }
        }
    }

    /// No `--requests` left.
    var ticketsExhausted: Bool { limited && tickets.load(ordering: .relaxed) <= 0 }

    /// Changes the counts under the lock; returns what `change` returns.
    func update<R>(_ change: (inout State) -> R) -> R {
        state.withLock { change(&$0) }
    }

    /// Counts an error by its kind, keeping the first message of each kind.
    func record(error: any Error) {
        update { $0.stats.record(error: ErrorKind.of(error), error, target: target) }
    }

    /// A copy's connection is up: counts it open, and the peak.
    func connectionOpened() { connections.opened() }

    /// A copy's connection is closed.
    func connectionClosed() { connections.closed() }
    /// Connections open now, and the most open at once.
    var open: Int { connections.current }
    var peak: Int { connections.peak }

    /// A sampled reply was compared: `mismatch` nil when it matched.
    func checked(_ mismatch: ReplayVerifier.Mismatch?, at place: Place) {
        update { state in
            state.checked += 1
            guard let mismatch else { return }
            state.mismatched += 1
            if state.firstMismatch.map({ place < $0.place }) ?? true { state.firstMismatch = (place, mismatch) }
        }
    }
}
