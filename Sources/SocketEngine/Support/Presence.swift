import NIOCore
import Synchronization

/// A gate that is open while something is present; ``wait()`` returns once it is open.
final class Presence: Sendable {
    private struct State {
        var open = false
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    func set(_ open: Bool) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.open = open
            guard open else { return [] }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        woken.forEach { $0.resume() }
    }

    /// Waits until open; throws `CancellationError` if cancelled first.
    func wait() async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.open || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiting?.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }
}
