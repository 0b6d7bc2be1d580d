import Synchronization

/// The faults a running relay applies, numbered in the order they were added; the control
/// socket changes them while clients are connected. Every relayed chunk or message is checked
/// against the current list, so a change acts at once on connections already open.
public final class RelayFaultSet: Sendable {
    /// A fault and the number `list` shows and `remove` takes.
    public struct Entry: Sendable, Equatable {
        /// 1, 2, 3 …, never reused.
        public let id: Int
        /// The fault.
        public let fault: RelayFault
    }

    private struct State {
        var entries: [Entry] = []
        var nextID = 1
        var version = 0
    }

    private let state = AsyncMonitor(State())
    /// The version, readable without the lock for the check every chunk makes.
    private let currentVersion = Atomic<Int>(0)

    /// A set holding `faults`, numbered from 1.
    public init(_ faults: [RelayFault] = []) {
        for fault in faults { add(fault) }
    }

    /// The faults now, in the order they were added.
    public var entries: [Entry] { state.value.entries }

    /// The faults now, and the version number that changes whenever they do.
    var snapshot: (entries: [Entry], version: Int) {
        let value = state.value
        return (value.entries, value.version)
    }

    /// The version number now: cheap enough to check for every chunk.
    var version: Int { currentVersion.load(ordering: .acquiring) }

    private func changed(_ state: inout State) {
        state.version += 1
        currentVersion.store(state.version, ordering: .releasing)
    }

    /// Adds a fault; returns its number.
    @discardableResult
    public func add(_ fault: RelayFault) -> Int {
        state.update { state in
            let id = state.nextID
            state.nextID += 1
            state.entries.append(Entry(id: id, fault: fault))
            changed(&state)
            return id
        }
    }

    /// Removes fault `id`; false when there is no such fault.
    public func remove(_ id: Int) -> Bool {
        state.update { state in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return false }
            state.entries.remove(at: index)
            changed(&state)
            return true
        }
    }

    /// Removes every fault; returns how many there were.
    @discardableResult
    public func clear() -> Int {
        state.update { state in
            let count = state.entries.count
            state.entries.removeAll()
            changed(&state)
            return count
        }
    }

    /// Waits until the faults differ from `version`.
    func changed(since version: Int) async throws {
        try await state.wait { state -> Void? in state.version != version ? () : nil }
    }
}
