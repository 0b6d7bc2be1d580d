import Histogram
import MetricsExport
import NIOCore
import NIOEmbedded
import Prometheus
import SocketEngine
import Testing
@testable import LoadGen
import TestSupport

/// `--metrics-listen` in process: real runs against a loopback echo server, their metrics
/// scraped over HTTP on loopback, compared with the run's own report. What the numbers must
/// be is decided by the report (the source of truth); these tests check that the scrape after the
/// end shows exactly that, that runs in one process keep apart, and the endpoint's HTTP manners.
@Suite(.hangGuard) struct LoadMetricsTests {
    /// A line echo server on 127.0.0.1 with a kernel-chosen port.
    static func echoServer() async throws -> TestServer {
        try await TestServer.start { connection in
            while let buffer = try await connection.read(.available) { try await connection.write(buffer) }
        }
    }

    /// A plan of `requests` line messages over `connections` connections to `port`.
    static func plan(port: Int, requests: Int, connections: Int = 2) throws -> LoadPlan {
        var plan = LoadPlan(endpoint: try Endpoint(parsing: "127.0.0.1:\(port)"), message: try MessageTemplate(Array("ping {{seq}}".utf8), framing: .line))
        plan.connections = connections
        plan.framing = .line
        plan.requests = requests
        plan.duration = nil
        plan.threads = 1
        plan.io = .events
        plan.replyTimeout = .seconds(3600)
        plan.drainTimeout = .seconds(3600)
        var options = ConnectOptions.patient
        options.family = .any
        plan.connectOptions = options
        return plan
    }

    /// A run with its metrics endpoint on 127.0.0.1:0; the endpoint is left open.
    static func run(_ plan: LoadPlan) async throws -> (LoadReport, LoadMetricsEndpoint) {
        let endpoint = try await LoadMetricsEndpoint.start(try MetricsListenAddress(parsing: "127.0.0.1:0"), plan: plan)
        let report = try await LoadRunner(plan: plan, metrics: endpoint).run()
        return (report, endpoint)
    }

    static func scrape(_ endpoint: LoadMetricsEndpoint) async throws -> PrometheusSamples {
        let response = try await HTTPResponse.fetch(endpoint.url)
        #expect(response.status == 200)
        return try PrometheusSamples(response.body)
    }

    /// After the last update, a scrape shows the report's numbers exactly: messages, bytes,
    /// connections, errors, and both latency histograms' counts; and says it is final.
    @Test func aScrapeAfterTheRunShowsTheReportsNumbers() async throws {
        let server = try await Self.echoServer()
        let (report, endpoint) = try await Self.run(try Self.plan(port: server.port, requests: 300))
        await server.stop()
        endpoint.finish(report)
        let scrape = try await Self.scrape(endpoint)
        await endpoint.close()

        let target = ["target": report.target]
        #expect(report.messages.sent == 300)
        #expect(scrape.count("sockctl_loadtest_messages_sent_total", target) == report.messages.sent)
        #expect(scrape.count("sockctl_loadtest_messages_received_total", target) == report.messages.received)
        #expect(scrape.count("sockctl_loadtest_messages_timed_out_total", target) == report.messages.timedOut)
        #expect(scrape.count("sockctl_loadtest_messages_lost_total", target) == report.messages.lost)
        #expect(scrape.count("sockctl_loadtest_sent_bytes_total", target) == report.bytes.sent)
        #expect(scrape.count("sockctl_loadtest_received_bytes_total", target) == report.bytes.received)
        #expect(scrape.count("sockctl_loadtest_connections_established_total", target) == report.connections.established)
        #expect(scrape.count("sockctl_loadtest_connect_attempts_total", target) == report.connections.attempted)
        for kind in ErrorKind.allCases {
            #expect(scrape.count("sockctl_loadtest_errors_total", ["kind": kind.rawValue]) == report.errors[kind.rawValue] ?? 0, "\(kind)")
        }
        let latencyCount = try #require(report.latency?.corrected.count)
        #expect(latencyCount == 300)
        for kind in ["corrected", "uncorrected"] {
            #expect(scrape.count("sockctl_loadtest_latency_seconds_count", ["latency": kind]) == latencyCount)
            #expect(scrape.count("sockctl_loadtest_latency_seconds_bucket", ["latency": kind, "le": "+Inf"]) == latencyCount)
        }
        #expect(scrape.value("sockctl_loadtest_finished") == 1)
        #expect(scrape.value("sockctl_loadtest_connections_open") == 0)
        #expect(scrape.value("sockctl_loadtest_rate_target_messages_per_second") == nil, "a closed loop has no target rate")
    }

