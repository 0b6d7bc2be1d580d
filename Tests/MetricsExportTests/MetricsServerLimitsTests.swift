import NIOCore
import NIOEmbedded
import NIOHTTP1
import SocketEngine
import Testing
@testable import MetricsExport
import TestSupport

/// The metrics endpoint keeps within its ``MetricsServerLimits``: a connection with no complete
/// request is closed after the idle timeout (in the event loop's virtual time), scrapers beyond
/// the connection limit or the descriptor reserve are closed on arrival, and each is reported.
@Suite(.hangGuard) struct MetricsServerLimitsTests {
    /// One scraper's connection on a testing loop, through the server's HTTP pipeline.
    struct Scraper {
        let loop = NIOAsyncTestingEventLoop()
        let channel: NIOAsyncTestingChannel
        let events = EventLog<MetricsServerEvent>()

        init(idleTimeout: Duration) async throws {
            channel = NIOAsyncTestingChannel(loop: loop)
            let (channel, events) = (channel, events)
            let registry = MetricsRegistry()
            try await loop.executeInContext {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                try channel.pipeline.syncOperations.addHandler(
                    MetricsHTTPHandler(registry: registry, idleTimeout: idleTimeout) { events.record($0) }
                )
            }
            try await channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 40000)).get()
        }

        func advance(to time: Duration) async {
            await loop.advanceTime(to: .uptimeNanoseconds(UInt64(time.nanosecondsClamped)))
        }

        func send(_ text: String) async throws {
            try await channel.writeInbound(ByteBuffer(string: text))
        }

        /// The response bytes written so far.
        func written() async throws -> String {
            var text = ""
            while let buffer = try await channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
            return text
        }
    }

    /// Half a request at 3 s, then nothing: closed exactly 10 s after it connected, and reported.
    @Test func aConnectionWithoutACompleteRequestIsClosedAtTheIdleTimeout() async throws {
        let scraper = try await Scraper(idleTimeout: .seconds(10))
        await scraper.advance(to: .seconds(3))
        try await scraper.send("GET /metrics HTTP/1.1\r\nHost: local")
        await scraper.advance(to: .milliseconds(9999))
        #expect(scraper.channel.isActive)
        await scraper.advance(to: .seconds(10))
        #expect(!scraper.channel.isActive)
        #expect(scraper.events.events == [.closedIdle(peer: "127.0.0.1:40000", after: .seconds(10))])
        #expect(scraper.events.events.first?.logLine == .note("metrics: closed 127.0.0.1:40000: no complete request within 10s"))
    }

    /// A kept-alive scraper is answered, then has another 10 s from its answer for the next
    /// request: a request at 4 s keeps it until 14 s.
    @Test func eachAnswerGivesTheNextRequestTheWholeTimeout() async throws {
        let scraper = try await Scraper(idleTimeout: .seconds(10))
        await scraper.advance(to: .seconds(4))
        try await scraper.send("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try await scraper.written().hasPrefix("HTTP/1.1 200 OK"))
        await scraper.advance(to: .milliseconds(13_999))
        #expect(scraper.channel.isActive)
        await scraper.advance(to: .seconds(14))
        #expect(!scraper.channel.isActive)
    }

    /// `maximumConnections` 2: a third scraper is closed on arrival and reported; once one has
    /// gone, a scrape is answered again.
    @Test func scrapersBeyondTheLimitAreRefused() async throws {
        var limits = MetricsServerLimits()
        limits.maximumConnections = 2
        // Only the connection limit: the held two are not cut, however slow the machine.
        limits.idleTimeout = .seconds(3600)
        limits.descriptorReserve = 0
        let events = EventLog<MetricsServerEvent>()
        let server = try await MetricsServer.start(try MetricsListenAddress(parsing: ":0"), registry: MetricsRegistry(), limits: limits) {
            events.record($0)
        }
        let authority = "127.0.0.1:\(server.localAddress.port ?? 0)"
        let held = [try await connect(authority), try await connect(authority)]
        let third = try await connect(authority)
        #expect(try await third.read() == nil)
        let reason = try await events.next { event -> String? in
            if case .refused(_, let reason) = event { return reason }
            return nil
        }
        #expect(reason == "2 connections open (the most at once)")
        await held[0].close()
        // Its close reaches the server some time after: a scrape may be refused until then.
        var answered = false
        for _ in 0..<10_000 where !answered {
            answered = (try? await HTTPResponse.fetch(server.url))?.status == 200
        }
        #expect(answered)
        await held[1].close()
        await third.close()
        await server.close()
    }

    /// With fewer descriptors free than the reserve, a scraper is refused, saying how many.
    @Test func scrapersAreRefusedWhenTheReserveIsReached() async throws {
        var limits = MetricsServerLimits()
        limits.descriptorReserve = 1 << 40
        let events = EventLog<MetricsServerEvent>()
        let server = try await MetricsServer.start(try MetricsListenAddress(parsing: ":0"), registry: MetricsRegistry(), limits: limits) {
            events.record($0)
        }
        let scraper = try await connect("127.0.0.1:\(server.localAddress.port ?? 0)")
        #expect(try await scraper.read() == nil)
        let reason = try await events.next { event -> String? in
            if case .refused(_, let reason) = event { return reason }
            return nil
        }
        #expect(reason.hasPrefix("only ") && reason.hasSuffix(" file descriptors free, \(1 << 40) kept for the service"), "\(reason)")
        #expect(MetricsServerLimits.reserve(forLimit: 128) == 16)
        #expect(MetricsServerLimits.reserve(forLimit: 1024) == 128)
        #expect(MetricsServerLimits.reserve(forLimit: 1 << 20) == 1024)
        await scraper.close()
        await server.close()
    }
}
