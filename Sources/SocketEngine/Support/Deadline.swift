import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `operation`, failing with `.connectTimeout` if it has not finished after `timeout`.
///
/// The operation runs as a task of its own, so a call that cannot be cancelled (a blocking
/// `getaddrinfo`) is left to finish in the background instead of holding the caller.
func withDeadline<T: Sendable>(_ timeout: Duration, what: String, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = Mutex<CheckedContinuation<T, any Error>?>(nil)
    let finish = { @Sendable (result: Result<T, any Error>) in
        let continuation = outcome.withLock { slot in
            defer { slot = nil }
            return slot
        }
        continuation?.resume(with: result)
    }
    var work: Task<Void, Never>?
    var timer: Task<Void, Never>?
    defer {
        work?.cancel()
        timer?.cancel()
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            outcome.withLock { $0 = continuation }
            work = Task {
                do {
                    finish(.success(try await operation()))
                } catch {
                    finish(.failure(error))
                }
            }
            timer = Task {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                finish(.failure(SocketEngineError(.connectTimeout, "\(what) timed out after \(timeout.formatted)")))
            }
        }
    } onCancel: {
        finish(.failure(CancellationError()))
    }
}
