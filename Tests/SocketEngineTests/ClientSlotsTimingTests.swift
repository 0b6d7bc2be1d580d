import NIOCore
import Synchronization
import TestSupport
import Testing
@testable import SocketEngine

/// How long a client may hold a server's place, in virtual time: real sockets on loopback with a
/// ``VirtualClock`` as the listener's (or relay's) clock. The idle timeout closes a client exactly
/// its timeout after its last byte, on the event loop and on the epoll relay loop alike; a full
/// server gives a newcomer the place of a client below the minimum rate once that client has
/// had its window, and says what holds the places when it refuses.
@Suite(.hangGuard)
struct ClientSlotsTimingTests {
    /// `listen --echo -k` on a virtual clock, with what it reported.
    struct Echo {
        let clock = VirtualClock()
        let service: ListenService
        let events = EventLog<ListenEvent>()
        let port: Int
        let running: Task<ListenSummary, Never>

        init(_ configure: (inout ListenConfiguration) -> Void) async throws {
            var configuration = ListenConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:0", role: .listener))
            configuration.mode = .echo
            configuration.keepOpen = true
            configuration.options.clock = clock.engine
            configure(&configuration)
            let events = events
            service = ListenService(configuration: configuration, output: DiscardingByteSink()) { events.record($0) }
            port = try #require(try await service.bind().first?.port)
            let service = service
            running = Task { await service.run() }
        }

        /// The error client `id` left with.
        func departure(_ id: Int) async throws -> SocketEngineError? {
            try await events.next { event -> SocketEngineError?? in
                if case .clientDisconnected(let client, _, _, _, let error) = event, client.id == id { return .some(error) }
                return nil
            }
        }

        func refusal() async throws -> String {
            try await events.next { event -> String? in
                if case .rejected(_, let reason) = event { return reason.description }
                return nil
            }
        }

        func stop() async {
            service.stop()
            _ = await finished(running)
        }
    }

    /// Sends `text` and waits for its echo.
    func roundTrip(_ client: Connection, _ text: String) async throws {
        try await client.write(ByteBuffer(string: text))
        #expect(string(try await client.read(.exactly(text.utf8.count))) == text)
    }

    // MARK: Idle timeout

