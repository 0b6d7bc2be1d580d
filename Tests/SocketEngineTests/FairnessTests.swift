import NIOCore
import NIOPosix
import Synchronization
import TestSupport
import Testing
@testable import SocketEngine

/// One busy client must not keep the others on its event loop waiting (issue 26 point 6): a
/// server on a single event loop, a client flooding it with tiny messages, and a probe whose
/// message must be answered before the server has done `N` more pieces of the flooder's work.
///
/// Checked by order, not time: the flooder's work (an answer, a pong) and the probe's answer
/// are counted where they happen, on the server's event loop, through the engine's own traffic
/// tap and WebSocket events, from the moment the probe's bytes are at the server (what the
/// test's own threads take to send them on a loaded machine is not the server's stall). Counting the replies the flooder receives instead would not show
/// the stall: a burst's answers are written but not flushed while the burst runs, and under
/// load the replies in flight make the count noisy. With the bound, the probe waits for at most
/// a few turns of the loop, each of at most ``ReadBurst/messageLimit`` of the flooder's
/// messages; without it, for whole reads' worth (tens of thousands).
///
/// One at a time (each floods as fast as the machine goes), and with no WebSocket handshake
/// deadline short of the hang guard: the subject is the order, not how long a loaded machine takes.
@Suite(.hangGuard, .serialized) struct FairnessTests {
    /// The flooder's work the server has done, and how much of it came between a probe's bytes
    /// reaching the server and the server answering them.
    final class ServiceOrder: Sendable {
        enum Outcome: Sendable, Equatable {
            /// The server answered the probe after this much of the flooder's work.
            case probeAnswered(afterFloodWork: Int)
            /// The flooder's work reached the limit first.
            case floodReachedLimit
        }

        struct Progress: Sendable {
            var work = 0
            var answers = 0
            var workAtLastAnswer = 0
        }

        private let progress = AsyncMonitor(Progress())

        /// One piece of the flooder's work (on the server's loop).
        func floodWorked() {
            progress.update { $0.work += 1 }
        }

        /// The server answered the probe (on the server's loop).
        func probeAnswered() {
            progress.update { state in
                state.answers += 1
                state.workAtLastAnswer = state.work
            }
        }

        /// Sends the probe's bytes with `send` — once it returns they are in the server's socket
        /// (loopback) — then waits for whichever comes first: the server's next answer to the
        /// probe, or `limit` more pieces of the flooder's work.
        ///
        /// The count starts when the probe's bytes are there to be read, not when the test
        /// decides to send them: the test's own threads may wait for a core on a loaded machine
        /// while the server's loop goes on working for the flooder, and that is not a stall.
        func race(limit count: Int, send: @Sendable () async throws -> Void) async throws -> Outcome {
            let answered = progress.update { $0.answers }
            try await send()
            let start = progress.update { $0.work }
            return try await progress.wait { state in
                if state.answers > answered { return .probeAnswered(afterFloodWork: max(0, state.workAtLastAnswer - start)) }
                return state.work >= start + count ? .floodReachedLimit : nil
            }
        }

        /// Waits until the flooder has had `count` more pieces of work done: the flood is on.
        func floodUnderWay(_ count: Int) async throws {
            let start = progress.update { $0.work }
            try await progress.wait { $0.work >= start + count ? () : nil }
        }
    }

    /// The probe must be answered before this much of the flooder's work: 16 bursts, so that a
    /// probe whose bytes wait a little on a loaded machine still passes, while one turn's reads
    /// without a bound hold several times as much.
    static let allowedWork = 16 * ReadBurst.messageLimit
    /// The same for the WebSocket flooder, whose work shows as pongs: one per nine frames.
    static let allowedPings = allowedWork / 9
    /// A new client of the proxy needs more turns (its upgrade, its upstream connection and
    /// upgrade, a relay each way): 64 bursts, still a fraction of one turn's reads unbounded.
    static let allowedPingsThroughTheProxy = 4 * allowedPings

