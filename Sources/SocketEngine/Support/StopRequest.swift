import Synchronization

/// A request to end a run early and in order — what an engine's `stop()` makes (SIGINT, SIGTERM)
/// — that every part of the run can see: looked at (``isRequested``), waited for (``wait()``),
/// raced with a wait on a clock (``sleep(until:on:)``), heard (``onStop(_:)``), or turned into
/// the cancellation of the task doing the work (``cancelling(_:)``).
///
/// ```swift
/// let stop = StopRequest()
/// // the run:
/// if try await stop.sleep(until: due, on: clock) { return report(interrupted: true) }
/// // a signal handler:
/// stop.request()
/// ```
///
/// A request is made once and never taken back; requesting again does nothing. What the run
/// does then is its own: stop scheduling, let what is in flight finish (a drain) or cut it,
/// and return what it has, marked as interrupted.
package final class StopRequest: Sendable {
    private let requested = AsyncMonitor(false)
    private let handlers = Mutex(Handlers())

    private struct Handlers {
        var next = 0
        var table: [Int: @Sendable () -> Void] = [:]
        var fired = false
    }

    package init() {}

    /// True once ``request()`` was called.
    package var isRequested: Bool { requested.value }

    /// Asks the run to stop: runs every ``onStop(_:)`` handler once and wakes every waiter.
    package func request() {
        let toRun = handlers.withLock { handlers -> [@Sendable () -> Void] in
            if handlers.fired { return [] }
            handlers.fired = true
            defer { handlers.table = [:] }
            return handlers.table.sorted { $0.key < $1.key }.map(\.value)
        }
        requested.update { $0 = true }
        for handler in toRun { handler() }
    }

    /// Returns once a stop is requested; throws `CancellationError` if cancelled first.
    package func wait() async throws {
        try await requested.wait { $0 ? () : nil }
    }

    /// Runs `handler` when a stop is requested — at once if it already was (then nil is
    /// returned). The token removes it (``remove(_:)``) when it is no longer needed.
    @discardableResult
    package func onStop(_ handler: @escaping @Sendable () -> Void) -> Int? {
        let token = handlers.withLock { handlers -> Int? in
            if handlers.fired { return nil }
            handlers.next += 1
            handlers.table[handlers.next] = handler
            return handlers.next
        }
        if token == nil { handler() }
        return token
    }

    /// Forgets a handler added by ``onStop(_:)``.
    package func remove(_ token: Int?) {
        guard let token else { return }
        handlers.withLock { _ = $0.table.removeValue(forKey: token) }
    }

    /// Waits until `deadline` on `clock`, or less if a stop is requested: returns true when the
    /// wait ended for a stop (at once if one was already requested). Throws `CancellationError`.
    package func sleep(until deadline: EngineClock.Instant, on clock: EngineClock) async throws -> Bool {
        if isRequested { return true }
        do {
            try await withDeadline(deadline, on: clock, expired: { DeadlineReached() }) { try await self.wait() }
            return true
        } catch is DeadlineReached {
            return isRequested
        }
    }

    private struct DeadlineReached: Error {}

    /// Runs `operation` in a task of its own that a stop cancels, and returns its value: for
    /// work that, cancelled, ends in order and returns what it has. Cancelling the caller
    /// cancels the operation too.
    package func cancelling<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
        let task = Task { await operation() }
        let token = onStop { task.cancel() }
        defer { remove(token) }
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// The value of `task`, or nil as soon as a stop is requested: the task is then cancelled and
    /// left to finish on its own, and its late value (a connection that opened after all) goes
    /// to `abandoned`. For work that cannot be cancelled part-way (a connect).
    package func value<T: Sendable>(
        of task: Task<T, any Error>, abandoned: @escaping @Sendable (T) async -> Void = { _ in }
    ) async throws -> T? {
        let slot = Mutex<CheckedContinuation<T?, any Error>?>(nil)
        let resume = { @Sendable (result: Result<T?, any Error>) -> Bool in
            guard let continuation = slot.withLock({ stored in defer { stored = nil }; return stored }) else { return false }
            continuation.resume(with: result)
            return true
        }
        var token: Int?
        defer { remove(token) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T?, any Error>) in
                slot.withLock { $0 = continuation }
                Task {
                    let result = await task.result
                    if !resume(result.map { Optional($0) }), case .success(let late) = result { await abandoned(late) }
                }
                token = onStop {
                    if resume(.success(nil)) { task.cancel() }
                }
            }
        } onCancel: {
            task.cancel()
        }
    }
}
