import Foundation
import MetricsExport
import SocketEngine
import Testing

@testable import LoadGen
import TestSupport

/// The HTTP part of a load-test report (issue 29): responses counted by status code without
/// allocation per response, the `http` field of the `--json` file, its text row, `report merge`
/// adding it (older reports without it still merge), its validation, the status thresholds and
/// the Prometheus counters.
@Suite(.hangGuard) struct HTTPReportTests {
    /// 9,950 × 200 and 50 × 503, 12 server closes and 3 interim responses.
    static func counts(ok: Int = 9950, unavailable: Int = 50) -> HTTPStatusCounts {
        var counts = HTTPStatusCounts()
        for _ in 0..<ok { counts.count(status: 200) }
        for _ in 0..<unavailable { counts.count(status: 503) }
        counts.serverCloses = 12
        counts.interim = 3
        return counts
    }

    /// The closed-loop fixture (a real run, schema 1) as an HTTP run: its messages received
    /// set to the responses counted.
    static func httpReport(ok: Int = 9950, unavailable: Int = 50) throws -> LoadReport {
        var report = try ReportMergeValidationTests.fixture("closed-loop")
        report.schema = LoadReport.schemaVersion
        report.transport = "http"
        report.http = LoadReport.HTTP(Self.counts(ok: ok, unavailable: unavailable))
        report.messages.received = ok + unavailable
        report.messages.sent = ok + unavailable
        report.histograms = nil
        report.latency = nil
        return report
    }

    @Test func statusesAreCountedByCodeAndClassAndAdded() {
        var counts = Self.counts()
        #expect(counts[200] == 9950 && counts[503] == 50 && counts[404] == 0)
        #expect(counts.statuses.map(\.code) == [200, 503])
        #expect(counts.classes.map(\.name) == ["2xx", "5xx"])
        #expect(counts.total == 10_000)
        // A code no server may send (the scanner refuses it first) is not counted, and does not trap.
        counts.count(status: 99)
        counts.count(status: 600)
        counts.count(status: -1)
        #expect(counts.total == 10_000)
        var merged = LoadCounters()
        var a = LoadCounters()
        a.countHTTP(status: 404)
        merged.add(a)
        merged.add(a)
        var b = LoadCounters()
        b.http = Self.counts()
        merged.add(b)
        #expect(merged.http?[404] == 2)
        #expect(merged.http?[200] == 9950)
        #expect(merged.http?.serverCloses == 12)
        // A run of other targets has none.
        var plain = LoadCounters()
        plain.add(LoadCounters())
        #expect(plain.http == nil)
    }

    /// The `--json` field exactly as the issue's decisions give it; schema 2.
    @Test func theJSONFieldHoldsStatusesClassesServerClosesAndInterim() throws {
        let report = try Self.httpReport()
        let object = try #require(try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any])
        #expect(object["schema"] as? String == "sockctl.loadtest/2")
        let http = try #require(object["http"] as? [String: Any])
        #expect(http["statuses"] as? [String: Int] == ["200": 9950, "503": 50])
        #expect(http["classes"] as? [String: Int] == ["2xx": 9950, "5xx": 50])
        #expect(http["serverCloses"] as? Int == 12)
        #expect(http["interim"] as? Int == 3)
        #expect(Set(http.keys) == ["statuses", "classes", "serverCloses", "interim"])
        // Read back, the same.
        let decoded = try LoadReport(json: try report.jsonData(), name: "r.json")
        #expect(decoded.http == report.http)
        // A run of other targets has no field.
        let plain = try JSONSerialization.jsonObject(with: try ReportMergeValidationTests.fixture("closed-loop").jsonData()) as? [String: Any]
        #expect(plain?["http"] == nil)
    }

