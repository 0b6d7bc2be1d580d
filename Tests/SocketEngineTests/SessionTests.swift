import NIOCore
import Synchronization
import TestSupport
import Testing
@testable import SocketEngine

/// Input for a session: fixed chunks, then either end of input or silence until cancelled.
struct ScriptedSource: ByteSource {
    let queue = AsyncBoundedQueue<ByteBuffer>(capacity: 64)

    init(_ chunks: [String], thenEnd: Bool) async throws {
        for chunk in chunks { try await queue.push(ByteBuffer(string: chunk)) }
        if thenEnd { queue.finish() }
    }

    func next() async throws -> ByteBuffer? { try await queue.next() }
}

/// Output that remembers everything written.
final class CollectingSink: ByteSink, Sendable {
    private let bytes = Mutex<[UInt8]>([])
    func write(_ data: ByteBuffer) async throws { bytes.withLock { $0 += data.readableBytesView } }
    var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
}

/// Events seen by a session, for assertions.
final class EventLog<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])
    func append(_ event: Event) { events.withLock { $0.append(event) } }
    var all: [Event] { events.withLock { $0 } }
}

@Suite struct ClientSessionTests {
    @Test func inputIsFramedSentAndRepliesPrintedOnePerLine() async throws {
        let server = try await TestServer.start { connection in
            while let frame = try await connection.readFrame(.lengthPrefixed(width: 4, bigEndian: true)) {
                try await connection.write(try Framing.lengthPrefixed(width: 4, bigEndian: true).encode(frame))
            }
        }
        var configuration = ClientSessionConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:\(server.port)"))
        configuration.framing = .lengthPrefixed(width: 4, bigEndian: true)
        let output = CollectingSink()
        let session = ClientSession(configuration: configuration, input: try await ScriptedSource(["{\"a\":1}\n{\"b\"", ":2}\n"], thenEnd: true), output: output)
        let summary = await session.run()
        #expect(summary.error == nil)
        #expect(summary.end == .completed)
        #expect(output.text == "{\"a\":1}\n{\"b\":2}\n")
        #expect(summary.bytesSent == 2 * (4 + 7))
        #expect(summary.bytesReceived == summary.bytesSent)
        await server.stop()
    }

    @Test func aSilentPeerIsDeclaredDeadByTheHeartbeat() async throws {
        let heartbeats = Mutex(0)
        let server = try await TestServer.start { connection in
            while let frame = try await connection.readFrame(.line) {
                if string(frame) == "PING" { heartbeats.withLock { $0 += 1 } }
            }
        }
        var configuration = ClientSessionConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:\(server.port)"))
        configuration.framing = .line
        configuration.heartbeat = HeartbeatConfiguration(payload: ByteBuffer(string: "PING"), interval: .milliseconds(100), allowedMisses: 3)
        let events = EventLog<SessionEvent>()
        let clock = ContinuousClock()
        let started = clock.now
        let summary = await ClientSession(configuration: configuration, input: try await ScriptedSource([], thenEnd: false), output: CollectingSink()) {
            events.append($0)
        }.run()
        let elapsed = clock.now - started
        // Invariants only: wake-up times inside this test process depend on what else the
        // suite runs (the CLI test checks the exact count against a separate process).
        #expect(summary.error?.code == .peerUnresponsive)
        #expect(elapsed >= .milliseconds(300), "declared dead before 3 intervals of silence")
        #expect(elapsed < .seconds(30), "the session ends (on a loaded machine wake-ups run late)")
        await server.stop()
    }

    @Test func idleTimeoutEndsAQuietSession() async throws {
        let server = try await TestServer.start { connection in
            while try await connection.read() != nil {}
        }
        var configuration = ClientSessionConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:\(server.port)"))
        configuration.idleTimeout = .milliseconds(200)
        let summary = await ClientSession(configuration: configuration, input: try await ScriptedSource(["hi"], thenEnd: false), output: CollectingSink()).run()
        #expect(summary.end == .idle)
        #expect(summary.error == nil)
        await server.stop()
    }

    @Test func refusedWithoutReconnectFailsWithTheAddress() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        let configuration = ClientSessionConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:\(port)"))
        let summary = await ClientSession(configuration: configuration, input: EmptyByteSource(), output: CollectingSink()).run()
        #expect(summary.error?.code == .connectionRefused)
        #expect(summary.connections == 0)
        withExtendedLifetime(closed) {}
    }

    @Test func reconnectGivesUpAfterTheConfiguredAttempts() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        var configuration = ClientSessionConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:\(port)"))
        configuration.reconnect = ReconnectPolicy(maximumAttempts: 2, initialDelay: .milliseconds(20))
        let events = EventLog<SessionEvent>()
        let summary = await ClientSession(configuration: configuration, input: try await ScriptedSource([], thenEnd: false), output: CollectingSink()) {
            events.append($0)
        }.run()
        #expect(summary.error?.message.contains("gave up after 2 reconnect attempts") == true)
        let delays = events.all.compactMap { event -> Duration? in
            if case .reconnecting(let delay, _, _) = event { return delay }
            return nil
        }
        #expect(delays == [.milliseconds(20), .milliseconds(40)])
        withExtendedLifetime(closed) {}
    }
}

