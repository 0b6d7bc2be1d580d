import Clocks
import SocketEngine
import Synchronization

/// Virtual time for the engine: swift-clocks' `TestClock`, whose sleepers wake only when the
/// test advances it, plus a record of who is sleeping until when.
///
/// The engine takes it as its ``EngineClock`` (``engine``). A test waits for the code under test
/// to go to sleep (``nextDeadline()``: an event, not a duration), checks *when* it means to wake
/// (exactly: `#expect(deadline == .seconds(2))`), and moves time there (``advance(to:)``), which
/// returns once every sleeper due by then has woken. Times are offsets from the clock's zero.
///
/// One quirk of `TestClock` is smoothed over: a sleep until a moment that is already here
/// returns at once, as it does on a real clock (`TestClock` would wait for the next advance).
public final class VirtualClock: Clock, Sendable {
    public typealias Duration = Swift.Duration
    public typealias Instant = TestClock<Swift.Duration>.Instant

    private struct Sleeper: Sendable {
        let id: UInt64
        let deadline: Swift.Duration
    }

    private struct Sleepers: Sendable {
        var pending: [Sleeper] = []
        var nextID: UInt64 = 0
        /// Every deadline ever slept until, in order of the calls.
        var history: [Swift.Duration] = []
    }

    private let base = TestClock<Swift.Duration>()
    private let sleepers = AsyncMonitor(Sleepers())
    private static let zero = TestClock<Swift.Duration>.Instant()

    private let wrapped = Mutex<EngineClock?>(nil)

    public init() {}

    /// This clock as the engine's clock type: always the same value, so instants compare.
    public var engine: EngineClock {
        wrapped.withLock { wrapped in
            if let existing = wrapped { return existing }
            let made = AnyClock(self)
            wrapped = made
            return made
        }
    }

    public var now: Instant { base.now }
    public var minimumResolution: Swift.Duration { .zero }

    /// Virtual time since the clock's zero.
    public var elapsed: Swift.Duration { Self.zero.duration(to: base.now) }

    /// Every deadline slept until so far (offsets), in the order the sleeps began (a sleep until
    /// a moment already here returns at once and is not counted).
    public var sleepHistory: [Swift.Duration] { sleepers.value.history }

    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        let offset = Self.zero.duration(to: deadline)
        guard deadline > base.now else {
            try Task.checkCancellation()
            return
        }
        let id = sleepers.update { sleepers -> UInt64 in
            sleepers.nextID += 1
            sleepers.pending.append(Sleeper(id: sleepers.nextID, deadline: offset))
            sleepers.history.append(offset)
            return sleepers.nextID
        }
        defer { sleepers.update { $0.pending.removeAll { $0.id == id } } }
        try await base.sleep(until: deadline, tolerance: tolerance)
    }

    /// Waits until something sleeps on this clock and returns the earliest deadline pending.
    public func nextDeadline() async throws -> Swift.Duration {
        try await sleepers.wait { $0.pending.map(\.deadline).min() }
    }

    /// ``nextDeadline()`` for `task`, which must go on sleeping: if it ends instead, this fails
    /// at once and says when and with what (code that stops where it should have waited on —
    /// a session that gives up on its peer too early — fails the test then and there, not when
    /// the hang guard gives up on it). `task` itself is left alone.
    public func nextDeadline<T: Sendable>(unlessItEnds task: Task<T, Never>) async throws -> Swift.Duration {
        let ended = AsyncMonitor<T?>(nil)
        let watcher = Task {
            let value = await task.value
            ended.update { $0 = value }
        }
        defer { watcher.cancel() }
        return try await withThrowingTaskGroup(of: Swift.Duration.self) { group in
            group.addTask { try await self.nextDeadline() }
            group.addTask {
                let value = try await ended.wait { $0 }
                throw HarnessError("it ended at \(self.elapsed) instead of sleeping again: \(value)")
            }
            defer { group.cancelAll() }
            guard let deadline = try await group.next() else { throw HarnessError("no deadline and no end") }
            return deadline
        }
    }

    /// Waits until something sleeps until `deadline`.
    public func waitForSleep(until deadline: Swift.Duration) async throws {
        try await sleepers.wait { $0.pending.contains { $0.deadline == deadline } ? () : nil }
    }

    /// Waits until `begun` sleeps have begun in all and exactly `pending` of them are still
    /// pending, and returns their deadlines, earliest first: how a test tells a later sleep
    /// from an earlier one until the same moment that has ended.
    public func deadlines(begun: Int, pending: Int) async throws -> [Swift.Duration] {
        try await sleepers.wait { sleepers in
            sleepers.history.count >= begun && sleepers.pending.count == pending ? sleepers.pending.map(\.deadline).sorted() : nil
        }
    }

    /// Waits until `count` sleeps are pending at once and returns their deadlines, earliest first.
    public func deadlines(count: Int) async throws -> [Swift.Duration] {
        try await sleepers.wait { $0.pending.count >= count ? $0.pending.map(\.deadline).sorted() : nil }
    }

    /// Moves time to `offset` (never back) and returns once every sleep due by then has ended.
    public func advance(to offset: Swift.Duration) async {
        await base.advance(to: Self.zero.advanced(by: max(offset, elapsed)))
        // A sleeper that registered with the TestClock only after the advance looked (it was
        // about to, on another thread) is woken by advancing again by nothing.
        while sleepers.value.pending.contains(where: { $0.deadline <= offset }) {
            await base.advance(by: .zero)
        }
    }

    /// Moves time by `duration`.
    public func advance(by duration: Swift.Duration) async {
        await advance(to: elapsed + duration)
    }

    /// Awaits `task`, which must end at the present virtual moment: if, instead, it goes to
    /// sleep until a later one, this fails at once and says until when (a wrong delay fails the
    /// test then and there, not when the hang guard gives up on it).
    public func endsNow<T: Sendable>(_ task: Task<T, Never>) async throws -> T {
        let now = elapsed
        let sleepers = self.sleepers
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { await finished(task) }
            group.addTask {
                let later = try await sleepers.wait { $0.pending.map(\.deadline).filter { $0 > now }.min() }
                throw HarnessError("it did not end at \(now): it went on to sleep until \(later)")
            }
            defer { group.cancelAll() }
            guard let value = try await group.next() ?? nil else { throw HarnessError("the task ended without a value") }
            return value
        }
    }

    /// Waits for the next sleep and moves time to its deadline; returns that deadline.
    @discardableResult
    public func runToNextDeadline() async throws -> Swift.Duration {
        let deadline = try await nextDeadline()
        await advance(to: deadline)
        return deadline
    }
}

extension VirtualClock {
    /// Runs `work`, moving time to each deadline as soon as something sleeps until it (real I/O
    /// in between takes no virtual time only if nothing else sleeps meanwhile: drive by hand
    /// with ``nextDeadline()`` and ``advance(to:)`` when the order of I/O and time matters).
    public func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                while true { try await self.runToNextDeadline() }
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw HarnessError("the work under the virtual clock ended without a result")
        }
    }
}