    @Test func theTextHasAResponsesRow() throws {
        let text = try Self.httpReport().text
        #expect(text.contains("\nresponses   200: 9,950  503: 50 (2xx 99.5%, 5xx 0.5%); 12 closed by the server (reopened); 3 interim (1xx)\n"), "\(text)")
        var allOK = try Self.httpReport(ok: 300, unavailable: 0)
        allOK.http?.serverCloses = 0
        allOK.http?.interim = 0
        #expect(allOK.text.contains("\nresponses   200: 300 (2xx 100%)\n"))
        #expect(try !ReportMergeValidationTests.fixture("closed-loop").text.contains("responses"))
    }

    @Test func mergeAddsTheResponsesAndReadsOlderReports() throws {
        let a = try Self.httpReport()
        let b = try Self.httpReport(ok: 100, unavailable: 1)
        let merged = try LoadReport.merge(named: [("a.json", a), ("b.json", b)])
        #expect(merged.http?.statuses == ["200": 10_050, "503": 51])
        #expect(merged.http?.classes == ["2xx": 10_050, "5xx": 51])
        #expect(merged.http?.serverCloses == 24)
        #expect(merged.http?.interim == 6)
        #expect(merged.schema == LoadReport.schemaVersion)
        // Schema 1 files (no http field) still merge, and come out as schema 2.
        let old = try ReportMergeValidationTests.fixture("closed-loop")
        #expect(old.schema == "sockctl.loadtest/1")
        let oldMerged = try LoadReport.merge(named: [("a.json", old), ("b.json", old)])
        #expect(oldMerged.http == nil)
        #expect(oldMerged.schema == "sockctl.loadtest/2")
        // Counts that do not fit are refused, naming the field.
        var huge = b
        huge.http?.statuses["200"] = .max
        huge.http?.classes["2xx"] = .max
        huge.http?.statuses["503"] = 0
        huge.http?.classes["5xx"] = 0
        huge.messages.received = .max
        huge.messages.sent = .max
        let error = #expect(throws: LoadGenError.self) { try LoadReport.merge(named: [("a.json", a), ("b.json", huge)]) }
        #expect(error?.message.hasPrefix("b.json: ") == true)
        #expect(error?.message.contains("overflows") == true, "\(error?.message ?? "")")
    }

    @Test func brokenResponsesAreRefused() throws {
        let cases: [((inout LoadReport) -> Void, String)] = [
            ({ $0.http?.statuses["200"] = 9949 }, "b.json: http.classes.2xx: 9950, its status codes add up to 9949"),
            ({ $0.http?.statuses["200"] = 9949; $0.http?.classes["2xx"] = 9949 }, "b.json: http.statuses: 9999 responses, messages.received is 10000"),
            ({ $0.http?.statuses["20x"] = 1 }, "b.json: http.statuses: '20x' is not a status code (100 to 599)"),
            ({ $0.http?.statuses["600"] = 1 }, "b.json: http.statuses: '600' is not a status code (100 to 599)"),
            ({ $0.http?.classes["6xx"] = 0 }, "b.json: http.classes: '6xx' is not a status class (1xx to 5xx)"),
            ({ $0.http?.serverCloses = -1 }, "b.json: http.serverCloses: -1 is negative"),
            ({ $0.schema = "sockctl.loadtest/3" }, "b.json: schema: 'sockctl.loadtest/3', expected 'sockctl.loadtest/2' (or the older 'sockctl.loadtest/1')"),
        ]
        for (change, message) in cases {
            var b = try Self.httpReport()
            change(&b)
            let error = #expect(throws: LoadGenError.self) { try LoadReport.merge(named: [("b.json", b)]) }
            #expect(error?.code == .invalidReport)
            #expect(error?.message == message)
        }
    }