    /// A client writing `block` again and again (at most `count` times) and reading whatever
    /// comes back; ends when cancelled or when the server closes.
    static func flood(_ connection: Connection, with block: ByteBuffer, count: Int = 4096) -> Task<Void, Never> {
        Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { while (try? await connection.read()) != nil {} }
                group.addTask {
                    for _ in 0..<count where !Task.isCancelled {
                        guard (try? await connection.write(block)) != nil else { return }
                    }
                }
                await group.waitForAll()
            }
        }
    }

    /// Zero-length continuation frames (masked, as a client sends them) after an empty text
    /// frame that starts the message, with a ping after every eight of them so that the
    /// server's progress shows as pongs; about 64 KiB.
    static let continuationFlood: ByteBuffer = {
        var block = ByteBuffer()
        let continuation: [UInt8] = [0x00, 0x80, 0, 0, 0, 0]
        let ping: [UInt8] = [0x89, 0x80, 0, 0, 0, 0]
        for _ in 0..<(64 * 1024 / 54) {
            for _ in 0..<8 { block.writeBytes(continuation) }
            block.writeBytes(ping)
        }
        return block
    }()

    /// A raw WebSocket client: the upgrade request written by hand, the 101 read, then the
    /// first fragment of a text message that never ends.
    static func startEndlessMessage(port: Int) async throws -> Connection {
        let connection = try await connect("127.0.0.1:\(port)")
        try await connection.write(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
        let head = try await connection.read(.delimited(by: Array("\r\n\r\n".utf8), maxLength: 4096))
        #expect(string(head)?.hasPrefix("HTTP/1.1 101") == true)
        try await connection.write(ByteBuffer(bytes: [0x01, 0x80, 0, 0, 0, 0]))
        return connection
    }

    static let upgradeRequest = ByteBuffer(string: "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")

    /// A new WebSocket client as the probe, raced against the flood in two steps, each counted
    /// from the moment its bytes are at the server: the upgrade (answered when the server has
    /// upgraded it) and then one text message (answered when the server sends it back). The
    /// first step that loses the race is the outcome.
    static func probeNewClient(port: Int, text: String, order: ServiceOrder, limit: Int) async throws -> ServiceOrder.Outcome {
        let probe = try await connect("127.0.0.1:\(port)")
        let upgrade = try await order.race(limit: limit) { try await probe.write(upgradeRequest) }
        guard case .probeAnswered = upgrade else { return upgrade }
        let head = try await probe.read(.delimited(by: Array("\r\n\r\n".utf8), maxLength: 4096))
        #expect(string(head)?.hasPrefix("HTTP/1.1 101") == true)
        // A masked text frame (key 0: the payload as it is).
        let frame = ByteBuffer(bytes: [0x81, 0x80 | UInt8(text.utf8.count), 0, 0, 0, 0] + Array(text.utf8))
        let message = try await order.race(limit: limit) { try await probe.write(frame) }
        guard case .probeAnswered = message else { return message }
        let echo = try await probe.read(.exactly(2 + text.utf8.count))
        #expect(string(echo.map { ByteBuffer($0.readableBytesView.dropFirst(2)) }) == text)
        await probe.close()
        return message
    }

    // MARK: listen --echo --framing line

    @Test func aClientSendingEmptyLinesDoesNotStallAConnectedClientOnItsLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let order = ServiceOrder()
        let flooderLabel = Mutex("")
        let probeLabel = Mutex("")
        var configuration = ListenConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:0", role: .listener))
        configuration.mode = .echo
        configuration.framing = .line
        configuration.keepOpen = true
        configuration.options.group = group
        configuration.options.tap = { record in
            guard record.direction == .sent else { return }
            if record.connection == flooderLabel.withLock({ $0 }) {
                order.floodWorked()
            } else if record.connection == probeLabel.withLock({ $0 }) {
                order.probeAnswered()
            }
        }
        let service = ListenService(configuration: configuration, output: CollectingSink())
        let port = try await service.bind()[0].port ?? 0
        let running = Task { await service.run() }

        let probe = try await connect("127.0.0.1:\(port)")
        probeLabel.withLock { $0 = probe.localAddress?.displayString ?? "?" }
        let flooder = try await connect("127.0.0.1:\(port)")
        flooderLabel.withLock { $0 = flooder.localAddress?.displayString ?? "?" }
        let flood = Self.flood(flooder, with: ByteBuffer(repeating: 0x0A, count: 64 * 1024))
        try await order.floodUnderWay(100_000)
        for round in 1...3 {
            let outcome = try await order.race(limit: Self.allowedWork) {
                try await probe.write(ByteBuffer(string: "probe \(round)\n"))
            }
            guard case .probeAnswered(let after) = outcome else {
                Issue.record("round \(round): \(Self.allowedWork) more of the flooder's lines were answered before the probe's")
                break
            }
            #expect(after < Self.allowedWork)
            #expect(string(try await probe.readFrame(.line)) == "probe \(round)")
        }
        flood.cancel()
        await flooder.close()
        await probe.close()
        service.stop()
        _ = await finished(running)
        try await group.shutdownGracefully()
    }

    // MARK: listen ws:// --echo

    @Test func zeroLengthContinuationFramesDoNotStallANewWebSocketClient() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let order = ServiceOrder()
        let flooderLabel = Mutex("")
        var configuration = ListenConfiguration(endpoint: try Endpoint(parsing: "ws://127.0.0.1:0/", role: .listener))
        configuration.mode = .echo
        configuration.keepOpen = true
        configuration.options.group = group
        configuration.options.slotRules.handshakeTimeout = ListenOptions.patient.slotRules.handshakeTimeout
        configuration.options.webSocket.onEvent = { event in
            switch event {
            case .pingAnswered(let connection) where connection == flooderLabel.withLock({ $0 }): order.floodWorked()
            case .upgraded(let connection, _) where connection != flooderLabel.withLock({ $0 }): order.probeAnswered()
            default: break
            }
        }
        configuration.options.tap = { record in
            if record.direction == .sent, string(record.bytes)?.hasPrefix("probe") == true { order.probeAnswered() }
        }
        let service = ListenService(configuration: configuration, output: CollectingSink())
        let port = try await service.bind()[0].port ?? 0
        let running = Task { await service.run() }

        let flooder = try await Self.startEndlessMessage(port: port)
        flooderLabel.withLock { $0 = flooder.localAddress?.displayString ?? "?" }
        let flood = Self.flood(flooder, with: Self.continuationFlood)
        try await order.floodUnderWay(10_000)
        for round in 1...3 {
            // A new client each time: its upgrade goes through the loop the flooder keeps busy.
            let outcome = try await Self.probeNewClient(port: port, text: "probe \(round)", order: order, limit: Self.allowedPings)
            guard case .probeAnswered(let after) = outcome else {
                Issue.record("round \(round): \(Self.allowedPings * 9) more of the flooder's frames were decoded before the new client's message was answered")
                break
            }
            #expect(after < Self.allowedPings)
        }
        flood.cancel()
        await flooder.close()
        service.stop()
        _ = await finished(running)
        try await group.shutdownGracefully()
    }

    // MARK: proxy ws:// → ws://

    @Test func zeroLengthContinuationFramesDoNotStallAnotherClientOfAWebSocketProxy() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let order = ServiceOrder()
        let flooderLabel = Mutex("")
        var upstreamOptions = ListenOptions.patient
        upstreamOptions.webSocket.answer = .echo
        let upstream = try await TestServer.start("ws://127.0.0.1:0/", options: upstreamOptions) { connection in
            _ = try await connection.discardAll()
        }
        let relay = try await RelayUnderTest.start("ws://127.0.0.1:0/", to: "ws://127.0.0.1:\(upstream.port)/") {
            $0.listenOptions.group = group
            $0.connectOptions.group = group
            $0.listenOptions.webSocket.onEvent = { event in
                switch event {
                case .pingAnswered(let connection) where connection == flooderLabel.withLock({ $0 }): order.floodWorked()
                case .upgraded(let connection, _) where connection != flooderLabel.withLock({ $0 }): order.probeAnswered()
                default: break
                }
            }
            $0.listenOptions.tap = { record in
                if record.direction == .sent, string(record.bytes)?.hasPrefix("probe") == true { order.probeAnswered() }
            }
        }

        let flooder = try await Self.startEndlessMessage(port: relay.port)
        flooderLabel.withLock { $0 = flooder.localAddress?.displayString ?? "?" }
        let flood = Self.flood(flooder, with: Self.continuationFlood)
        try await order.floodUnderWay(10_000)
        for round in 1...3 {
            // A new client each time: its upgrade, its upstream connection and its message go
            // through the relay's loop, which the flooder keeps busy.
            let outcome = try await Self.probeNewClient(port: relay.port, text: "probe \(round)", order: order, limit: Self.allowedPingsThroughTheProxy)
            guard case .probeAnswered(let after) = outcome else {
                Issue.record("round \(round): \(Self.allowedPingsThroughTheProxy * 9) more of the flooder's frames were decoded before the new client's message came back")
                break
            }
            #expect(after < Self.allowedPingsThroughTheProxy)
        }
        flood.cancel()
        await flooder.close()
        _ = await relay.stop()
        await upstream.stop()
        try await group.shutdownGracefully()
    }
}