    /// `--idle-timeout 30s` on an echoing listener: a client that last sent (and was answered)
    /// at 10 s is closed at exactly 40 s, and says why.
    @Test func anIdleClientIsClosedItsTimeoutAfterItsLastByte() async throws {
        let echo = try await Echo { $0.options.slotRules.idleTimeout = .seconds(30) }
        let client = try await connect("127.0.0.1:\(echo.port)")
        try await roundTrip(client, "hi")
        try await echo.clock.waitForSleep(until: .seconds(30))
        await echo.clock.advance(to: .seconds(10))
        try await roundTrip(client, "again")
        await echo.clock.advance(to: .seconds(30))
        #expect(try await firstOf(
            ("asleep until 40 s", { try await echo.clock.waitForSleep(until: .seconds(40)) }),
            ("gone at 30 s", { _ = try await echo.departure(1) })
        ) == "asleep until 40 s")
        await echo.clock.advance(to: .milliseconds(39_999))
        let leftEarly = echo.events.events.contains { if case .clientDisconnected = $0 { true } else { false } }
        #expect(!leftEarly, "still connected at 39.999 s")
        await echo.clock.advance(to: .seconds(40))
        #expect(await ending(client) == "eof")
        let error = try await echo.departure(1)
        #expect(error?.code == .idleTimeout)
        #expect(error?.message.hasSuffix(": idle for 30s") == true, "\(String(describing: error))")
        await client.close()
        await echo.stop()
    }

    /// The same through the proxy, whose plain TCP client is relayed by the epoll relay loop: the
    /// epoll relay loop's traffic counts as activity (a byte at 10 s), and the timeout ends the pair
    /// at 40 s with its reason.
    @Test func anIdleEpollRelayedClientIsClosedItsTimeoutAfterItsLastByte() async throws {
        let before = RelayUnderTest.epollLoop?.pairsAdded ?? 0
        let relay = try await TimedRelay.start([], framing: .raw, echo: true) { $0.listenOptions.slotRules.idleTimeout = .seconds(30) }
        try await relay.client.write(ByteBuffer(string: "hi"))
        _ = try await relay.atClient.wait(for: "hi")
        try await relay.clock.waitForSleep(until: .seconds(30))
        // Handed to the epoll relay loop by now? Wait for it: the byte at 10 s must go through it.
        try await waitUntil { (RelayUnderTest.epollLoop?.pairsAdded ?? 0) > before }
        await relay.clock.advance(to: .seconds(10))
        try await relay.client.write(ByteBuffer(string: "!"))
        _ = try await relay.atClient.wait(for: "hi!")
        await relay.clock.advance(to: .seconds(30))
        #expect(try await firstOf(
            ("asleep until 40 s", { try await relay.clock.waitForSleep(until: .seconds(40)) }),
            ("gone at 30 s", { _ = try await relay.relay.disconnected(1) })
        ) == "asleep until 40 s")
        await relay.clock.advance(to: .seconds(40))
        let gone = try await relay.relay.disconnected(1)
        #expect(gone.error?.code == .idleTimeout)
        #expect(gone.error?.message.hasSuffix(": idle for 30s") == true, "\(String(describing: gone.error))")
        #expect(try await relay.atClient.end() == "eof")
        _ = await relay.stop()
    }

    // MARK: Making room

    /// `--max-clients 1`: a newcomer at 9.99 s is refused (the one client has not had its
    /// window), and the line says what holds the place; one at 10 s takes the place of the
    /// client, which moved 2 bytes in those 10 s.
    @Test func aFullListenerGivesANewcomerThePlaceOfASlowClientAfterItsWindow() async throws {
        let echo = try await Echo { $0.options.maximumClients = 1 }
        let slow = try await connect("127.0.0.1:\(echo.port)")
        try await roundTrip(slow, "a")
        await echo.clock.advance(to: .milliseconds(9990))
        let early = try await connect("127.0.0.1:\(echo.port)")
        #expect(await ending(early) == "eof")
        #expect(try await echo.refusal() == "max clients reached (1): 1 connected less than 10s ago")
        await echo.clock.advance(to: .seconds(10))
        let newcomer = try await connect("127.0.0.1:\(echo.port)")
        #expect(await ending(slow) == "eof")
        let error = try await echo.departure(1)
        #expect(error?.code == .clientShed)
        #expect(error?.message.hasSuffix(": made room for a new client: 2 bytes in 10s, below 500 bytes/s") == true, "\(String(describing: error))")
        try await roundTrip(newcomer, "served")
        for client in [slow, early, newcomer] { await client.close() }
        await echo.stop()
    }

    /// The same through the proxy, the slow client spliced: its place goes to the newcomer,
    /// whose traffic is relayed.
    @Test func aFullRelayGivesANewcomerThePlaceOfASlowEpollRelayedClient() async throws {
        let relay = try await TimedRelay.start([], framing: .raw, echo: true) { $0.listenOptions.maximumClients = 1 }
        try await relay.client.write(ByteBuffer(string: "a"))
        _ = try await relay.atClient.wait(for: "a")
        await relay.clock.advance(to: .seconds(10))
        let newcomer = try await connect("127.0.0.1:\(relay.relay.port)")
        let gone = try await relay.relay.disconnected(1)
        #expect(gone.error?.code == .clientShed, "\(String(describing: gone.error))")
        #expect(try await relay.atClient.end() == "eof")
        try await newcomer.write(ByteBuffer(string: "served"))
        #expect(string(try await newcomer.read(.exactly(6))) == "served")
        await newcomer.close()
        _ = await relay.stop()
    }

    /// With a minimum rate of 0 nobody is made to leave: the newcomer is refused however long
    /// the one client has been silent, and the line says so.
    @Test func withoutAMinimumRateANewcomerIsRefused() async throws {
        let echo = try await Echo {
            $0.options.maximumClients = 1
            $0.options.slotRules.minimumRate = 0
        }
        let quiet = try await connect("127.0.0.1:\(echo.port)")
        try await roundTrip(quiet, "a")
        await echo.clock.advance(to: .seconds(3600))
        let newcomer = try await connect("127.0.0.1:\(echo.port)")
        #expect(await ending(newcomer) == "eof")
        #expect(try await echo.refusal() == "max clients reached (1): 1 idle for 10s or more")
        try await roundTrip(quiet, "still here")
        for client in [quiet, newcomer] { await client.close() }
        await echo.stop()
    }
}

/// Which of two events comes first: the name of the one that did (the other is cancelled).
func firstOf(
    _ one: (String, @Sendable () async throws -> Void), _ other: (String, @Sendable () async throws -> Void)
) async throws -> String {
    try await withThrowingTaskGroup(of: String.self) { group in
        for (name, event) in [one, other] {
            group.addTask {
                try await event()
                return name
            }
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw HarnessError("neither event came") }
        return first
    }
}

/// Waits until `condition` holds, looking every millisecond (for state that reports no event);
/// bounded by the suite's hang guard.
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    while !condition() {
        try await Task.sleep(for: .milliseconds(1))
    }
}
