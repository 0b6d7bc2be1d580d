import NIOCore
import Recording
import SocketEngine
import TestSupport
import Testing

/// Replay timing in virtual time: each recorded message goes out exactly when it is due — its
/// recorded offset divided by the speed, from the moment the connection is up — and not a
/// moment before; at top speed nothing waits. The target is a real server on loopback.
@Suite(.hangGuard)
struct ReplayScheduleTests {
    /// Messages recorded 0, 100 and 250 ms into the stream.
    static let plan = ReplayPlan(sends: [
        .init(due: .zero, bytes: ByteBuffer(string: "one\n")),
        .init(due: .milliseconds(100), bytes: ByteBuffer(string: "two\n")),
        .init(due: .milliseconds(250), bytes: ByteBuffer(string: "three\n")),
    ])

    func replay(speed: Double?) async throws -> (outcome: ReplayClient.Outcome, sleeps: [Duration], received: String) {
        let received = AsyncMonitor("")
        let server = try await TestServer.start { connection in
            while let chunk = try await connection.read() {
                received.update { $0 += String(buffer: chunk) }
            }
        }
        let clock = VirtualClock()
        var connect = ConnectOptions.patient
        connect.clock = clock.engine
        let client = ReplayClient(configuration: ReplayClient.Configuration(
            endpoint: try Endpoint(parsing: "127.0.0.1:\(server.port)"), connect: connect, plan: Self.plan, framing: nil,
            maximumFrameSize: 1 << 20, speed: try ReplaySpeed(timesRecorded: speed, topspeed: speed == nil), verify: false, timeout: .seconds(5), datagrams: false
        ))
        let outcome = try await clock.run { await client.run() }
        try await received.wait { $0 == "one\ntwo\nthree\n" ? () : nil }
        await server.stop()
        return (outcome, clock.sleepHistory, received.value)
    }

    @Test func messagesGoOutAtTheirRecordedTimes() async throws {
        let (outcome, sleeps, received) = try await replay(speed: 1)
        #expect(outcome.sendTimes == [.zero, .milliseconds(100), .milliseconds(250)])
        #expect(outcome.maximumDrift == .zero)
        #expect(Array(sleeps.prefix(2)) == [.milliseconds(100), .milliseconds(250)], "it slept until each message was due: \(sleeps)")
        #expect(received == "one\ntwo\nthree\n")
        #expect(outcome.error == nil)
    }

    @Test func speedTwoHalvesEveryGap() async throws {
        let (outcome, sleeps, _) = try await replay(speed: 2)
        #expect(outcome.sendTimes == [.zero, .milliseconds(50), .milliseconds(125)])
        #expect(Array(sleeps.prefix(2)) == [.milliseconds(50), .milliseconds(125)])
    }

    @Test func halfSpeedDoublesEveryGap() async throws {
        let (outcome, _, _) = try await replay(speed: 0.5)
        #expect(outcome.sendTimes == [.zero, .milliseconds(200), .milliseconds(500)])
    }

    @Test func topSpeedSendsEverythingAtOnce() async throws {
        let (outcome, sleeps, received) = try await replay(speed: nil)
        #expect(outcome.sendTimes == [.zero, .zero, .zero])
        // Only the settling wait (200 ms) after the last message: no message waited.
        #expect(!sleeps.isEmpty && sleeps.allSatisfy { $0 == .milliseconds(200) }, "\(sleeps)")
        #expect(received == "one\ntwo\nthree\n")
    }

    func client(to port: Int, expecting expected: [String], clock: VirtualClock) throws -> ReplayClient {
        var connect = ConnectOptions.patient
        connect.clock = clock.engine
        let plan = ReplayPlan(sends: [.init(due: .zero, bytes: ByteBuffer(string: "one\n"))], expected: expected.map { ByteBuffer(string: $0) })
        return ReplayClient(configuration: ReplayClient.Configuration(
            endpoint: try Endpoint(parsing: "127.0.0.1:\(port)"), connect: connect, plan: plan, framing: nil,
            maximumFrameSize: 1 << 20, speed: .recorded, verify: true, timeout: .seconds(5), datagrams: false
        ))
    }

