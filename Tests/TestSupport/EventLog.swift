import SocketEngine

/// Events a callback reported (a session's, a listener's, a server's), kept in order, that a test
/// waits on: ``next(where:)`` returns when a matching event has arrived, never after a set time.
public final class EventLog<Event: Sendable>: Sendable {
    private struct State: Sendable {
        var events: [Event] = []
        /// Events already handed out by ``next(where:)``.
        var consumed = 0
    }

    private let state = AsyncMonitor(State())

    public init() {}

    /// Appends an event (give this to the code under test as its callback).
    public func record(_ event: Event) {
        state.update { $0.events.append(event) }
    }

    /// Everything so far.
    public var events: [Event] { state.value.events }

    /// Waits for the first event after those already taken that `matches`; events before it are
    /// passed over and not offered again.
    @discardableResult
    public func next<T: Sendable>(where matches: @escaping @Sendable (Event) -> T?) async throws -> T {
        try await state.wait { state -> T? in
            while state.consumed < state.events.count {
                let event = state.events[state.consumed]
                state.consumed += 1
                if let value = matches(event) { return value }
            }
            return nil
        }
    }

    /// Waits until `count` events match in all.
    public func wait(forCount count: Int, where matches: @escaping @Sendable (Event) -> Bool) async throws {
        try await state.wait { $0.events.filter(matches).count >= count ? () : nil }
    }
}
