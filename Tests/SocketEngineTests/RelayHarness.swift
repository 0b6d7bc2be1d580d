import NIOCore
import Synchronization
import TestSupport
import Testing
@testable import SocketEngine

// The harness of the relay's tests (RelayTests, RelayFaultTimingTests): a relay under test,
// a relay on a virtual clock with one client, and what each end received.

/// A ``RelayService`` bound on loopback port 0 and running, with every event it reported.
struct RelayUnderTest: Sendable {
    let service: RelayService
    let events: EventLog<RelayEvent>
    let port: Int
    let running: Task<RelaySummary, Never>

    /// The epoll relay loop the relays under test share unless one is given its own.
    static let epollLoop = EpollRelayLoop()

    static func start(
        _ listen: String = "127.0.0.1:0", to upstream: String, _ configure: (inout RelayConfiguration) -> Void = { _ in }
    ) async throws -> RelayUnderTest {
        var configuration = RelayConfiguration(listen: try Endpoint(parsing: listen, role: .listener), upstream: try Endpoint(parsing: upstream))
        configuration.connectOptions = .patient
        configuration.epollLoop = RelayUnderTest.epollLoop
        configuration.listenOptions.slotRules.handshakeTimeout = ListenOptions.patient.slotRules.handshakeTimeout
        configure(&configuration)
        let events = EventLog<RelayEvent>()
        let service = RelayService(configuration: configuration) { events.record($0) }
        // A Unix-socket listener has no port.
        let port = try await service.bind().first?.port ?? 0
        let running = Task { await service.run() }
        return RelayUnderTest(service: service, events: events, port: port, running: running)
    }

    /// Stops the relay and returns its summary.
    func stop() async -> RelaySummary {
        service.stop()
        return await finished(running)
    }

    /// Waits until client `id` is reported gone; returns what was reported.
    func disconnected(_ id: Int) async throws -> (bytesUp: Int, bytesDown: Int, duration: Duration, error: SocketEngineError?) {
        try await events.wait(forCount: 1) { event in
            if case .clientDisconnected(let client, _, _, _, _) = event { return client.id == id }
            return false
        }
        for case .clientDisconnected(let client, let up, let down, let duration, let error) in events.events where client.id == id {
            return (up, down, duration, error)
        }
        throw HarnessError("client \(id) was reported gone, then not found")
    }

    /// The connection events so far, one short line each (no data or message events).
    var lines: [String] {
        events.events.compactMap { event in
            switch event {
            case .clientConnected(let client): return "connected \(client.id)"
            case .upstreamConnected(let client, _): return "upstream \(client.id)"
            case .upstreamFailed(let client, let error): return "upstream failed \(client.id) \(error.code)"
            case .finished(let client, let direction): return "finished \(client.id) \(direction)"
            case .fault(let client, let direction, let what): return "fault \(client.id) \(direction) \(what)"
            case .clientDisconnected(let client, let up, let down, _, let error):
                return "disconnected \(client.id) up=\(up) down=\(down)" + (error.map { " \($0.code)" } ?? "")
            case .rejected(_, let reason): return "rejected \(reason)"
            case .data, .message: return nil
            }
        }
    }
}

/// Everything `connection` receives until its peer finishes.
func readAll(_ connection: Connection) async throws -> ByteBuffer {
    var all = ByteBuffer()
    while var chunk = try await connection.read() { all.writeBuffer(&chunk) }
    return all
}

/// Writes `data`, then ends the output (FIN).
func writeAndFinish(_ connection: Connection, _ data: ByteBuffer) async throws {
    try await connection.write(data)
    try await connection.closeWrite()
}

/// How `connection` ends once read on: `eof`, the error code's name (`reset`), or `data` when
/// something still arrives.
func ending(_ connection: Connection) async -> String {
    do {
        return try await connection.read() == nil ? "eof" : "data"
    } catch let error as SocketEngineError {
        return error.code.name
    } catch {
        return "\(error)"
    }
}

/// `count` bytes of a fixed pseudo-random sequence (a reordered, lost or repeated chunk shows).
func patterned(_ count: Int, seed: UInt64) -> ByteBuffer {
    var state = seed &* 0x9E37_79B9_7F4A_7C15
    var buffer = ByteBuffer()
    buffer.reserveCapacity(count + 8)
    while buffer.readableBytes < count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        buffer.writeInteger(state ^ (state >> 29))
    }
    buffer.moveWriterIndex(to: count)
    return buffer
}

/// A relay on a virtual clock with one client connected through it to a test upstream; both
/// ends read everything they get into an ``Inbox`` (the upstream can echo it back).
struct TimedRelay: Sendable {
    let clock: VirtualClock
    let relay: RelayUnderTest
    let upstream: TestServer
    let client: Connection
    let atClient: Inbox
    let atUpstream: Inbox
    let upstreamConnection: Connection

