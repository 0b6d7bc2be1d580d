import Synchronization

/// One client's place under ``ListenOptions/maximumClients``, from its accept until it has
/// really gone (see ``ClientSlots``).
///
/// Its channel's close gives it back, unless the place was ``keep()``-ed: the relay takes a
/// client's socket out of the event loop (closing the channel) and holds the place until the
/// client leaves the epoll relay loop. Whoever carries the client says how to close it
/// (``closeWith(_:)``); a close asked for before that is remembered and done then.
final class ClientSlot: Sendable {
    let id: UInt64
    private let slots: ClientSlots
    private let state = Mutex(State())

    private struct State {
        var closer: (@Sendable (SocketEngineError) -> Void)?
        var closedWith: SocketEngineError?
        var kept = false
        var released = false
    }

    init(id: UInt64, slots: ClientSlots) {
        self.id = id
        self.slots = slots
    }

    /// The client moves on (its handshake done): see ``SlotPolicy/Phase``.
    func enter(_ phase: SlotPolicy<EngineClock.Instant>.Phase) {
        slots.enter(phase, id: id)
    }

    /// Its activity is what `statistics` count (bytes either way, the last of them).
    func watch(_ statistics: ConnectionStatistics) {
        slots.watch(statistics, id: id)
    }

    /// Its channel's close no longer gives the place back: ``release()`` will.
    func keep() {
        state.withLock { $0.kept = true }
    }

    /// Whether ``keep()`` was called.
    var isKept: Bool { state.withLock { $0.kept } }

    /// How to close the client (with the reason); replaces the one before. Runs at once when a
    /// close was asked for already.
    func closeWith(_ closer: @escaping @Sendable (SocketEngineError) -> Void) {
        let pending = state.withLock { state -> SocketEngineError? in
            state.closer = closer
            return state.closedWith
        }
        if let pending { closer(pending) }
    }

    /// Closes the client for `reason` (the place is already someone else's, or free).
    func close(because reason: SocketEngineError) {
        let closer = state.withLock { state -> (@Sendable (SocketEngineError) -> Void)? in
            guard state.closedWith == nil else { return nil }
            state.closedWith = reason
            return state.closer
        }
        closer?(reason)
    }

    /// Gives the place back; only the first call counts.
    func release() {
        let first = state.withLock { state -> Bool in
            defer { state.released = true }
            return !state.released
        }
        if first { slots.release(id) }
    }
}
