import NIOCore
import Synchronization
import TestSupport
import Testing
@testable import SocketEngine

/// `connect`'s timing — reconnect back-off, heartbeats, the idle timeout, UDP's linger — in
/// virtual time: the session runs against real sockets on loopback with a ``VirtualClock`` as
/// its engine clock, so every sleep is seen with its exact deadline and ends only when the test
/// moves time there. A wrong delay in the code fails these tests; a slow machine cannot.
@Suite(.hangGuard)
struct SessionTimingTests {
    func session(
        _ endpoint: String, clock: VirtualClock, input: any ByteSource = EmptyByteSource(), output: CollectingSink = CollectingSink(),
        events: EventLog<SessionEvent> = EventLog(), _ configure: (inout ClientSessionConfiguration) -> Void = { _ in }
    ) throws -> ClientSession {
        var configuration = ClientSessionConfiguration(endpoint: try Endpoint(parsing: endpoint))
        configuration.connect = .patient
        configuration.connect.clock = clock.engine
        configure(&configuration)
        return ClientSession(configuration: configuration, input: input, output: output) { events.record($0) }
    }

    static func delays(_ events: EventLog<SessionEvent>) -> [Duration] {
        events.events.compactMap { event in
            if case .reconnecting(let delay, _, _) = event { return delay }
            return nil
        }
    }

    /// A refused connection is retried after 1, 2, 4, 8 and 16 s (2^n), each counted from the
    /// failure before it, and the session gives up after the fifth.
    @Test func reconnectBacksOffOneTwoFourEightSixteenSeconds() async throws {
        let closed = try ClosedPort()
        let clock = VirtualClock()
        let events = EventLog<SessionEvent>()
        let session = try session("127.0.0.1:\(closed.port)", clock: clock, input: QueueByteSource(queue: AsyncBoundedQueue(capacity: 1)), events: events) {
            $0.reconnect = ReconnectPolicy()
        }
        let summary = try await clock.run { await session.run() }
        #expect(clock.sleepHistory == [.seconds(1), .seconds(3), .seconds(7), .seconds(15), .seconds(31)])
        #expect(Self.delays(events) == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)])
        #expect(summary.error?.message.contains("gave up after 5 reconnect attempts") == true, "\(String(describing: summary.error))")
        #expect(summary.duration == .seconds(31))
        #expect(summary.connections == 0)
        withExtendedLifetime(closed) {}
    }

    /// With `--reconnect-jitter 0.5` each wait is its 2^n base scaled by a factor in 0.5…1.5,
    /// and the session sleeps exactly the delay it announced.
    @Test func jitterKeepsEachDelayWithinItsBounds() async throws {
        let closed = try ClosedPort()
        let clock = VirtualClock()
        let events = EventLog<SessionEvent>()
        let session = try session("127.0.0.1:\(closed.port)", clock: clock, input: QueueByteSource(queue: AsyncBoundedQueue(capacity: 1)), events: events) {
            $0.reconnect = ReconnectPolicy(maximumAttempts: 6, jitter: 0.5)
        }
        _ = try await clock.run { await session.run() }
        let delays = Self.delays(events)
        try #require(delays.count == 6)
        for (index, delay) in delays.enumerated() {
            let base = Duration.seconds(1 << index)
            #expect(delay >= base * 0.5 && delay <= base * 1.5, "attempt \(index + 1): \(delay) for a base of \(base)")
        }
        var elapsed = Duration.zero
        let expected = delays.map { delay -> Duration in
            elapsed += delay
            return elapsed
        }
        #expect(clock.sleepHistory == expected)
        withExtendedLifetime(closed) {}
    }

    /// `--reconnect-max-delay` caps the doubling.
    @Test func theMaximumDelayCapsTheBackOff() async throws {
        let closed = try ClosedPort()
        let clock = VirtualClock()
        let events = EventLog<SessionEvent>()
        let session = try session("127.0.0.1:\(closed.port)", clock: clock, input: QueueByteSource(queue: AsyncBoundedQueue(capacity: 1)), events: events) {
            $0.reconnect = ReconnectPolicy(maximumAttempts: 5, maximumDelay: .seconds(3))
        }
        _ = try await clock.run { await session.run() }
        #expect(Self.delays(events) == [.seconds(1), .seconds(2), .seconds(3), .seconds(3), .seconds(3)])
        withExtendedLifetime(closed) {}
    }

