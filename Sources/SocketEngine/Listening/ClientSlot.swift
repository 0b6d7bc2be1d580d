import Synchronization

/// A client's place under ``ListenOptions/maximumClients``, kept after its channel has closed:
/// the relay takes a client's socket out of the event loop (closing the channel, which gives
/// the channel's own place back) and holds this one until the client really leaves.
final class ListenerPlace: Sendable {
    private let counter: SharedCounter
    private let released = Atomic<Bool>(false)

    init(counter: SharedCounter) {
        self.counter = counter
        counter.add()
    }

    /// Gives the place back; only the first call counts.
    func release() {
        if !released.exchange(true, ordering: .relaxed) { counter.subtract() }
    }
}