    @Test func statusThresholdsCountOrShareTheResponses() throws {
        let report = try Self.httpReport()
        func passes(_ text: String) throws -> Bool { try Threshold(parsing: text).evaluate(report).passed }
        #expect(try passes("status5xx<1%"))
        #expect(try !passes("status5xx<0.5%"))
        #expect(try passes("status5xx<=0.5%"))
        #expect(try passes("status5xx<=50"))
        #expect(try !passes("status5xx<50"))
        #expect(try !passes("non2xx<=0"))
        #expect(try passes("non2xx<=50"))
        #expect(try passes("status2xx>=99.5%"))
        #expect(try passes("status4xx<=0"))
        #expect(try passes("status1xx<=0"))
        #expect(try passes("status3xx<1%"))
        #expect(try Threshold(parsing: "status5xx<5%").evaluate(report).measured == 0.005)
        let text = try { var r = report; r.thresholds = [try Threshold(parsing: "status5xx < 0.1%").evaluate(report)]; return r.text }()
        #expect(text.contains("thresholds  status5xx < 0.1% VIOLATED (0.500%)"), "\(text)")
    }

    /// On a run of other targets a status threshold fails, saying why (as `unmatched` does
    /// without a correlation rule).
    @Test func aStatusThresholdOnARunWithoutHTTPFailsWithItsReason() throws {
        var report = try ReportMergeValidationTests.fixture("closed-loop")
        for text in ["status5xx<1%", "non2xx<=0", "status2xx>0"] {
            let result = try Threshold(parsing: text).evaluate(report)
            #expect(!result.passed)
            #expect(result.measured == nil)
            #expect(result.reason == "not measured: the run had no HTTP targets")
        }
        report.thresholds = [try Threshold(parsing: "non2xx<=0").evaluate(report)]
        #expect(report.text.contains("thresholds  non2xx<=0 VIOLATED (not measured: the run had no HTTP targets)"))
    }

    /// `sockctl_loadtest_http_responses_total{code, class}` and the server closes, as the report
    /// has them at the end; codes past the first 64 are `code="other"` of their class.
    @Test func prometheusHasResponsesByCodeAndClass() throws {
        let plan = try LoadMetricsTests.plan(port: 80, requests: 1)
        let registry = MetricsRegistry()
        let metrics = LoadMetrics(registry: registry, plan: plan)
        metrics.finish(try Self.httpReport())
        let scrape = try PrometheusSamples(String(decoding: registry.render().text, as: UTF8.self))
        #expect(scrape.count("sockctl_loadtest_http_responses_total", ["code": "200", "class": "2xx"]) == 9950)
        #expect(scrape.count("sockctl_loadtest_http_responses_total", ["code": "503", "class": "5xx"]) == 50)
        #expect(scrape.count("sockctl_loadtest_http_server_closes_total") == 12)
        #expect(scrape.count("sockctl_loadtest_errors_total", ["kind": "http"]) == 0)

        var many = HTTPStatusCounts()
        for code in 200..<300 { many.count(status: code) }
        var report = try Self.httpReport()
        report.http = LoadReport.HTTP(many)
        let manyRegistry = MetricsRegistry()
        LoadMetrics(registry: manyRegistry, plan: plan).finish(report)
        let manyScrape = try PrometheusSamples(String(decoding: manyRegistry.render().text, as: UTF8.self))
        let responses = manyScrape.samples.filter { $0.name == "sockctl_loadtest_http_responses_total" }
        #expect(responses.count == HTTPFigures.maximumCodes + 1)
        #expect(manyScrape.count("sockctl_loadtest_http_responses_total", ["code": "263", "class": "2xx"]) == 1)
        #expect(manyScrape.count("sockctl_loadtest_http_responses_total", ["code": "other", "class": "2xx"]) == 100 - HTTPFigures.maximumCodes)
        // A run of other targets has none.
        let plainRegistry = MetricsRegistry()
        LoadMetrics(registry: plainRegistry, plan: plan).finish(try ReportMergeValidationTests.fixture("closed-loop"))
        #expect(!String(decoding: plainRegistry.render().text, as: UTF8.self).contains("sockctl_loadtest_http_"))
    }
}