    /// A server that reads but never answers: heartbeats go at 5 s and 10 s, and at 15 s —
    /// three intervals without anything received — the peer is declared dead.
    @Test func aSilentPeerIsDeclaredDeadAfterThreeIntervals() async throws {
        let received = EventLog<String>()
        let server = try await TestServer.start { connection in
            while let frame = try await connection.readFrame(.line) { received.record(string(frame) ?? "") }
        }
        let clock = VirtualClock()
        let events = EventLog<SessionEvent>()
        let session = try session("127.0.0.1:\(server.port)", clock: clock, input: QueueByteSource(queue: AsyncBoundedQueue(capacity: 1)), events: events) {
            $0.framing = .line
            $0.heartbeat = HeartbeatConfiguration(payload: ByteBuffer(string: "PING"))
        }
        let running = Task { await session.run() }
        try #require(try await clock.nextDeadline() == .seconds(5))
        await clock.advance(to: .seconds(5))
        try await received.next { $0 == "PING" ? () : nil }
        try #require(try await clock.nextDeadline() == .seconds(10))
        await clock.advance(to: .seconds(10))
        try await received.next { $0 == "PING" ? () : nil }
        try #require(try await clock.nextDeadline() == .seconds(15))
        await clock.advance(to: .seconds(15))
        let summary = try await clock.endsNow(running)
        #expect(summary.error?.code == .peerUnresponsive)
        #expect(summary.heartbeatsSent == 2)
        let silence = events.events.compactMap { event -> Duration? in
            if case .peerUnresponsive(let silentFor) = event { return silentFor }
            return nil
        }
        #expect(silence == [.seconds(15)])
        #expect(HeartbeatConfiguration(payload: ByteBuffer()).interval == .seconds(5))
        #expect(HeartbeatConfiguration(payload: ByteBuffer()).allowedMisses == 3)
        await server.stop()
    }

    /// An echoing peer answers every heartbeat: what it sends back moves the deadline, so the
    /// session outlives many intervals. With beats every second and 3 misses allowed, the peer
    /// would be declared dead at 3 s if nothing it sent counted; each echo instead moves that
    /// to 3 s after it came, and the session's next deadline is always the next beat.
    @Test func answeredHeartbeatsKeepThePeerAlive() async throws {
        let server = try await TestServer.start { connection in
            while let frame = try await connection.readFrame(.line) {
                try await connection.write(try Framing.line.encode(frame))
            }
        }
        let clock = VirtualClock()
        let output = CollectingSink()
        let input = AsyncBoundedQueue<ByteBuffer>(capacity: 1)
        let session = try session("127.0.0.1:\(server.port)", clock: clock, input: QueueByteSource(queue: input), output: output) {
            $0.framing = .line
            $0.heartbeat = HeartbeatConfiguration(payload: ByteBuffer(string: "PING"), interval: .seconds(1), allowedMisses: 3)
        }
        let running = Task { await session.run() }
        try #require(try await clock.nextDeadline() == .seconds(1))
        for second in 1...6 {
            await clock.advance(to: .seconds(second))
            // The beat went out at `second`; the session sleeps until the next one (the echoes
            // so far keep the peer alive), not until — or out at — a dead peer's deadline.
            let next = try await clock.nextDeadline(unlessItEnds: running)
            try #require(next == .seconds(second + 1), "at \(second) s, after \(second - 1) echoed beats")
            // Its echo is in before time moves on: it was received at `second`.
            try await output.wait(forText: String(repeating: "PING\n", count: second))
        }
        input.finish()
        let summary = await finished(running)
        #expect(summary.error == nil)
        #expect(summary.heartbeatsSent == 6)
        await server.stop()
    }

    /// `--idle-timeout 5s` ends a session with no traffic at exactly 5 s; traffic at 3 s moves
    /// the end to 8 s.
    @Test func theIdleTimeoutCountsFromTheLastTraffic() async throws {
        let received = EventLog<String>()
        let server = try await TestServer.start { connection in
            while let chunk = try await connection.read() { received.record(string(chunk) ?? "") }
        }
        let clock = VirtualClock()
        let input = AsyncBoundedQueue<ByteBuffer>(capacity: 4)
        let session = try session("127.0.0.1:\(server.port)", clock: clock, input: QueueByteSource(queue: input)) {
            $0.idleTimeout = .seconds(5)
        }
        let running = Task { await session.run() }
        try #require(try await clock.nextDeadline() == .seconds(5))
        await clock.advance(to: .seconds(3))
        try await input.push(ByteBuffer(string: "hi"))
        try await received.next { $0 == "hi" ? () : nil }
        await clock.advance(to: .seconds(5))
        try #require(try await clock.nextDeadline() == .seconds(8), "the traffic at 3 s moved the idle end")
        await clock.advance(to: .seconds(8))
        let summary = await finished(running)
        #expect(summary.end == .idle)
        #expect(summary.duration == .seconds(8))
        await server.stop()
    }

    /// After input ends a UDP session takes replies for 2 s after the last datagram, then ends.
    @Test func udpLingersTwoSecondsAfterTheLastDatagram() async throws {
        let listener = try await DatagramListener.bind(try Endpoint(parsing: "udp://127.0.0.1:0", role: .listener))
        let port = try #require(listener.localAddresses.first?.port)
        let echo = Task {
            for await datagram in listener.datagrams { try? await listener.reply(to: datagram, with: datagram.data) }
        }
        let clock = VirtualClock()
        let output = CollectingSink()
        let input = AsyncBoundedQueue<ByteBuffer>(capacity: 4)
        let session = try session("udp://127.0.0.1:\(port)", clock: clock, input: QueueByteSource(queue: input), output: output) {
            $0.framing = .line
        }
        let running = Task { await session.run() }
        try await input.push(ByteBuffer(string: "ping\n"))
        try await output.wait(forText: "ping\n")
        input.finish()
        try #require(try await clock.nextDeadline() == .seconds(2))
        await clock.advance(to: .seconds(2))
        let summary = await finished(running)
        #expect(summary.end == .completed)
        #expect(summary.duration == .seconds(2))
        await listener.close()
        echo.cancel()
    }
}