    static func start(
        _ faults: [String], framing: Framing = .line, echo: Bool = false, _ configure: (inout RelayConfiguration) -> Void = { _ in }
    ) async throws -> TimedRelay {
        let faults = try faults.map { try RelayFault(parsing: $0) }
        let clock = VirtualClock()
        let sides = EventLog<(Connection, Inbox)>()
        let upstream = try await TestServer.start { connection in
            let inbox = Inbox(clock: clock)
            sides.record((connection, inbox))
            await inbox.drain(connection, echo: echo)
        }
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") { configuration in
            configuration.faults = faults
            configuration.framing = framing
            configuration.clock = clock.engine
            configure(&configuration)
        }
        let client = try await connect("127.0.0.1:\(relay.port)")
        let atClient = Inbox(clock: clock)
        Task { await atClient.drain(client) }
        let (upstreamConnection, atUpstream) = try await sides.next { $0 }
        try await relay.events.next { event -> Void? in if case .upstreamConnected = event { () } else { nil } }
        return TimedRelay(
            clock: clock, relay: relay, upstream: upstream, client: client, atClient: atClient, atUpstream: atUpstream,
            upstreamConnection: upstreamConnection
        )
    }

    /// Waits until a `timeout` fault has thrown away a unit going `direction`: its first one is
    /// noted ("forwards nothing more") in the same step as it is discarded, so once the note is
    /// seen the relay has read that unit and counted it.
    func discarded(_ direction: RelayDirection) async throws {
        try await relay.events.wait(forCount: 1) { event in
            if case .fault(_, direction, let what) = event { return what.hasPrefix("forwards nothing more") }
            return false
        }
    }

    /// How the client's and the upstream's connections ended (see ``Inbox/end()``).
    func ends() async throws -> [String] {
        [try await atClient.end(), try await atUpstream.end()]
    }

    /// Closes the client and stops the relay and the upstream; returns the relay's summary.
    func stop() async -> RelaySummary {
        await client.close()
        let summary = await relay.stop()
        await upstream.stop()
        return summary
    }
}

/// What one end received, piece by piece as its reads returned them, with the virtual instant
/// of each, and how it ended.
final class Inbox: Sendable {
    struct Piece: Sendable {
        let at: Duration
        let text: String
    }

    private struct State: Sendable {
        var pieces: [Piece] = []
        var text = ""
        var end: String?
    }

    private let state = AsyncMonitor(State())
    private let clock: VirtualClock

    init(clock: VirtualClock) {
        self.clock = clock
    }

    /// Reads `connection` until it ends, sending each piece back when `echo` is set.
    func drain(_ connection: Connection, echo: Bool = false) async {
        let end: String
        do {
            while let chunk = try await connection.read() {
                let piece = Piece(at: clock.elapsed, text: string(chunk) ?? "")
                state.update { $0.pieces.append(piece); $0.text += piece.text }
                if echo { try await connection.write(chunk) }
            }
            end = "eof"
        } catch {
            end = (error as? SocketEngineError)?.code.name ?? "\(error)"
        }
        state.update { $0.end = end }
    }

    var text: String { state.value.text }
    var pieces: [Piece] { state.value.pieces }

    /// The lines received (without their newlines), each with the instant its last byte came.
    var lines: [Piece] {
        var lines: [Piece] = []
        var current = ""
        for piece in pieces {
            for character in piece.text {
                if character == "\n" {
                    lines.append(Piece(at: piece.at, text: current))
                    current = ""
                } else {
                    current.append(character)
                }
            }
        }
        return lines
    }

    /// Waits until everything received adds up to `expected`; returns the instant the last piece
    /// came. Fails at once when something else arrives, or the end comes first.
    @discardableResult
    func wait(for expected: String) async throws -> Duration {
        try await state.wait { state -> Duration? in
            if state.text == expected { return state.pieces.last?.at ?? .zero }
            guard expected.hasPrefix(state.text) else {
                throw HarnessError("received \(state.text.debugDescription), expected \(expected.debugDescription)")
            }
            if let end = state.end { throw HarnessError("ended (\(end)) after \(state.text.debugDescription), expected \(expected.debugDescription)") }
            return nil
        }
    }

    /// Waits for the end: `eof`, or the error code's name (`reset`).
    func end() async throws -> String {
        try await state.wait { $0.end }
    }
}

extension VirtualClock {
    /// Moves time to each deadline something sleeps until, until `inbox` has received
    /// `expected`; returns the instant the last of it came. That instant is exact when nothing
    /// sleeps after the last piece was sent; otherwise time may move on before the inbox has
    /// read a piece, and its instant is only an upper bound of when the piece was sent.
    @discardableResult
    func advance(until inbox: Inbox, has expected: String) async throws -> Duration {
        while true {
            let deadline = try await withThrowingTaskGroup(of: Duration?.self) { group in
                group.addTask { _ = try await inbox.wait(for: expected); return nil }
                group.addTask { try await self.nextDeadline() }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            guard let deadline else { return try await inbox.wait(for: expected) }
            await advance(to: deadline)
        }
    }
}
