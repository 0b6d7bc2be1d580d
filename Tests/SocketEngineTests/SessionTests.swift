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

/// Output that remembers everything written, and lets a test wait for it.
final class CollectingSink: ByteSink, Sendable {
    private let bytes = AsyncMonitor<[UInt8]>([])
    func write(_ data: ByteBuffer) async throws { bytes.update { $0 += data.readableBytesView } }
    var text: String { String(decoding: bytes.value, as: UTF8.self) }

    /// Waits until everything written so far reads `text` (or more, starting with it).
    func wait(forText text: String) async throws {
        let expected = Array(text.utf8)
        try await bytes.wait { $0.starts(with: expected) ? () : nil }
    }
}

@Suite(.hangGuard) struct ClientSessionTests {
    @Test func inputIsFramedSentAndRepliesPrintedOnePerLine() async throws {
        let server = try await TestServer.start { connection in
            while let frame = try await connection.readFrame(.lengthPrefixed(width: 4, bigEndian: true)) {
                try await connection.write(try Framing.lengthPrefixed(width: 4, bigEndian: true).encode(frame))
            }
        }
        var configuration = ClientSessionConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:\(server.port)"))
        configuration.connect = .patient
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

    @Test func refusedWithoutReconnectFailsWithTheAddress() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        let configuration = ClientSessionConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:\(port)"))
        let summary = await ClientSession(configuration: configuration, input: EmptyByteSource(), output: CollectingSink()).run()
        #expect(summary.error?.code == .connectionRefused)
        #expect(summary.connections == 0)
        withExtendedLifetime(closed) {}
    }

    /// stop() (SIGINT): the session ends at once, in order — the connection closed, the totals
    /// kept — whether it is relaying, still connecting, or waiting to reconnect.
    @Test func stopEndsARelayingSessionInterruptedWithItsTotals() async throws {
        let server = try await TestServer.start { connection in
            while let buffer = try await connection.read(.available) { try await connection.write(buffer) }
        }
        var configuration = ClientSessionConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:\(server.port)"))
        configuration.connect = .patient
        let output = CollectingSink()
        // Input that never ends: only stop() can end this session.
        let session = ClientSession(configuration: configuration, input: try await ScriptedSource(["hello\n"], thenEnd: false), output: output)
        let run = Task { await session.run() }
        try await output.wait(forText: "hello\n")
        session.stop()
        let summary = await finished(run)
        #expect(summary.end == .interrupted && summary.interrupted && summary.error == nil)
        #expect(summary.bytesSent == 6 && summary.bytesReceived == 6)
        #expect(summary.logLines.contains(.note("stopped: sent 6 bytes, received 6 bytes over 1 connection in \(summary.duration.formatted)")))
        await server.stop()
    }

    @Test func stopEndsASessionWaitingToReconnect() async throws {
        let closed = try ClosedPort()
        var configuration = ClientSessionConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:\(closed.port)"))
        configuration.reconnect = ReconnectPolicy(maximumAttempts: 1000, maximumDelay: .seconds(3600), jitter: 0)
        let reconnecting = AsyncMonitor(false)
        let session = ClientSession(configuration: configuration, input: try await ScriptedSource([], thenEnd: false), output: CollectingSink()) { event in
            if case .reconnecting = event { reconnecting.update { $0 = true } }
        }
        let run = Task { await session.run() }
        try await reconnecting.wait { $0 ? () : nil }
        session.stop()
        let summary = await finished(run)
        #expect(summary.end == .interrupted && summary.error == nil && summary.connections == 0)
        withExtendedLifetime(closed) {}
    }
}

@Suite(.hangGuard) struct ListenServiceTests {
    func startService(_ configure: (inout ListenConfiguration) -> Void) async throws -> (ListenService, Int, Task<ListenSummary, Never>, EventLog<ListenEvent>) {
        var configuration = ListenConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:0", role: .listener))
        configure(&configuration)
        let events = EventLog<ListenEvent>()
        let service = ListenService(configuration: configuration, output: CollectingSink()) { events.record($0) }
        let port = try await service.bind()[0].port ?? 0
        let task = Task { await service.run() }
        return (service, port, task, events)
    }

