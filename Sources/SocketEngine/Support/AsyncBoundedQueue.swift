import NIOCore
import Synchronization

/// A FIFO of at most `capacity` elements between producers and one consumer.
///
/// Producers suspend in ``push(_:)`` while it is full; the consumer's ``next()`` suspends
/// while it is empty and is cancellable. ``finish(throwing:)`` ends it: the consumer drains what is queued
/// and then sees `nil` or the error.
public final class AsyncBoundedQueue<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var head = 0
        var finished = false
        var failure: (any Error)?
        var consumer: (id: UInt64, continuation: CheckedContinuation<Element?, any Error>)?
        var producers: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0

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

    private enum NextOutcome {
        case item(Element)
        case end((any Error)?)
        case wait
    }

    public let capacity: Int
    private let state = Mutex(State())

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Appends `element`, suspending while the queue is full.
    ///
    /// - Throws: `CancellationError` once the queue is finished or the task is cancelled.
    public func push(_ element: Element) async throws {
        while true {
            let consumer: CheckedContinuation<Element?, any Error>?? = try state.withLock { state in
                if state.finished { throw CancellationError() }
                if let consumer = state.consumer {
                    state.consumer = nil
                    return .some(consumer.continuation)
                }
                if state.count < capacity {
                    state.items.append(element)
                    return .some(nil)
                }
                return .none
            }
            if let delivered = consumer {
                delivered?.resume(returning: element)
                return
            }
            let id = state.withLock { state -> UInt64 in
                state.nextID += 1
                return state.nextID
            }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.finished || state.count < capacity || Task.isCancelled { return true }
                        state.producers.append((id, continuation))
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                let waiting = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                    guard let index = state.producers.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.producers.remove(at: index).continuation
                }
                waiting?.resume(throwing: CancellationError())
            }
            try Task.checkCancellation()
        }
    }

    /// Ends the queue; the consumer gets what is queued, then `nil` (or `error`).
    public func finish(throwing error: (any Error)? = nil) {
        let (consumer, producers) = state.withLock { state in
            state.finished = true
            if state.failure == nil { state.failure = error }
            let producers = state.producers
            state.producers.removeAll()
            var consumer: CheckedContinuation<Element?, any Error>?
            if state.count == 0 {
                consumer = state.consumer?.continuation
                state.consumer = nil
            }
            return (consumer, producers)
        }
        producers.forEach { $0.continuation.resume() }
        if let consumer {
            if let error { consumer.resume(throwing: error) } else { consumer.resume(returning: nil) }
        }
    }

    /// The next element, or `nil` once finished and drained.
    public func next() async throws -> Element? {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                let (outcome, producer) = state.withLock { state -> (NextOutcome, CheckedContinuation<Void, any Error>?) in
                    if let item = state.popFirst() {
                        let producer = state.producers.isEmpty ? nil : state.producers.removeFirst().continuation
                        return (.item(item), producer)
                    }
                    if state.finished { return (.end(state.failure), nil) }
                    if Task.isCancelled { return (.end(CancellationError()), nil) }
                    state.consumer = (id, continuation)
                    return (.wait, nil)
                }
                switch outcome {
                case .item(let item):
                    producer?.resume()
                    continuation.resume(returning: item)
                case .end(let error):
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: nil) }
                case .wait:
                    break
                }
            }
        } onCancel: {
            let consumer = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
                guard let consumer = state.consumer, consumer.id == id else { return nil }
                state.consumer = nil
                return consumer.continuation
            }
            consumer?.resume(throwing: CancellationError())
        }
    }
}
