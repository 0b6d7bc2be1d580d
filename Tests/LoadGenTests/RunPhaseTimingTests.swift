import NIOCore
import SocketEngine
import Synchronization
import Testing
@testable import LoadGen
import TestSupport

/// The runner's waits in virtual time: ``RunPhases`` on a ``VirtualClock`` (the plan's clock, as
/// a run takes it), driving workers that note when they are asked to open and answer what the
/// test scripts. Each test pins a delay exactly; a wrong one fails it.
@Suite(.hangGuard) struct RunPhaseTimingTests {
    /// A worker whose state is the test's: when it was asked to open each slot (virtual time),
    /// whether first attempts are reported, what is unfinished, how much each sample sent.
    final class FakeWorker: LoadWorker {
        struct State {
            var opens: [Duration] = []
            var attemptsEnd = true
            var unfinished = 0
            var sentPerSample = 0
            var sent = 0
        }
        let clock: VirtualClock
        let state: Mutex<State>

        init(_ clock: VirtualClock, _ state: State = State()) {
            self.clock = clock
            self.state = Mutex(state)
        }

        var opens: [Duration] { state.withLock { $0.opens } }

        func open(slot: Int) { state.withLock { $0.opens.append(clock.elapsed) } }
        func attemptedCount() async throws -> Int { state.withLock { $0.attemptsEnd ? $0.opens.count : 0 } }
        func begin() {}
        func snapshot(cumulative: Bool) async throws -> LoadSnapshot {
            state.withLock { state in
                state.sent += state.sentPerSample
                var counters = LoadCounters()
                counters.messagesSent = state.sent
                return LoadSnapshot(counters: counters, interval: LoadStats.makeHistogram(), outstanding: state.unfinished, open: 1)
            }
        }
        func unfinishedCount() async throws -> Int { state.withLock { $0.unfinished } }
        func closeAll() async {}
        func totals() async throws -> LoadStats { LoadStats() }
    }

    static func plan(_ clock: VirtualClock, _ configure: (inout LoadPlan) -> Void) throws -> LoadPlan {
        var plan = LoadPlan(endpoint: try Endpoint(parsing: "127.0.0.1:7000"), message: try MessageTemplate(Array("m".utf8), framing: .line))
        plan.framing = .line
        plan.connectOptions.clock = clock.engine
        configure(&plan)
        return plan
    }

    static func phases(_ plan: LoadPlan) -> RunPhases {
        RunPhases(plan: plan, clock: plan.connectOptions.clock, stop: StopRequest(), metrics: nil)
    }

    /// At 10 connections a second, slot k opens k × 100 ms after the start.
    @Test func rampUpOpensSlotKAtKOverTheConnectRate() async throws {
        let clock = VirtualClock()
        let plan = try Self.plan(clock) { $0.connections = 4; $0.connectRate = 10 }
        let worker = FakeWorker(clock)
        try await clock.run { try await Self.phases(plan).rampUp([worker], openable: 4) }
        #expect(worker.opens == [.zero, .milliseconds(100), .milliseconds(200), .milliseconds(300)])
    }

    /// First attempts that never end are waited for the connect timeout plus a second, exactly.
    @Test func rampUpWaitsForAttemptsUntilConnectTimeoutPlusOneSecond() async throws {
        let clock = VirtualClock()
        let plan = try Self.plan(clock) { $0.connections = 2; $0.connectRate = nil; $0.connectOptions.connectTimeout = .seconds(2) }
        let worker = FakeWorker(clock, .init(attemptsEnd: false))
        try await clock.run { try await Self.phases(plan).rampUp([worker], openable: 2) }
        #expect(worker.opens == [.zero, .zero])
        #expect(clock.elapsed == .seconds(3))
    }

    /// Samples come at 1 s, 2 s, 3 s after the start, the last at the end of sending.
    @Test func samplesComeOnceASecondFromTheStart() async throws {
        let clock = VirtualClock()
        let plan = try Self.plan(clock) { $0.duration = .seconds(3) }
        let context = RunContext(plan: plan, addresses: [try SocketAddress(ipAddress: "127.0.0.1", port: 7000)])
        context.begin(at: 1)
        let worker = FakeWorker(clock, .init(sentPerSample: 5))
        let samples = Mutex<[Duration]>([])
        let start = clock.engine.now
        let (warnings, timeline) = try await clock.run {
            try await Self.phases(plan).measure([worker], context: context, start: start) { sample in
                samples.withLock { $0.append(sample.elapsed) }
            }
        }
        #expect(warnings.isEmpty)
        #expect(samples.withLock { $0 } == [.seconds(1), .seconds(2), .seconds(3)])
        #expect(timeline.map(\.second) == [1, 2, 3])
        #expect(timeline.map(\.sent) == [5, 5, 5])
        #expect(clock.sleepHistory == [.seconds(1), .seconds(2), .seconds(3)])
    }

    /// Replies still outstanding: the drain gives up at the drain timeout after its start.
    @Test func drainStopsAtTheDrainTimeoutWithRepliesOutstanding() async throws {
        let clock = VirtualClock()
        let plan = try Self.plan(clock) { $0.drainTimeout = .seconds(2) }
        let worker = FakeWorker(clock, .init(unfinished: 1))
        await clock.advance(to: .seconds(5))
        try await clock.run { try await Self.phases(plan).drain([worker]) }
        #expect(clock.elapsed == .seconds(7))
    }

    /// A requests run where nothing moves is stopped, with a warning, once nothing was sent or
    /// received for twice the reply timeout or 10 s, whichever is longer (looked at every 10 ms).
    @Test(arguments: [(Duration.seconds(1), Duration.seconds(10)), (.seconds(6), .seconds(12))])
    func aRequestsRunStallsAfterTwiceTheReplyTimeoutOrTenSeconds(replyTimeout: Duration, stall: Duration) async throws {
        let clock = VirtualClock()
        let plan = try Self.plan(clock) { $0.requests = 100; $0.duration = nil; $0.replyTimeout = replyTimeout }
        let context = RunContext(plan: plan, addresses: [try SocketAddress(ipAddress: "127.0.0.1", port: 7000)])
        context.begin(at: 1)
        let worker = FakeWorker(clock, .init(unfinished: 1))
        let start = clock.engine.now
        let (warnings, _) = try await clock.run {
            try await Self.phases(plan).measure([worker], context: context, start: start) { _ in }
        }
        #expect(warnings.count == 1 && warnings[0].rendered { "--" + $0.rawValue } == "nothing was sent or received for \(stall): the run was stopped before all --requests were sent", "\(warnings)")
        #expect(clock.elapsed == stall + .milliseconds(10))
    }
}
