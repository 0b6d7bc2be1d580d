import Synchronization

/// What an ``EpollRelayLoop`` tells about how its pairs moved their bytes: for `proxy -v`'s
/// closing line, and for tests that check the splice path was taken and everything it opened
/// was closed. Written by the loop's thread, read from any.
package final class EpollRelayStatistics: Sendable {
    private let splicedPairs = Atomic<Int>(0)
    private let copiedPairs = Atomic<Int>(0)
    private let openPipes = Atomic<Int>(0)
    private let lentPipes = Atomic<Int>(0)
    private let madePipes = Atomic<Int>(0)
    private let mostParkedBytes = Atomic<Int>(0)

    /// Pairs ended whose two directions moved every byte with `splice(2)` through their pipes.
    package var spliced: Int { splicedPairs.load(ordering: .relaxed) }
    /// Pairs ended that moved bytes with `read` and `send` in a direction at least (no pipe could
    /// be made, splicing was off, or a socket refused it).
    package var copied: Int { copiedPairs.load(ordering: .relaxed) }
    /// Pipes open now (two descriptors each), lent to a direction or kept spare by the loop.
    package var pipesOpen: Int { openPipes.load(ordering: .relaxed) }
    /// Pipes lent to a direction now: one per direction whose bytes wait for its sink.
    package var pipesLent: Int { lentPipes.load(ordering: .relaxed) }
    /// Pipes made since the loop began.
    package var pipesMade: Int { madePipes.load(ordering: .relaxed) }
    /// The most bytes one direction ever left waiting for a sink that took no more (in its pipe or
    /// its read buffer): what the relay holds per direction under back-pressure.
    package var mostParked: Int { mostParkedBytes.load(ordering: .relaxed) }

    func ended(spliced: Bool) {
        if spliced {
            splicedPairs.wrappingAdd(1, ordering: .relaxed)
        } else {
            copiedPairs.wrappingAdd(1, ordering: .relaxed)
        }
    }

    func pipeOpened() {
        openPipes.wrappingAdd(1, ordering: .relaxed)
        madePipes.wrappingAdd(1, ordering: .relaxed)
    }

    func pipeLent() { lentPipes.wrappingAdd(1, ordering: .relaxed) }

    func pipeReturned() { lentPipes.wrappingSubtract(1, ordering: .relaxed) }

    func pipeClosed() { openPipes.wrappingSubtract(1, ordering: .relaxed) }

    func parked(_ bytes: Int) {
        var seen = mostParkedBytes.load(ordering: .relaxed)
        while bytes > seen {
            let (exchanged, original) = mostParkedBytes.compareExchange(expected: seen, desired: bytes, ordering: .relaxed)
            if exchanged { return }
            seen = original
        }
    }
}
