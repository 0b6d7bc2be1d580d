import Synchronization

/// Set from the signal queue, read by the capture thread after the loop ends.
final class InterruptFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
