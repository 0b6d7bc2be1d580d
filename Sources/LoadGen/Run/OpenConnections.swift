import Synchronization

/// Connections open now and the most that were open at once, counted from any thread.
final class OpenConnections: Sendable {
    private let now = Atomic<Int>(0)
    private let most = Atomic<Int>(0)

    /// One more is open (and the peak rises with it).
    func opened() {
        let open = now.wrappingAdd(1, ordering: .relaxed).newValue
        var peak = most.load(ordering: .relaxed)
        while open > peak {
            let (exchanged, current) = most.compareExchange(expected: peak, desired: open, ordering: .relaxed)
            if exchanged { break }
            peak = current
        }
    }

    func closed() { now.wrappingSubtract(1, ordering: .relaxed) }

    var current: Int { now.load(ordering: .relaxed) }
    var peak: Int { most.load(ordering: .relaxed) }
}
