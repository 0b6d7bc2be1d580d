import Dispatch
import NIOCore
import SocketEngine
import Synchronization
import Testing
@testable import LoadGen
import TestSupport

/// `LoadRunner.stop()` (what SIGINT and SIGTERM call): the run stops sending, drains what it
/// sent, and returns its report marked interrupted, every message accounted for. Real runs
/// against a loopback echo server; the stop comes once the server has answered messages.
@Suite(.hangGuard) struct LoadRunnerStopTests {
    /// A line echo server that counts the lines it has echoed.
    static func countingEchoServer(_ echoed: AsyncMonitor<Int>) async throws -> TestServer {
        try await TestServer.start { connection in
            while let line = try await connection.readFrame(.line) {
                try await connection.write(try Framing.line.encode(line))
                echoed.update { $0 += 1 }
            }
        }
    }

    @Test(arguments: [LoadPlan.IOMode.events, .threads])
    func aStoppedRunReturnsAnInterruptedReportWithEveryMessageAccountedFor(io: LoadPlan.IOMode) async throws {
        let echoed = AsyncMonitor(0)
        let server = try await Self.countingEchoServer(echoed)
        var plan = try LoadMetricsTests.plan(port: server.port, requests: 1, connections: 2)
        plan.requests = nil
        plan.duration = .seconds(3600)
        plan.io = io
        let runner = LoadRunner(plan: plan)
        let run = Task { try await runner.run() }
        try await echoed.wait { $0 >= 100 ? () : nil }
        runner.stop()
        let report = try await finished(run)
        await server.stop()
        #expect(report.interrupted == true)
        #expect(report.messages.sent >= 100)
        #expect(report.messages.sent == report.messages.received + report.messages.timedOut + report.messages.lost)
        #expect(report.messages.lost == 0, "what was sent was drained")
        #expect(report.text.contains("interrupted stopped before its end"))
    }

    /// The caller's event loops, noting whether the run handed out their loops or shut them down.
    final class CallersLoops: EventLoopGroup {
        let loops = ConnectOptions().group
        let used = Atomic<Int>(0)
        let shutDown = Atomic<Bool>(false)
        func next() -> any EventLoop {
            used.add(1, ordering: .relaxed)
            return loops.next()
        }
        func makeIterator() -> EventLoopIterator {
            used.add(1, ordering: .relaxed)
            return loops.makeIterator()
        }
        func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
            shutDown.store(true, ordering: .relaxed)
            callback(nil)
        }
    }

    /// Given the caller's event loops, a run uses them and leaves them running.
    @Test func aRunOnTheCallersLoopsLeavesThemRunning() async throws {
        let echoed = AsyncMonitor(0)
        let server = try await Self.countingEchoServer(echoed)
        var plan = try LoadMetricsTests.plan(port: server.port, requests: 20, connections: 2)
        plan.io = .events
        let loops = CallersLoops()
        let report = try await LoadRunner(plan: plan, eventLoops: loops).run()
        await server.stop()
        #expect(report.messages.received == 20)
        let used = loops.used.load(ordering: .relaxed)
        let shutDown = loops.shutDown.load(ordering: .relaxed)
        #expect(used > 0, "the run's connections are on the caller's loops")
        #expect(!shutDown, "the caller's loops are left running")
    }

    @Test func aRunStoppedBeforeItBeganSendsNothing() async throws {
        let echoed = AsyncMonitor(0)
        let server = try await Self.countingEchoServer(echoed)
        var plan = try LoadMetricsTests.plan(port: server.port, requests: 1_000_000)
        plan.io = .events
        let runner = LoadRunner(plan: plan)
        runner.stop()
        let report = try await runner.run()
        await server.stop()
        #expect(report.interrupted == true)
        #expect(report.messages.sent == 0)
        #expect(report.messages.unsent == 1_000_000, "due by --requests, never sent")
    }
}
