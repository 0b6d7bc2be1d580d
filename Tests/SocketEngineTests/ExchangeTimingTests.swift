import NIOCore
import Synchronization
import TestSupport
import Testing
@testable import SocketEngine

/// `send`'s timeout and `listen`'s delays that live on the engine clock, in virtual time
/// against real sockets on loopback.
@Suite(.hangGuard)
struct ExchangeTimingTests {
    /// `send 127.0.0.1:PORT --framing line hello`, timed by `clock`.
    static func lineExchange(with server: TestServer, on clock: VirtualClock) throws -> ExchangeConfiguration {
        var configuration = ExchangeConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:\(server.port)"))
        configuration.connect = .patient
        configuration.connect.clock = clock.engine
        configuration.framing = .line
        configuration.messages = [ByteBuffer(string: "hello")]
        return configuration
    }

    /// The whole exchange has one budget from the moment the connection is up: a server that
    /// never answers fails it at exactly 300 ms, naming the response it waited for.
    @Test func aSilentServerTimesTheExchangeOutAtItsTimeout() async throws {
        let server = try await TestServer.start { connection in
            while try await connection.read() != nil {}
        }
        let clock = VirtualClock()
        var configuration = try Self.lineExchange(with: server, on: clock)
        configuration.timeout = .milliseconds(300)
        let running = Task { await Exchange(configuration: configuration).run() }
        // The write's deadline (300 ms) ends with the write; then the read waits until the same 300 ms.
        try #require(try await clock.deadlines(begun: 2, pending: 1) == [.milliseconds(300)])
        await clock.advance(to: .milliseconds(299))
        await clock.advance(to: .milliseconds(300))
        let result = await finished(running)
        #expect(result.error?.code == .readTimeout)
        #expect(result.error?.message == "127.0.0.1:\(server.port): timed out after 300ms waiting for response 1 of 1")
        #expect(result.total == .milliseconds(300))
        await server.stop()
    }

    /// Answers that come in time are read within the one budget: a first answer at 2 s leaves
    /// the second response the 3 s that are left, so its wait ends at 5 s, where the budget
    /// does (not 5 s after the first answer, at 7 s).
    @Test func theBudgetCoversEveryResponseNotEachOne() async throws {
        let answer = AsyncMonitor(false)
        let release = AsyncMonitor(false)
        let server = try await TestServer.start { connection in
            _ = try await connection.readFrame(.line)
            try await answer.wait { $0 ? () : nil }
            try await connection.write(ByteBuffer(string: "one\n"))
            try await release.wait { $0 ? () : nil }
        }
        let clock = VirtualClock()
        var configuration = try Self.lineExchange(with: server, on: clock)
        configuration.responses = 2
        configuration.timeout = .seconds(5)
        let responses = EventLog<String>()
        let running = Task { await Exchange(configuration: configuration).run { responses.record(String(buffer: $0)) } }
        // The write's wait is over; the first response's (the second sleep) ends with the budget.
        try #require(try await clock.deadlines(begun: 2, pending: 1) == [.seconds(5)])
        await clock.advance(to: .seconds(2))
        answer.update { $0 = true }
        try await responses.next { $0 == "one" ? () : nil }
        // The first response came at 2 s; the second response's wait (the third sleep) ends
        // where the budget does.
        let secondWait = try await clock.deadlines(begun: 3, pending: 1)
        try #require(secondWait == [.seconds(5)], "the second response has what is left of the budget (3 s), not a budget of its own")
        await clock.advance(to: .seconds(5))
        let result = await finished(running)
        #expect(result.responsesReceived == 1)
        #expect(result.error?.message.contains("waiting for response 2 of 2") == true)
        #expect(result.total == .seconds(5))
        release.update { $0 = true }
        await server.stop()
    }

