import Foundation

/// Runs `body` on a thread of its own and returns its result.
///
/// For tests that block (a capture loop) or burn CPU for seconds (every prefix of every packet):
/// on the cooperative thread pool they would hold up the timers and wake-ups of the async
/// tests running beside them. Record issues from the result, not inside `body` (it runs
/// outside the test's task).
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Runs `body` after `seconds` on a thread of its own: Dispatch's global queues and the
/// cooperative pool can be saturated by the rest of the test run, a dedicated thread cannot.
public func after(seconds: Double, _ body: @escaping @Sendable () -> Void) {
    Thread {
        Thread.sleep(forTimeInterval: seconds)
        body()
    }.start()
}
