import NIOCore
import Glibc
import NIOEmbedded
import Synchronization
import TestSupport
import Testing
@testable import SocketEngine

/// Happy Eyeballs in the event loop's own time: the race runs on an `NIOAsyncTestingEventLoop`,
/// whose clock moves only when the test says, and "connecting" is a promise the test keeps or
/// breaks. So every instant is exact: the IPv4 attempt starts at 300 ms, not at 299 ms.
@Suite(.hangGuard)
struct HappyEyeballsTimingTests {
    /// One race with attempts the test resolves.
    final class Race: Sendable {
        let loop = NIOAsyncTestingEventLoop()
        /// Address, when it started (ms after the race began), and its pending connect.
        let attempts = Mutex<[(address: String, at: Int64, promise: EventLoopPromise<any Channel>)]>([])
        /// Addresses whose connect fails at once, as a missing source address makes it.
        let failingAtOnce: Set<String>
        let outcome = Mutex<Result<ConnectionRace.Result, any Error>?>(nil)

        init(_ addresses: [String], attemptDelay: TimeAmount = ConnectOptions().attemptDelay.timeAmount, budget: TimeAmount, failingAtOnce: Set<String> = []) async throws {
            self.failingAtOnce = failingAtOnce
            let socketAddresses = try addresses.map { try SocketAddress(ipAddress: $0, port: 7000) }
            let loop = self.loop
            try await loop.executeInContext {
                let race = ConnectionRace(
                    loop: loop, addresses: socketAddresses, attemptDelay: attemptDelay, target: "he.test:7000", configuredTimeout: budget
                ) { [self] address in
                    let promise = loop.makePromise(of: (any Channel).self)
                    let name = address.ipAddress ?? "?"
                    attempts.withLock { $0.append((name, (loop.now - .uptimeNanoseconds(0)).nanoseconds / 1_000_000, promise)) }
                    if failingAtOnce.contains(name) {
                        promise.fail(SocketEngineError(.bindFailed, "no IPv6 source address to bind"))
                    }
                    return promise.futureResult
                }
                race.run(timeout: budget).whenComplete { [self] result in outcome.withLock { $0 = result } }
            }
        }

        /// The attempts started so far: address and start time in ms.
        var started: [String] { attempts.withLock { $0.map { "\($0.address)@\($0.at)ms" } } }

        func advance(toMilliseconds milliseconds: Int64) async {
            await loop.advanceTime(to: .uptimeNanoseconds(UInt64(milliseconds) * 1_000_000))
        }

        /// Attempt `index` connects (a channel of its own on the race's loop).
        func connect(_ index: Int) async throws {
            let channel = NIOAsyncTestingChannel(loop: loop)
            let promise = try attempt(index)
            try await loop.executeInContext {
                // Completed outside the lock: the race may start another attempt right away.
                promise.succeed(channel)
            }
        }

        func refuse(_ index: Int) async throws {
            let promise = try attempt(index)
            try await loop.executeInContext {
                promise.fail(IOError(errnoCode: ECONNREFUSED, reason: "connect"))
            }
        }

        /// Attempt `index`'s pending connect; an attempt that never started fails the test
        /// (rather than trapping on the index and taking every other test down with it).
        private func attempt(_ index: Int) throws -> EventLoopPromise<any Channel> {
            let found = attempts.withLock { attempts in attempts.indices.contains(index) ? attempts[index].promise : nil }
            guard let found else { throw HarnessError("attempt \(index) never started; started: \(started)") }
            return found
        }
    }

    @Test func theSecondFamilyStartsThreeHundredMillisecondsAfterTheFirst() async throws {
        let race = try await Race(["::1", "127.0.0.1"], budget: .seconds(10))
        #expect(race.started == ["::1@0ms"])
        await race.advance(toMilliseconds: 299)
        #expect(race.started == ["::1@0ms"], "nothing starts before the attempt delay")
        await race.advance(toMilliseconds: 300)
        try #require(race.started == ["::1@0ms", "127.0.0.1@300ms"])
        await race.advance(toMilliseconds: 420)
        try await race.connect(1)
        let result = try #require(try race.outcome.withLock { $0 }?.get())
        #expect(result.index == 1)
        #expect(result.elapsed == .milliseconds(420))
        #expect(result.attempts.map(\.startedAfter) == [.zero, .milliseconds(300)])
        #expect(result.attempts.map(\.outcome) == [.abandoned, .connected])
    }

