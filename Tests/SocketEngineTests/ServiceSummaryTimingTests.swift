import NIOCore
import TestSupport
import Testing
@testable import SocketEngine

/// The duration in the summaries of `listen --keep-open` and `proxy`, in virtual time: the time
/// the service served, on the clock it was given (``ServiceListeners`` times it), from its run
/// to its stop. Each service is bound at 0 s, run from 5 s, and stopped at 12 s: 7 s exactly.
/// Timed from the bind or the clock's zero it would be 12 s; on the real clock, milliseconds.
@Suite(.hangGuard)
struct ServiceSummaryTimingTests {
    @Test func theListenSummaryLastsFromTheRunToTheStop() async throws {
        let clock = VirtualClock()
        var configuration = ListenConfiguration(endpoint: try Endpoint(parsing: "127.0.0.1:0", role: .listener))
        configuration.mode = .discard
        configuration.keepOpen = true
        configuration.options = .patient
        configuration.options.clock = clock.engine
        let events = EventLog<ListenEvent>()
        let service = ListenService(configuration: configuration, output: DiscardingByteSink()) { events.record($0) }
        let port = try #require(try await service.bind().first?.port)
        await clock.advance(to: .seconds(5))
        let running = Task { await service.run() }
        // A client admitted: the service is serving (its run has begun).
        let client = try await connect("127.0.0.1:\(port)")
        try await events.next { if case .clientConnected = $0 { () } else { nil } }
        await clock.advance(to: .seconds(12))
        service.stop()
        let summary = await finished(running)
        #expect(summary.duration == .seconds(7))
        await client.close()
    }

    @Test func theRelaySummaryLastsFromTheRunToTheStop() async throws {
        let clock = VirtualClock()
        let upstream = try await TestServer.start { connection in
            while let chunk = try await connection.read() { try await connection.write(chunk) }
        }
        var configuration = RelayConfiguration(
            listen: try Endpoint(parsing: "127.0.0.1:0", role: .listener), upstream: try Endpoint(parsing: "127.0.0.1:\(upstream.port)")
        )
        configuration.connectOptions = .patient
        configuration.listenOptions.slotRules.handshakeTimeout = ListenOptions.patient.slotRules.handshakeTimeout
        configuration.clock = clock.engine
        let events = EventLog<RelayEvent>()
        let service = RelayService(configuration: configuration) { events.record($0) }
        let port = try #require(try await service.bind().first?.port)
        await clock.advance(to: .seconds(5))
        let running = Task { await service.run() }
        let client = try await connect("127.0.0.1:\(port)")
        try await events.next { if case .clientConnected = $0 { () } else { nil } }
        await clock.advance(to: .seconds(12))
        service.stop()
        let summary = await finished(running)
        #expect(summary.duration == .seconds(7) && summary.clients == 1)
        await client.close()
        await upstream.stop()
    }
}
