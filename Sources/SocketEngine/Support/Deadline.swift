import Clocks
import Synchronization

/// Runs `operation`, failing with `expired()` if it has not finished by `deadline` on `clock`.
///
/// The operation runs as a task of its own, so a call that cannot be cancelled (a blocking
/// `getaddrinfo`) is left to finish in the background instead of holding the caller; an
/// operation that can be cancelled (a ``Connection`` read) is cancelled when the deadline
/// passes. A deadline already past still gives an operation that completes at once its result.
package func withDeadline<T: Sendable>(
    _ deadline: EngineClock.Instant,
    on clock: EngineClock,
    expired: @escaping @Sendable () -> any Error,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = Mutex<CheckedContinuation<T, any Error>?>(nil)
    let finish = { @Sendable (result: Result<T, any Error>) in
        let continuation = outcome.withLock { slot in
            defer { slot = nil }
            return slot
        }
        continuation?.resume(with: result)
    }
    let tasks = Mutex<(work: Task<Void, Never>?, timer: Task<Void, Never>?)>((nil, nil))
    defer {
        let (work, timer) = tasks.withLock { $0 }
        work?.cancel()
        timer?.cancel()
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            outcome.withLock { $0 = continuation }
            // Cancelled before the continuation was there for the handler to resume.
            if Task.isCancelled {
                finish(.failure(CancellationError()))
                return
            }
            let work = Task {
                do {
                    finish(.success(try await operation()))
                } catch {
                    finish(.failure(error))
                }
            }
            let timer = Task {
                // Let an operation that is already done win over a deadline that is already past.
                await Task.yield()
                guard (try? await clock.sleep(until: deadline)) != nil else { return }
                finish(.failure(expired()))
            }
            tasks.withLock { $0 = (work, timer) }
        }
    } onCancel: {
        finish(.failure(CancellationError()))
    }
}

/// ``withDeadline(_:on:expired:_:)`` for a time from now.
package func withTimeout<T: Sendable>(
    _ timeout: Duration,
    on clock: EngineClock,
    expired: @escaping @Sendable () -> any Error,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withDeadline(clock.now.advanced(by: timeout), on: clock, expired: expired, operation)
}
