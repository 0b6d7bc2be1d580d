import Synchronization

/// A value behind a lock that tasks can wait on: each waiter gives a step that looks at (and may
/// change) the value and either proceeds — returning a result — or asks to wait; every change
/// to the value runs the waiting steps again, in arrival order.
///
/// ```swift
/// let ready = AsyncMonitor(false)
/// // one task:
/// try await ready.wait { $0 ? () : nil }
/// // another:
/// ready.update { $0 = true }
/// ```
///
/// The one implementation of "suspend until another task makes something true" in the engine:
/// ``AsyncBoundedQueue`` (room to push, an element to take), ``Presence`` (a client is there),
/// replay's progress, and the tests' waits for a child's output. Steps run under the lock:
/// keep them short and never suspend in them. A waiting task that is cancelled stops waiting
/// with `CancellationError`; a step that throws ends that waiter's wait with the error.
///
/// Limits: none on the number of waiters; each change costs one run of every waiting step.
package final class AsyncMonitor<Value: Sendable>: Sendable {
    private struct Waiter: Sendable {
        let id: UInt64
        /// Runs under the lock; nil: keep waiting, else what resumes the waiter.
        let step: @Sendable (inout Value) -> (@Sendable () -> Void)?
        let cancel: @Sendable () -> Void
    }

    private struct State: Sendable {
        var value: Value
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    package init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    /// The value now (a copy, taken under the lock).
    package var value: Value {
        state.withLock { $0.value }
    }

    /// Changes the value and wakes every waiter whose step can now proceed.
    @discardableResult
    package func update<R>(_ change: (inout Value) throws -> R) rethrows -> R {
        let (result, woken) = try state.withLock { state -> (R, [@Sendable () -> Void]) in
            let result = try change(&state.value)
            return (result, Self.runWaiters(&state))
        }
        woken.forEach { $0() }
        return result
    }

    /// Runs `step` now and, while it returns nil, again after every change, until it returns a
    /// result (which this returns) or throws.
    package func wait<R: Sendable>(_ step: @escaping @Sendable (inout Value) throws -> R?) async throws -> R {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
                let immediate = state.withLock { state -> (@Sendable () -> Void)? in
                    if Task.isCancelled { return { continuation.resume(throwing: CancellationError()) } }
                    do {
                        if let result = try step(&state.value) {
                            let woken = Self.runWaiters(&state)
                            return {
                                continuation.resume(returning: result)
                                woken.forEach { $0() }
                            }
                        }
                    } catch {
                        return { continuation.resume(throwing: error) }
                    }
                    state.waiters.append(Waiter(
                        id: id,
                        step: { value in
                            do {
                                guard let result = try step(&value) else { return nil }
                                return { continuation.resume(returning: result) }
                            } catch {
                                return { continuation.resume(throwing: error) }
                            }
                        },
                        cancel: { continuation.resume(throwing: CancellationError()) }
                    ))
                    return nil
                }
                immediate?()
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.cancel()
        }
    }

    /// Runs the waiting steps until none proceeds (a step that proceeds may change the value
    /// for the others); returns the resumptions to perform outside the lock.
    private static func runWaiters(_ state: inout State) -> [@Sendable () -> Void] {
        var woken: [@Sendable () -> Void] = []
        var progressed = true
        while progressed && !state.waiters.isEmpty {
            progressed = false
            var index = 0
            while index < state.waiters.count {
                if let resume = state.waiters[index].step(&state.value) {
                    state.waiters.remove(at: index)
                    woken.append(resume)
                    progressed = true
                } else {
                    index += 1
                }
            }
        }
        return woken
    }
}