    @Test func aRefusalStartsTheNextAttemptAtOnce() async throws {
        let race = try await Race(["::1", "127.0.0.1", "::2"], budget: .seconds(10))
        await race.advance(toMilliseconds: 50)
        try #require(race.started.count == 1, "the first attempt starts at once")
        try await race.refuse(0)
        #expect(race.started == ["::1@0ms", "127.0.0.1@50ms"], "the IPv4 attempt did not wait for the delay")
        // The delay now counts from the attempt that started at 50 ms.
        await race.advance(toMilliseconds: 349)
        #expect(race.started.count == 2)
        await race.advance(toMilliseconds: 350)
        #expect(race.started == ["::1@0ms", "127.0.0.1@50ms", "::2@350ms"])
    }

    /// Regression: attempts that fail at once used to let an older attempt-delay timer replace
    /// the newer one, so the fourth address was never tried. A failure starts the next attempt
    /// at once only when nothing else is still trying; otherwise the delay runs from the last
    /// start.
    @Test func attemptsThatFailAtOnceDoNotStallTheRace() async throws {
        let race = try await Race(["fd00::3", "198.18.0.1", "fd00::4", "127.0.0.1"], budget: .seconds(3), failingAtOnce: ["fd00::3", "fd00::4"])
        #expect(race.started == ["fd00::3@0ms", "198.18.0.1@0ms"])
        await race.advance(toMilliseconds: 300)
        #expect(race.started == ["fd00::3@0ms", "198.18.0.1@0ms", "fd00::4@300ms"])
        await race.advance(toMilliseconds: 599)
        #expect(race.started.count == 3)
        await race.advance(toMilliseconds: 600)
        try #require(
            race.started == ["fd00::3@0ms", "198.18.0.1@0ms", "fd00::4@300ms", "127.0.0.1@600ms"],
            "all four addresses tried: the fourth after the delay from the third"
        )
        try await race.connect(3)
        let result = try #require(try race.outcome.withLock { $0 }?.get())
        #expect(result.index == 3)
    }

    @Test func theBudgetEndsTheRaceAndNamesEveryAddress() async throws {
        let race = try await Race(["fd00:5c::1", "198.18.0.1"], budget: .milliseconds(700))
        await race.advance(toMilliseconds: 699)
        #expect(race.outcome.withLock { $0 } == nil, "still racing before the budget is spent")
        await race.advance(toMilliseconds: 700)
        let failure = try #require(race.outcome.withLock { $0 })
        #expect(throws: SocketEngineError.self) { try failure.get() }
        guard case .failure(let error as SocketEngineError) = failure else { return }
        #expect(error.code == .connectTimeout)
        #expect(error.message == "connect to he.test:7000 timed out after 700ms: [fd00:5c::1]:7000: no answer in time; 198.18.0.1:7000: no answer in time")
    }

    /// The connect timeout covers resolution too, on the engine's clock: a resolver that never
    /// answers ends the connect exactly at the timeout.
    @Test func aResolverThatNeverAnswersTimesOutAtTheConnectTimeout() async throws {
        struct SilentResolver: HostResolver {
            func resolve(host: String, port: Int, datagram: Bool) async throws -> [SocketAddress] {
                try await AsyncMonitor(false).wait { $0 ? () : nil }
                return []
            }
        }
        let clock = VirtualClock()
        var options = ConnectOptions()
        options.clock = clock.engine
        options.resolver = SilentResolver()
        let endpoint = try Endpoint(parsing: "slow.test:80")
        let connecting = Task { try await Connector(endpoint: endpoint, options: options).connect() }
        // 10 s: the default --connect-timeout.
        try #require(try await clock.nextDeadline() == .seconds(10))
        await clock.advance(to: .seconds(10))
        await #expect {
            _ = try await finished(connecting)
        } throws: { ($0 as? SocketEngineError)?.message == "resolving 'slow.test' timed out after 10s" }
    }
}
