import Foundation
import SocketEngine
import TestSupport
import Testing

import Glibc

/// `sockctl loadtest --metrics-listen` scraped by what users scrape with: a real Prometheus
/// (Debian's `prometheus`, installed by `make test`) and `promtool check metrics`. Every wait is
/// for an event: the address sockctl printed after binding port 0, the one Prometheus logged
/// after binding its own, a progress line, the "serving its final metrics" line, an exit.
/// `--metrics-linger` keeps the endpoint up until the final numbers have been scraped and the
/// scraper has come back, which is what lets the test read them from Prometheus afterwards.
@Suite("sockctl loadtest --metrics-listen", .hangGuard)
struct LoadTestMetricsTests {
    typealias Server = LoadTestCommandTests.Server

    /// The JSON report a run wrote.
    static func report(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func int(_ json: [String: Any], _ path: String) -> Int {
        var value: Any? = json
        for key in path.split(separator: "/") { value = (value as? [String: Any])?[String(key)] }
        return (value as? NSNumber)?.intValue ?? -1
    }

    /// A Prometheus 2.42 on 127.0.0.1 with a kernel-chosen port, scraping `target` (HOST:PORT)
    /// every second, its data in `scratch`. Returns it and its HTTP API's address.
    static func startPrometheus(scraping target: String, in scratch: Scratch) async throws -> (Child, String) {
        let config = scratch.path("prometheus.yml")
        try """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: sockctl
                metrics_path: /metrics
                static_configs:
                  - targets: ['\(target)']
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let prometheus = try await Child(
            try tool("prometheus"),
            ["--config.file=\(config)", "--storage.tsdb.path=\(scratch.path("data"))", "--web.listen-address=127.0.0.1:0"],
            name: "prometheus")
        // `msg="Listening on" address=127.0.0.1:PORT`, once its socket is bound.
        let log = try await prometheus.waitForStderr("msg=\"Listening on\"")
        guard let line = log.split(separator: "\n").first(where: { $0.contains("msg=\"Listening on\"") }),
              let address = line.split(separator: " ").first(where: { $0.hasPrefix("address=") })?.dropFirst("address=".count)
        else { throw HarnessError("no address in Prometheus' log: \(log)") }
        return (prometheus, String(address))
    }

    /// The value of an instant query's one result (`data.result[0].value[1]`), nil for no result.
    static func query(_ api: String, _ expression: String) async throws -> Double? {
        let encoded = try #require(expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let response = try await HTTPResponse.fetch("http://\(api)/api/v1/query?query=\(encoded)")
        #expect(response.status == 200, "\(response.body)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
        let results = (json["data"] as? [String: Any])?["result"] as? [[String: Any]] ?? []
        guard let first = results.first, let value = first["value"] as? [Any], value.count == 2, let text = value[1] as? String else { return nil }
        return Double(text)
    }

    /// The URL sockctl printed once its metrics socket was bound.
    static func metricsURL(_ child: Child) async throws -> String {
        let text = try await child.waitForStderr("metrics on http://")
        guard let line = text.split(separator: "\n").first(where: { $0.contains("metrics on http://") }),
              let start = line.range(of: "http://")
        else { throw HarnessError("no metrics URL in: \(text)") }
        return String(line[start.lowerBound...])
    }

    /// A real Prometheus scrapes a 30-second open-loop run every second; afterwards its HTTP
    /// API's answer for the sent counter is the JSON summary's count, exactly, and the last sample
    /// it holds is the final one (`sockctl_loadtest_finished` 1). The rate is low (20/s): what is
    /// tested is the count, not the load.
    @Test func prometheusHoldsTheSummarysSentCountAfterAThirtySecondRun() async throws {
        let server = try await Server.start(["--echo", "--framing", "line"])
        defer { server.child.signal(SIGKILL) }
        let scratch = try Scratch()
        let json = scratch.path("result.json")
        let loadtest = try await Child(try sockctlPath(), [
            "loadtest", server.target, "-c", "2", "--rate", "20", "--duration", "30s", "--framing", "line", "--message", "ping {{seq}}",
            "--metrics-listen", "127.0.0.1:0", "--metrics-linger", "10m", "--json", json,
        ], name: "loadtest")
        let url = try await Self.metricsURL(loadtest)
        let target = String(url.dropFirst("http://".count).prefix { $0 != "/" })
        let (prometheus, api) = try await Self.startPrometheus(scraping: target, in: scratch)
        defer { prometheus.signal(SIGKILL) }

        // sockctl ends once Prometheus has read the final numbers and come back for more.
        #expect(try await loadtest.wait() == 0, "\(loadtest.stderr)")
        #expect(loadtest.stderr.contains("serving its final metrics"))
        let report = try Self.report(json)
        let sent = Self.int(report, "messages/sent")
        #expect(sent >= 500, "30 s at 20/s: \(sent) sent")

        // The series went stale when sockctl left: the last sample of each is read over a range.
        let finished = try await Self.query(api, "last_over_time(sockctl_loadtest_finished[1h])")
        #expect(finished == 1, "Prometheus holds the final scrape")
        let stored = try await Self.query(api, "last_over_time(sockctl_loadtest_messages_sent_total[1h])")
        #expect(stored.map { Int($0) } == sent, "Prometheus: \(String(describing: stored)), the summary: \(sent)")
        let received = try await Self.query(api, "last_over_time(sockctl_loadtest_messages_received_total[1h])")
        #expect(received.map { Int($0) } == Self.int(report, "messages/received"))
        let latencies = try await Self.query(api, "last_over_time(sockctl_loadtest_latency_seconds_count{latency=\"corrected\"}[1h])")
        #expect(latencies.map { Int($0) } == Self.int(report, "latency/corrected/count"))
        let samples = try await Self.query(api, "count_over_time(sockctl_loadtest_messages_sent_total[1h])")
        #expect((samples ?? 0) >= 2, "scraped during the run and after it")

        prometheus.signal(SIGTERM)
        #expect(try await prometheus.wait() == 0, "\(prometheus.stderr)")
    }

    /// `promtool check metrics` accepts what the endpoint serves, during the run and at its end;
    /// and the final scrape's numbers are the JSON file's.
    @Test func promtoolAcceptsTheEndpointAndTheFinalScrapeIsTheSummary() async throws {
        let server = try await Server.start(["--echo", "--framing", "line"])
        defer { server.child.signal(SIGKILL) }
        let scratch = try Scratch()
        let json = scratch.path("result.json")
        let loadtest = try await Child(try sockctlPath(), [
            "loadtest", server.target, "-c", "2", "--rate", "50", "--duration", "3s", "--framing", "line", "--message", "ping {{seq}}",
            "--report-every", "1s", "--metrics-listen", ":0", "--metrics-linger", "10m", "--json", json,
        ], name: "loadtest")
        let url = try await Self.metricsURL(loadtest)
        #expect(url.hasPrefix("http://127.0.0.1:"), "a bare port binds loopback: \(url)")

        // After the first progress line, the metrics hold at least its second.
        try await loadtest.waitForStdout("sent/s")
        let live = try await HTTPResponse.fetch(url)
        #expect(live.status == 200)
        let liveSamples = try PrometheusSamples(live.body)
        #expect(liveSamples.count("sockctl_loadtest_messages_sent_total") > 0, "\(live.body)")
        try await Self.expectPromtoolAccepts(live.body)
        // On a slow machine the run may have ended before that scrape: then it was the first
        // read of the final numbers, and the next one is the scraper coming back.
        let liveWasFinal = liveSamples.value("sockctl_loadtest_finished") == 1

        try await loadtest.waitForStderr("serving its final metrics")
        let final = try await HTTPResponse.fetch(url)
        try await Self.expectPromtoolAccepts(final.body)
        let samples = try PrometheusSamples(final.body)
        #expect(samples.value("sockctl_loadtest_finished") == 1)
        #expect(samples.value("sockctl_loadtest_rate_target_messages_per_second") != nil, "an open loop has a target rate")

        // The scraper comes back: sockctl prints its summary and ends.
        if !liveWasFinal { _ = try await HTTPResponse.fetch(url) }
        #expect(try await loadtest.wait() == 0, "\(loadtest.stderr)")
        let report = try Self.report(json)
        #expect(samples.count("sockctl_loadtest_messages_sent_total") == Self.int(report, "messages/sent"))
        #expect(samples.count("sockctl_loadtest_messages_received_total") == Self.int(report, "messages/received"))
        #expect(samples.count("sockctl_loadtest_messages_timed_out_total") == Self.int(report, "messages/timed_out"))
        #expect(samples.count("sockctl_loadtest_sent_bytes_total") == Self.int(report, "bytes/sent"))
        #expect(samples.count("sockctl_loadtest_received_bytes_total") == Self.int(report, "bytes/received"))
        #expect(samples.count("sockctl_loadtest_latency_seconds_count", ["latency": "uncorrected"]) == Self.int(report, "latency/uncorrected/count"))
    }

    /// `promtool check metrics` (format and Prometheus' naming rules) on `text`: exit 0, no complaint.
    static func expectPromtoolAccepts(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let promtool = try await Child(try tool("promtool"), ["check", "metrics"], stdin: .pipe, name: "promtool")
        try promtool.send(text)
        promtool.closeStdin()
        let status = try await promtool.wait()
        try await promtool.waitForEndOfStdout()
        #expect(status == 0, "promtool: \(promtool.stdoutText) \(promtool.stderr)", sourceLocation: sourceLocation)
        #expect(promtool.stdoutText.isEmpty && promtool.stderr.isEmpty, "promtool: \(promtool.stdoutText) \(promtool.stderr)", sourceLocation: sourceLocation)
    }

    /// Usage: an address that is not one, and --metrics-linger alone, are usage errors (exit 2).
    @Test(arguments: [
        (["--metrics-listen", "udp://127.0.0.1:0"], "plain TCP"),
        (["--metrics-listen", "70000"], "out of range"),
        (["--metrics-linger", "10s"], "--metrics-linger needs --metrics-listen"),
    ])
    func badMetricsOptionsAreUsageErrors(arguments: [String], message: String) async throws {
        let result = try await run(try sockctlPath(), ["loadtest", "127.0.0.1:9", "--requests", "1"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