    /// Pipelined messages to a delaying echo come back whole and in order (when each is due is
    /// checked in virtual time by ConnectionTimingTests and ExchangeTimingTests).
    @Test func echoWithADelayAnswersEveryFrameInOrder() async throws {
        let (service, port, task, _) = try await startService {
            $0.mode = .echo
            $0.framing = .crlf
            $0.delay = .milliseconds(100)
            $0.keepOpen = true
        }
        let client = try await connect("127.0.0.1:\(port)")
        try await client.write(ByteBuffer(string: (0..<20).map { "m\($0)\r\n" }.joined()))
        for index in 0..<20 {
            #expect(string(try await client.readFrame(.crlf)) == "m\(index)")
        }
        await client.close()
        service.stop()
        let summary = await finished(task)
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
        try await events.wait(forCount: 3) { if case .clientConnected = $0 { true } else { false } }
        try await alice.write(ByteBuffer(string: "hello from alice\n"))
        #expect(string(try await bob.readFrame(.line)) == "hello from alice")
        #expect(string(try await carol.readFrame(.line)) == "hello from alice")
        // Nothing comes back to the sender: bob's message is the next thing alice reads.
        try await bob.write(ByteBuffer(string: "hello from bob\n"))
        #expect(string(try await alice.readFrame(.line)) == "hello from bob")
        for client in [alice, bob, carol] { await client.close() }
        service.stop()
        _ = await finished(task)
    }

    @Test func respondAnswersEveryRequestWithTheCannedBody() async throws {
        let (service, port, task, _) = try await startService {
            $0.mode = .respond(ByteBuffer(string: #"{"ok":true}"#))
            $0.framing = .lengthPrefixed(width: 2, bigEndian: true)
        }
        let client = try await connect("127.0.0.1:\(port)")
        try await client.write(ByteBuffer(bytes: [0, 1, 0x41, 0, 1, 0x42]))
        for _ in 0..<2 {
            #expect(string(try await client.readFrame(.lengthPrefixed(width: 2, bigEndian: true))) == #"{"ok":true}"#)
        }
        await client.close()
        let summary = await finished(task)
        #expect(summary.clients == 1)
        _ = service
    }

    @Test func clientsBeyondTheLimitAndDeniedPeersAreRefused() async throws {
        let (service, port, task, events) = try await startService {
            $0.mode = .echo
            $0.keepOpen = true
            $0.options.maximumClients = 1
            // Refused however long the first client has been there (no room made for slowness).
            $0.options.slotRules.minimumRate = 0
            $0.options.access = AccessPolicy(deny: [try! AddressRange(parsing: "127.0.0.9")])
        }
        let first = try await connect("127.0.0.1:\(port)")
        try await events.wait(forCount: 1) { if case .clientConnected = $0 { true } else { false } }
        let second = try await connect("127.0.0.1:\(port)")
        #expect(try await second.read() == nil)
        await first.close()
        try await events.wait(forCount: 1) { if case .clientDisconnected = $0 { true } else { false } }
        var options = ConnectOptions.patient
        options.source = try SourceAddress(parsing: "127.0.0.9")
        let denied = try await connect("127.0.0.1:\(port)", options: options)
        #expect(try await denied.read() == nil)
        service.stop()
        let summary = await finished(task)
        #expect(summary.rejected == 2)
        let reasons = events.events.compactMap { event -> String? in
            if case .rejected(_, let reason) = event { return reason.description }
            return nil
        }
        #expect(reasons.count == 2 && reasons.last == "matches the denied addresses 127.0.0.9")
        #expect(reasons.first?.hasPrefix("max clients reached (1): 1 ") == true, "\(reasons)")
    }

    @Test func withoutKeepOpenTheServiceEndsWhenTheFirstClientLeaves() async throws {
        let (_, port, task, _) = try await startService { $0.mode = .discard }
        let client = try await connect("127.0.0.1:\(port)")
        try await client.write(ByteBuffer(repeating: 1, count: 100_000))
        await client.close()
        let summary = await finished(task)
        #expect(summary.bytesIn == 100_000)
    }
}