    /// `listen udp:// --echo --delay 100ms`: each datagram is answered 100 ms after it came,
    /// on the listener's clock.
    @Test func aDelayedUDPAnswerIsDueItsDelayAfterTheDatagram() async throws {
        let clock = VirtualClock()
        var configuration = ListenConfiguration(endpoint: try Endpoint(parsing: "udp://127.0.0.1:0", role: .listener))
        configuration.mode = .echo
        configuration.delay = .milliseconds(100)
        configuration.options.clock = clock.engine
        let events = EventLog<ListenEvent>()
        let service = ListenService(configuration: configuration, output: DiscardingByteSink()) { events.record($0) }
        let port = try #require(try await service.bind().first?.port)
        let running = Task { await service.run() }
        let client = try await connect("udp://127.0.0.1:\(port)")
        try await client.write(ByteBuffer(string: "ping"))
        try await events.next { if case .datagram = $0 { () } else { nil } }
        try #require(try await clock.nextDeadline() == .milliseconds(100))
        await clock.advance(to: .milliseconds(100))
        #expect(string(try await client.read()) == "ping")
        await client.close()
        service.stop()
        _ = await finished(running)
    }

    /// `listen --broadcast --delay 100ms`: a message reaches the other clients 100 ms after it
    /// came, each message on its own delay: one that comes at 50 ms, while the first still
    /// waits, goes out at 150 ms — not 100 ms after the first went out.
    @Test func aDelayedBroadcastReachesTheOthersItsDelayAfterTheMessage() async throws {
        let clock = VirtualClock()
        let counting = CountingClock(clock)
        let arrivals = EventLog<(bytes: Int, clockReads: Int)>()
        let received = Mutex(0)
        var configuration = ListenConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:0", role: .listener))
        configuration.mode = .broadcast
        configuration.keepOpen = true
        configuration.framing = .line
        configuration.delay = .milliseconds(100)
        configuration.options.clock = EngineClock(counting)
        configuration.options.tap = { record in
            guard record.direction == .received else { return }
            let bytes = received.withLock { total in
                total += record.bytes.readableBytes
                return total
            }
            arrivals.record((bytes, counting.reads.value))
        }
        let events = EventLog<ListenEvent>()
        let service = ListenService(configuration: configuration, output: DiscardingByteSink()) { events.record($0) }
        let port = try #require(try await service.bind().first?.port)
        let running = Task { await service.run() }
        let speaker = try await connect("127.0.0.1:\(port)")
        let listener = try await connect("127.0.0.1:\(port)")
        try await events.wait(forCount: 2) { if case .clientConnected = $0 { true } else { false } }
        try await speaker.write(ByteBuffer(string: "first\n"))
        try #require(try await clock.nextDeadline() == .milliseconds(100))
        await clock.advance(to: .milliseconds(50))
        try await speaker.write(ByteBuffer(string: "second\n"))
        // The service stamps "second" with the time it came once its bytes are in (the first
        // look at the clock after them): time moves on only after that, so it came at 50 ms.
        let readsWhenSeen = try await arrivals.next { $0.bytes == 13 ? $0.clockReads : nil }
        try await counting.reads.wait { $0 > readsWhenSeen ? () : nil }
        await clock.advance(to: .milliseconds(100))
        #expect(string(try await listener.readFrame(.line)) == "first")
        let secondDue = try await clock.nextDeadline()
        try #require(secondDue == .milliseconds(150), "its own 100 ms from its arrival at 50 ms, not 100 ms after the first went out")
        await clock.advance(to: .milliseconds(150))
        #expect(string(try await listener.readFrame(.line)) == "second")
        await speaker.close()
        await listener.close()
        service.stop()
        _ = await finished(running)
    }

    /// The broadcast test's listener clock: `clock` itself, counting how often the service
    /// reads the time — how the test knows that a message it sent was stamped with its arrival
    /// (by the service's reader task, after the bytes were seen) before it moves time on.
    final class CountingClock: Clock, Sendable {
        typealias Duration = Swift.Duration
        let clock: VirtualClock
        let reads = AsyncMonitor(0)

        init(_ clock: VirtualClock) { self.clock = clock }

        var now: VirtualClock.Instant {
            reads.update { $0 += 1 }
            return clock.now
        }

        var minimumResolution: Duration { .zero }

        func sleep(until deadline: VirtualClock.Instant, tolerance: Duration? = nil) async throws {
            try await clock.sleep(until: deadline, tolerance: tolerance)
        }
    }
}
