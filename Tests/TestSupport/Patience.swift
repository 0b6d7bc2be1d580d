import SocketEngine
import Testing

extension Trait where Self == TimeLimitTrait {
    /// The one limit on a test's time: a guard against a hang, far beyond what any test takes
    /// even on a machine loaded with `stress-ng --cpu 2`, never a measure of speed. A test that
    /// waits waits for an event; only a hang meets this.
    public static var hangGuard: Self { .timeLimit(.minutes(10)) }
}

extension ConnectOptions {
    /// Options for a loopback connect in a test whose subject is not the connect timeout: no
    /// deadline short of the test's ``hangGuard``. The product's 10 s default is a bound on wall
    /// time, and on a loaded machine a connect can wait that long for the event loop.
    public static var patient: ConnectOptions {
        var options = ConnectOptions()
        options.connectTimeout = .seconds(3600)
        return options
    }
}

extension ListenOptions {
    /// Options for a loopback listener in a test whose subject is not the handshake timeout: no
    /// TLS or WebSocket handshake deadline short of the test's ``hangGuard``. The product's 10 s
    /// bounds wall time, and on a loaded machine a handshake can wait that long for its loop.
    public static var patient: ListenOptions {
        var options = ListenOptions()
        options.slotRules.handshakeTimeout = .seconds(3600)
        return options
    }
}

/// The value of a task the test started, awaited so that the test's own cancellation — what its
/// ``hangGuard`` does to a hung test — cancels the task too. A plain `await task.value` would
/// keep waiting for a task nobody cancels, and hold up the whole run.
public func finished<T: Sendable>(_ task: Task<T, Never>) async -> T {
    await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
}

/// ``finished(_:)`` for a task that can throw.
public func finished<T: Sendable>(_ task: Task<T, any Error>) async throws -> T {
    try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
}