    /// With `--label`, each value has its own messages and corrected latency under
    /// `sockctl_loadtest_label_…{label=…}`, equal to the report's per-label table; the run's own
    /// metrics are unchanged (nothing is counted twice under one name).
    @Test func eachLabelValueHasItsOwnMessagesAndLatency() async throws {
        let server = try await Self.echoServer()
        var plan = try Self.plan(port: server.port, requests: 300)
        plan.message = try MessageTemplate(Array("ping {{seq}} c{{conn}}".utf8), framing: .line)
        plan.label = try MessageField(parsing: "regex:c(\\d+)$", option: .label)
        let (report, endpoint) = try await Self.run(plan)
        await server.stop()
        endpoint.finish(report)
        let scrape = try await Self.scrape(endpoint)
        await endpoint.close()

        let values = try #require(report.labels?.values)
        #expect(values.map(\.label).sorted() == ["1", "2"], "\(values.map(\.label))")
        for value in values {
            let label = ["label": value.label]
            #expect(scrape.count("sockctl_loadtest_label_messages_sent_total", label) == value.sent)
            #expect(scrape.count("sockctl_loadtest_label_messages_received_total", label) == value.received)
            #expect(scrape.count("sockctl_loadtest_label_messages_lost_total", label) == value.lost)
            #expect(scrape.count("sockctl_loadtest_label_latency_seconds_count", label) == value.received)
        }
        #expect(values.map(\.sent).reduce(0, +) == 300)
        #expect(scrape.count("sockctl_loadtest_messages_sent_total") == 300)
    }

    /// Two runs side by side in one process, each with its endpoint: each scrape shows its own
    /// run's numbers (nothing goes through a process-wide metrics system).
    @Test func twoRunsInOneProcessKeepTheirMetricsApart() async throws {
        let server = try await Self.echoServer()
        async let first = Self.run(try Self.plan(port: server.port, requests: 120))
        async let second = Self.run(try Self.plan(port: server.port, requests: 70))
        let runs = try await [first, second]
        await server.stop()
        for (report, endpoint) in runs {
            endpoint.finish(report)
            let scrape = try await Self.scrape(endpoint)
            await endpoint.close()
            #expect(scrape.count("sockctl_loadtest_messages_sent_total") == report.messages.sent)
            #expect(scrape.count("sockctl_loadtest_latency_seconds_count", ["latency": "corrected"]) == report.latency?.corrected.count)
        }
        #expect(runs.map(\.0.messages.sent) == [120, 70])
    }

    /// `--metrics-linger`: after the last update, the wait ends once a scraper has read the final
    /// numbers and come back — not after the first scrape.
    @Test func lingerEndsWhenTheScraperComesBackForMore() async throws {
        let server = try await Self.echoServer()
        let (report, endpoint) = try await Self.run(try Self.plan(port: server.port, requests: 20))
        await server.stop()
        endpoint.finish(report)
        let lingering = Task { await endpoint.linger(.seconds(3600)) }
        while endpoint.server.registry.waiting == 0 { await Task.yield() }
        let first = try await Self.scrape(endpoint)
        #expect(first.value("sockctl_loadtest_finished") == 1)
        #expect(endpoint.server.registry.waiting == 1, "one scrape of the final numbers: still waiting")
        _ = try await Self.scrape(endpoint)
        #expect(await finished(lingering), "the scraper came back: the wait is over")
        await endpoint.close()
    }

    /// A linger with no scraper ends when its time is up, on the loop's clock (virtual here).
    @Test func lingerWithoutAScraperEndsWhenItsTimeIsUp() async throws {
        let registry = MetricsRegistry()
        registry.finish {}
        let loop = NIOAsyncTestingEventLoop()
        let waiting = Task { await registry.waitForFinalScrapes(2, timeout: .seconds(30), on: loop) }
        // Listed as waiting once its timer runs.
        while registry.waiting == 0 { await Task.yield() }
        await loop.advanceTime(by: .seconds(29))
        #expect(registry.waiting == 1, "29 s: still waiting")
        await loop.advanceTime(by: .seconds(1))
        #expect(await finished(waiting) == false)
        await loop.shutdownGracefully()
    }