    /// Once everything expected has come, the run waits the settle time — 200 ms — for more,
    /// then ends: the answer comes at 1 s, the run ends at 1.2 s.
    @Test func theRunEndsTheSettleTimeAfterTheLastExpectedByte() async throws {
        let answer = AsyncMonitor(false)
        let server = try await TestServer.start { connection in
            _ = try await connection.readFrame(.line)
            try await answer.wait { $0 ? () : nil }
            try await connection.write(ByteBuffer(string: "ONE\n"))
            while try await connection.read() != nil {}
        }
        let clock = VirtualClock()
        let running = Task { try await client(to: server.port, expecting: ["ONE\n"], clock: clock).run() }
        // Nothing has come yet: the run waits for it the timeout (5 s) after its message went out.
        try #require(try await clock.nextDeadline() == .seconds(5))
        let sleepsBefore = clock.sleepHistory.count
        await clock.advance(to: .seconds(1))
        answer.update { $0 = true }
        // Everything expected came at 1 s: the wait for the rest is now the settle time from then.
        let settling = try await clock.deadlines(begun: sleepsBefore + 1, pending: 1)
        try #require(settling == [.milliseconds(1200)], "200 ms after the last expected byte")
        await clock.advance(to: .milliseconds(1200))
        let outcome = try await finished(running)
        #expect(!outcome.timedOut)
        #expect(outcome.duration == .milliseconds(1200))
        #expect(outcome.verifier?.mismatch == nil)
        await server.stop()
    }

    /// A target that goes quiet before sending everything expected is given up on `timeout`
    /// after the last message went out (or the last byte came).
    @Test func aQuietTargetIsGivenUpOnAfterTheTimeout() async throws {
        let server = try await TestServer.start { connection in
            while try await connection.read() != nil {}
        }
        let clock = VirtualClock()
        let outcome = try await clock.run { try await client(to: server.port, expecting: ["ONE\n"], clock: clock).run() }
        #expect(outcome.timedOut)
        #expect(outcome.duration == .seconds(5))
        #expect(outcome.bytesReceived == 0)
        await server.stop()
    }

    /// `replay --as-server`: an answer keeps its recorded delay after the request it follows.
    /// (The client's silence timeout runs on the listener's real loop: it is not the subject,
    /// so it is far beyond the test's hang guard.)
    @Test func theMockServerAnswersItsRecordedDelayAfterTheRequest() async throws {
        let clock = VirtualClock()
        let server = ReplayServer(
            script: ReplayServer.Script(steps: [.await(6), .send(ByteBuffer(string: "HI\n"), after: .milliseconds(40))], serverClosesFirst: true),
            framing: nil, maximumFrameSize: 1 << 20, speed: .recorded, timeout: .seconds(3600), clock: clock.engine
        )
        let listener = try await Listener.bind(try Endpoint(parsing: "127.0.0.1:0", role: .listener))
        let serving = Task { await server.serve(listener) }
        let port = try #require(listener.localAddresses.first?.port)
        let client = try await Connector(endpoint: try Endpoint(parsing: "127.0.0.1:\(port)"), options: .patient).connect().0
        try await client.write(ByteBuffer(string: "HELLO\n"))
        try #require(try await clock.nextDeadline() == .milliseconds(40))
        await clock.advance(to: .milliseconds(40))
        #expect(string(try await client.read(.exactly(3))) == "HI\n")
        #expect(try await client.read() == nil, "the recording's server closed first")
        await client.close()
        await listener.close()
        await finished(serving)
        #expect(server.served.clients == 1)
        #expect(server.served.bytesIn == 6 && server.served.bytesOut == 3)
    }
}
