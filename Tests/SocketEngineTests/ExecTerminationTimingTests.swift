import Foundation
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization
import TestSupport
import Testing
@testable import SocketEngine

import Glibc

/// When a command's connection goes, the command gets SIGTERM at once and SIGKILL when the
/// grace period has passed on the loop's clock — here a test loop's, moved by hand: a real child
/// (Python, which survives SIGTERM) and real pipes, no waiting for time to pass.
@Suite(.hangGuard) struct ExecTerminationTimingTests {
    /// Says "ready", echoes each line of its stdin, says "term" on SIGTERM and lives on, and
    /// "alive" on SIGUSR1.
    static let stubborn = """
        import os, signal, sys
        signal.signal(signal.SIGTERM, lambda *a: os.write(1, b"term\\n"))
        signal.signal(signal.SIGUSR1, lambda *a: os.write(1, b"alive\\n"))
        os.write(1, b"ready\\n")
        for line in iter(sys.stdin.readline, ""):
            os.write(1, line.encode())
        while True:
            signal.pause()
        """

    /// The connection side, driven by the test: what it feeds, what the child wrote, its end.
    final class Peer: Sendable {
        let input: AsyncStream<ByteBuffer>.Continuation
        private let inputs: AsyncStream<ByteBuffer>
        let output: AsyncStream<ByteBuffer>.Continuation
        let outputs: AsyncStream<ByteBuffer>
        let end: AsyncStream<Void>.Continuation
        private let ends: AsyncStream<Void>
        /// Each time the bridge scheduled a late SIGTERM.
        let scheduled: AsyncStream<Void>
        let schedule: AsyncStream<Void>.Continuation

        init() {
            (inputs, input) = AsyncStream.makeStream()
            (outputs, output) = AsyncStream.makeStream()
            (ends, end) = AsyncStream.makeStream()
            (scheduled, schedule) = AsyncStream.makeStream()
        }

        /// Runs the bridge for `configuration` on this peer.
        func run(_ configuration: ExecConfiguration, timers: any EventLoop, onStart: @escaping @Sendable (pid_t) -> Void = { _ in }) async -> ExecOutcome {
            let schedule = self.schedule
            return await ExecBridge.run(
                configuration, peer: peer(timers: timers), framing: .raw, binaryMessages: false,
                maximumFrameSize: 1 << 20, environment: ExecEnvironment(transport: .tcp, local: nil, peer: nil),
                onStart: onStart, onLateTermination: { schedule.yield() })
        }

        func peer(timers: any EventLoop) -> ExecPeer {
            let inputs = self.inputs
            let ends = self.ends
            let output = self.output
            return ExecPeer(
                next: { await inputs.first { _ in true } },
                send: { output.yield($0) },
                finish: {},
                gone: { _ = await ends.first { _ in true } },
                close: {},
                transport: .tcp,
                loop: MultiThreadedEventLoopGroup.singleton.next(),
                timers: timers
            )
        }
    }

    /// Reads what the child wrote until `text` has come.
    static func waitFor(_ text: String, in iterator: inout AsyncStream<ByteBuffer>.AsyncIterator, seen: inout String) async throws {
        while !seen.contains(text) {
            guard let piece = await iterator.next() else { throw HarnessError("the child's output ended before '\(text)': \(seen)") }
            seen += String(buffer: piece)
        }
    }

    @Test func sigtermWhenTheConnectionGoesThenSigkillAfterTheGrace() async throws {
        let scratch = try Scratch()
        try Self.stubborn.write(toFile: scratch.path("stubborn.py"), atomically: true, encoding: .utf8)
        var configuration = ExecConfiguration(command: try ExecCommand(program: "python3 \(scratch.path("stubborn.py"))"))
        configuration.terminationGrace = .seconds(3600)
        let timers = NIOAsyncTestingEventLoop()
        let driver = Peer()
        let pid = Mutex<pid_t>(0)
        let bridge = Task { await driver.run(configuration, timers: timers) { started in pid.withLock { $0 = started } } }
        var output = driver.outputs.makeAsyncIterator()
        var seen = ""
        driver.input.yield(ByteBuffer(string: "hello\n"))
        try await Self.waitFor("ready\nhello\n", in: &output, seen: &seen)

        // The connection goes in order: its reads end, then its end is seen. The child is
        // given the grace to end on its own, then SIGTERM, then the grace again, then SIGKILL.
        driver.input.finish()
        driver.end.yield()
        var scheduled = driver.scheduled.makeAsyncIterator()
        await scheduled.next()
        let nanosecond = TimeAmount.nanoseconds(1)
        for (signal, said) in [(SIGTERM, "term\n"), (SIGKILL, "")] {
            // A nanosecond short: nothing sent yet, the child still answers a signal.
            await timers.advanceTime(by: .seconds(3600) - nanosecond)
            kill(pid.withLock { $0 }, SIGUSR1)
            try await Self.waitFor("alive\n", in: &output, seen: &seen)
            #expect(!seen.contains("term"), "\(signal) came early: \(seen)")
            seen = ""
            await timers.advanceTime(by: nanosecond)
            if !said.isEmpty { try await Self.waitFor(said, in: &output, seen: &seen) }
            seen = ""
        }
        let outcome = await bridge.value
        #expect(outcome.exit == .signaled(SIGKILL))
        #expect(outcome.terminated)
        await timers.shutdownGracefully()
    }

    /// The connection's end is seen while what it delivered is still on its way to the child
    /// (its reads have not ended): SIGTERM waits the grace period for that to settle.
    @Test func sigtermWaitsTheGraceWhileTheInputIsStillOnItsWay() async throws {
        var configuration = ExecConfiguration(command: try ExecCommand(program: "cat"))
        configuration.terminationGrace = .seconds(3600)
        let timers = NIOAsyncTestingEventLoop()
        let driver = Peer()
        let bridge = Task { await driver.run(configuration, timers: timers) }
        var output = driver.outputs.makeAsyncIterator()
        var seen = ""
        driver.input.yield(ByteBuffer(string: "up\n"))
        try await Self.waitFor("up\n", in: &output, seen: &seen)
        driver.end.yield()
        var scheduled = driver.scheduled.makeAsyncIterator()
        await scheduled.next()
        await timers.advanceTime(by: .seconds(3600) - .nanoseconds(1))
        driver.input.yield(ByteBuffer(string: "late\n"))
        try await Self.waitFor("late\n", in: &output, seen: &seen)
        await timers.advanceTime(by: .nanoseconds(1))
        let outcome = await bridge.value
        #expect(outcome.exit == .signaled(SIGTERM))
        #expect(seen == "up\nlate\n")
        // The SIGKILL timer of a child that has ended runs (and sends nothing) before the loop goes.
        await timers.advanceTime(by: .seconds(3600))
        await timers.shutdownGracefully()
    }
}
