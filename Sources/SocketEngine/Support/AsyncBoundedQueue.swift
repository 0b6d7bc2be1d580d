/// A FIFO of at most `capacity` elements between producers and one consumer.
///
/// Producers suspend in ``push(_:)`` while it is full; the consumer's ``next()`` suspends
/// while it is empty and is cancellable. ``finish(throwing:)`` ends it: the consumer drains what is queued
/// and then sees `nil` or the error.
package final class AsyncBoundedQueue<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var head = 0
        var finished = false
        var failure: (any Error)?

        var count: Int { items.count - head }

        mutating func popFirst() -> Element? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head > 64 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            return item
        }
    }

    package let capacity: Int
    private let state = AsyncMonitor(State())

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Appends `element`, suspending while the queue is full.
    ///
    /// - Throws: `CancellationError` once the queue is finished or the task is cancelled.
    package func push(_ element: Element) async throws {
        let capacity = self.capacity
        try await state.wait { state -> Void? in
            if state.finished { throw CancellationError() }
            guard state.count < capacity else { return nil }
            state.items.append(element)
            return ()
        }
    }

    /// Appends `element` if there is room, without suspending; false when the queue is full or
    /// finished (the caller drops the element and counts it).
    package func tryPush(_ element: Element) -> Bool {
        let capacity = self.capacity
        return state.update { state in
            guard !state.finished, state.count < capacity else { return false }
            state.items.append(element)
            return true
        }
    }

    /// Ends the queue; the consumer gets what is queued, then `nil` (or `error`).
    package func finish(throwing error: (any Error)? = nil) {
        state.update { state in
            state.finished = true
            if state.failure == nil { state.failure = error }
        }
    }

    /// The next element, or `nil` once finished and drained.
    package func next() async throws -> Element? {
        try await state.wait { state -> Element?? in
            if let item = state.popFirst() { return .some(item) }
            if state.finished {
                if let failure = state.failure { throw failure }
                return .some(nil)
            }
            return nil
        }
    }
}