    /// The HTTP side: the content type of the text format; 404 elsewhere; 405 for other methods.
    @Test func theEndpointAnswersOnlyGetMetrics() async throws {
        let registry = MetricsRegistry()
        let server = try await MetricsServer.start(try MetricsListenAddress(parsing: ":0"), registry: registry)
        #expect(server.url.hasPrefix("http://127.0.0.1:"), "a bare port binds loopback")
        let ok = try await HTTPResponse.fetch(server.url)
        #expect(ok.status == 200)
        #expect(ok.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        let elsewhere = try await HTTPResponse.fetch(server.url.replacingOccurrences(of: "/metrics", with: "/"))
        #expect(elsewhere.status == 404)
        let post = try await HTTPResponse.fetch(server.url, method: "POST")
        #expect(post.status == 405)
        #expect(post.header("Allow") == "GET, HEAD")
        await server.close()
    }

    /// ADDR: a bare port or `:PORT` is loopback; addresses as given; anything but TCP refused.
    @Test func metricsAddressesParseAsListenersDo() throws {
        #expect(try MetricsListenAddress(parsing: "9464").description == "127.0.0.1:9464")
        #expect(try MetricsListenAddress(parsing: ":0").description == "127.0.0.1:0")
        #expect(try MetricsListenAddress(parsing: "0.0.0.0:9464").description == "0.0.0.0:9464")
        #expect(try MetricsListenAddress(parsing: "[::1]:9464").description == "[::1]:9464")
        for bad in ["udp://127.0.0.1:9464", "unix:/tmp/m.sock", "127.0.0.1", "70000", "ws://:9464/metrics"] {
            #expect(throws: MetricsExportError.self, "\(bad)") { try MetricsListenAddress(parsing: bad) }
        }
    }

    /// A port already taken is a run-time failure (exit 1), not a usage error, naming the address.
    @Test func aPortInUseIsReported() async throws {
        let registry = MetricsRegistry()
        let first = try await MetricsServer.start(try MetricsListenAddress(parsing: ":0"), registry: registry)
        let port = first.localAddress.port ?? 0
        let plan = try Self.plan(port: 7, requests: 1)
        let error = await #expect(throws: LoadGenError.self) {
            _ = try await LoadMetricsEndpoint.start(try MetricsListenAddress(parsing: "127.0.0.1:\(port)"), plan: plan)
        }
        #expect(error?.code == .metricsUnavailable)
        #expect(error?.text.rendered { "--" + $0.rawValue } == "--metrics-listen 127.0.0.1:\(port): address already in use (EADDRINUSE)")
        await first.close()
    }

    /// HDR latencies into the Prometheus histogram: the count is exact; each value lands in the
    /// first bucket at or above it; feeding a grown histogram adds only the difference.
    @Test func hdrLatenciesLandInTheirBuckets() throws {
        let registry = MetricsRegistry()
        let feed = LatencyFeed(histogram: registry.prometheus.makeDurationHistogram(
            descriptor: MetricNameDescriptor(namespace: "t", metricName: "latency", unitName: "seconds", helpText: "test"),
            labels: [("latency", "corrected")], buckets: LatencyFeed.buckets))
        var hdr = LoadStats.makeHistogram()
        for _ in 0..<5 { hdr.record(30_000) }       // 30 µs
        for _ in 0..<3 { hdr.record(700_000) }      // 0.7 ms
        registry.update { feed.feed(hdr) }
        hdr.record(2_000_000_000)                   // 2 s
        registry.update { feed.feed(hdr) }
        registry.update { feed.feed(hdr) }           // nothing new
        let samples = try PrometheusSamples(String(decoding: registry.render().text, as: UTF8.self))
        #expect(samples.count("t_latency_seconds_count") == 9)
        #expect(samples.count("t_latency_seconds_bucket", ["le": "0.00005"]) == 5)
        #expect(samples.count("t_latency_seconds_bucket", ["le": "0.0005"]) == 5)
        #expect(samples.count("t_latency_seconds_bucket", ["le": "0.001"]) == 8)
        #expect(samples.count("t_latency_seconds_bucket", ["le": "1.0"]) == 8)
        #expect(samples.count("t_latency_seconds_bucket", ["le": "2.5"]) == 9)
        let sum = try #require(samples.value("t_latency_seconds_sum"))
        #expect(abs(sum - (5 * 30e-6 + 3 * 700e-6 + 2)) < 0.005)
    }
}
