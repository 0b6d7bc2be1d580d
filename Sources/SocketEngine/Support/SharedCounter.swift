import NIOCore
import Synchronization

/// A count shared between event-loop callbacks and the rest of the engine: datagrams dropped,
/// peers refused, clients connected right now.
final class SharedCounter: Sendable {
    private let value = Atomic<Int>(0)

    var count: Int { value.load(ordering: .relaxed) }

    func add() { value.wrappingAdd(1, ordering: .relaxed) }

    func subtract() { value.wrappingSubtract(1, ordering: .relaxed) }

    /// Adds one only while the count is below `limit`; false when it is not.
    func tryIncrement(below limit: Int) -> Bool {
        var current = value.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = value.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }
}