@Suite struct ListenServiceTests {
    func startService(_ configure: (inout ListenConfiguration) -> Void) async throws -> (ListenService, Int, Task<ListenSummary, Never>, EventLog<ListenEvent>) {
        var configuration = ListenConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:0", role: .listener))
        configure(&configuration)
        let events = EventLog<ListenEvent>()
        let service = ListenService(configuration: configuration, output: CollectingSink()) { events.append($0) }
        let port = try await service.bind()[0].port ?? 0
        let task = Task { await service.run() }
        return (service, port, task, events)
    }

    @Test func echoAnswersEachFrameAfterTheDelayFromItsArrival() async throws {
        let (service, port, task, _) = try await startService {
            $0.mode = .echo
            $0.framing = .crlf
            $0.delay = .milliseconds(100)
            $0.keepOpen = true
        }
        let client = try await connect("127.0.0.1:\(port)")
        let clock = ContinuousClock()
        let started = clock.now
        // Twenty pipelined messages, answered in order, none before its delay. (That the delays
        // are not cumulative is timed by SendCommandTests.delaysAreNotCumulative, in processes
        // of their own: inside this one, wake-ups wait for whatever else the suite runs.)
        try await client.write(ByteBuffer(string: (0..<20).map { "m\($0)\r\n" }.joined()))
        for index in 0..<20 {
            #expect(string(try await client.readFrame(.crlf, timeout: .seconds(15))) == "m\(index)")
            if index == 0 { #expect(clock.now - started >= .milliseconds(100)) }
        }
        await client.close()
        service.stop()
        let summary = await task.value
        #expect(summary.clients == 1)
        let sent = (0..<20).map { "m\($0)\r\n" }.joined().utf8.count
        #expect(summary.bytesIn == sent && summary.bytesOut == sent)
    }

    @Test func broadcastSendsEachMessageToEveryOtherClient() async throws {
        let (service, port, task, events) = try await startService {
            $0.mode = .broadcast
            $0.framing = .line
            $0.keepOpen = true
        }
        let alice = try await connect("127.0.0.1:\(port)")
        let bob = try await connect("127.0.0.1:\(port)")
        let carol = try await connect("127.0.0.1:\(port)")
        // A broadcast goes to the clients connected at that moment: wait until all three are.
        let deadline = ContinuousClock.now + .seconds(10)
        while events.all.filter({ if case .clientConnected = $0 { true } else { false } }).count < 3 {
            guard ContinuousClock.now < deadline else { Issue.record("clients not registered"); return }
            try await Task.sleep(for: .milliseconds(10))
        }
        try await alice.write(ByteBuffer(string: "hello from alice\n"))
        #expect(string(try await bob.readFrame(.line, timeout: .seconds(15))) == "hello from alice")
        #expect(string(try await carol.readFrame(.line, timeout: .seconds(15))) == "hello from alice")
        await #expect(throws: SocketEngineError.self) { _ = try await alice.readFrame(.line, timeout: .milliseconds(200)) }
        for client in [alice, bob, carol] { await client.close() }
        service.stop()
        _ = await task.value
    }

    @Test func respondAnswersEveryRequestWithTheCannedBody() async throws {
        let (service, port, task, _) = try await startService {
            $0.mode = .respond(ByteBuffer(string: #"{"ok":true}"#))
            $0.framing = .lengthPrefixed(width: 2, bigEndian: true)
        }
        let client = try await connect("127.0.0.1:\(port)")
        try await client.write(ByteBuffer(bytes: [0, 1, 0x41, 0, 1, 0x42]))
        for _ in 0..<2 {
            #expect(string(try await client.readFrame(.lengthPrefixed(width: 2, bigEndian: true), timeout: .seconds(15))) == #"{"ok":true}"#)
        }
        await client.close()
        let summary = await task.value
        #expect(summary.clients == 1)
        _ = service
    }

    @Test func clientsBeyondTheLimitAndDeniedPeersAreRefused() async throws {
        let (service, port, task, events) = try await startService {
            $0.mode = .echo
            $0.keepOpen = true
            $0.options.maximumClients = 1
            $0.options.access = AccessPolicy(deny: [try! AddressRange(parsing: "127.0.0.9")])
        }
        let first = try await connect("127.0.0.1:\(port)")
        try await Task.sleep(for: .milliseconds(100))
        let second = try await connect("127.0.0.1:\(port)")
        #expect(try await second.read(timeout: .seconds(15)) == nil)
        await first.close()
        try await Task.sleep(for: .milliseconds(100))
        var options = ConnectOptions()
        options.source = "127.0.0.9"
        let denied = try await connect("127.0.0.1:\(port)", options: options)
        #expect(try await denied.read(timeout: .seconds(15)) == nil)
        service.stop()
        let summary = await task.value
        #expect(summary.rejected == 2)
        let reasons = events.all.compactMap { event -> String? in
            if case .rejected(_, let reason) = event { return reason }
            return nil
        }
        #expect(reasons == ["--max-clients 1 reached", "matches --deny 127.0.0.9"])
    }

    @Test func withoutKeepOpenTheServiceEndsWhenTheFirstClientLeaves() async throws {
        let (_, port, task, _) = try await startService { $0.mode = .discard }
        let client = try await connect("127.0.0.1:\(port)")
        try await client.write(ByteBuffer(repeating: 1, count: 100_000))
        await client.close()
        let summary = await task.value
        #expect(summary.bytesIn == 100_000)
    }
}
