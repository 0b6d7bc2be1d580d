import Foundation

/// Runs `body` on a thread of its own and returns its result.
///
/// For tests that block (a capture loop) or burn CPU for seconds (every prefix of every packet,
/// a big payload): on the cooperative thread pool they would hold up the wake-ups of the async
/// tests running beside them. Record issues from the result, not inside `body` (it runs outside
/// the test's task).
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// ``onOwnThread(_:)`` for work that cannot fail.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
