import Foundation
import Histogram
import SocketEngine
import Testing

@testable import LoadGen
import TestSupport

/// `report merge` of hostile or broken part files: every figure is checked before it is
/// added, every sum is checked, histogram layouts are compared before the library adds them —
/// each refusal one line naming the file and the field, never a trap (issue 26, point 3).
@Suite(.hangGuard) struct ReportMergeValidationTests {
    /// A real `loadtest --json` file (Tests/Reports).
    static func fixture(_ name: String) throws -> LoadReport {
        try LoadReport(contentsOf: packageRoot.appendingPathComponent("Tests/Reports/\(name).json").path)
    }

    /// `a.json` and a changed copy `b.json` of the same run, merged.
    static func mergeWithChangedCopy(_ fixture: String = "closed-loop", _ change: (inout LoadReport) -> Void) throws -> LoadReport {
        let a = try Self.fixture(fixture)
        var b = a
        change(&b)
        return try LoadReport.merge(named: [(name: "a.json", report: a), (name: "b.json", report: b)])
    }

    /// The message refusing the merge of `parts` (nil: it merged).
    static func refusal(_ parts: [(name: String, report: LoadReport)]) -> String? {
        do {
            _ = try LoadReport.merge(named: parts)
            return nil
        } catch {
            return error.message
        }
    }

    /// The refusals of merging `a.json` with a copy `b.json` changed by `change`, and of the
    /// changed copy alone (nil: it merged).
    static func refusals(_ fixture: String = "closed-loop", _ change: (inout LoadReport) -> Void) throws -> (pair: String?, alone: String?) {
        let a = try Self.fixture(fixture)
        var b = a
        change(&b)
        return (refusal([(name: "a.json", report: a), (name: "b.json", report: b)]), refusal([(name: "b.json", report: b)]))
    }

    /// An uncompressed V2 histogram with this header and payload (ZigZag words: a count per
    /// slot, -N for N empty slots), as base64.
    static func histogram(digits: UInt32 = 3, lowest: UInt64 = 1, highest: UInt64 = LoadStats.highestTrackableNanos, _ words: [Int64]) -> String {
        var payload: [UInt8] = []
        for word in words { HistogramCodec.appendZigZag(word, to: &payload) }
        var bytes: [UInt8] = []
        HistogramCodec.appendBigEndian(UInt32(0x1c84_9313), to: &bytes)
        HistogramCodec.appendBigEndian(UInt32(payload.count), to: &bytes)
        HistogramCodec.appendBigEndian(UInt32(0), to: &bytes)
        HistogramCodec.appendBigEndian(digits, to: &bytes)
        HistogramCodec.appendBigEndian(lowest, to: &bytes)
        HistogramCodec.appendBigEndian(highest, to: &bytes)
        HistogramCodec.appendBigEndian((1.0 as Double).bitPattern, to: &bytes)
        return HistogramCodec.base64Encode(bytes + payload)
    }

    /// Both latency histograms of a report set to `encoded`.
    static func setHistograms(_ report: inout LoadReport, _ encoded: String) {
        report.histograms?.corrected = encoded
        report.histograms?.uncorrected = encoded
    }

    // MARK: The cases of the issue

    /// A counter of 2^63−1 overflowed (a Swift trap, exit 132, in a CI merge job).
    @Test func counterOverflowIsRefusedNamingFileAndField() throws {
        let a = try Self.fixture("closed-loop")
        let error = #expect(throws: LoadGenError.self) { try Self.mergeWithChangedCopy { $0.messages.sent = .max } }
        #expect(error?.code == .invalidReport)
        #expect(error?.message == "b.json: messages.sent: \(a.messages.sent) + 9223372036854775807 overflows")
        // The same figure alone is a valid (if absurd) report; it prints without trapping.
        var alone = a
        alone.messages.sent = .max
        alone.elapsedSeconds = 0
        let merged = try LoadReport.merge([alone])
        #expect(merged.text.contains("sent 9,223,372,036,854,775,807,"))
        #expect(merged.text.contains("sent 9,223,372,036,854,775,807/s"))
    }

    /// A histogram bucket count of 2^62 at a value of a few µs: count × value passes 64 bits,
    /// where the library's iteration traps.
    @Test func bucketCountOf2To62IsRefused() throws {
        let refusals = try Self.refusals { Self.setHistograms(&$0, Self.histogram([-3000, 1 << 62])) }
        #expect(refusals.pair == "b.json: histograms.corrected: histogram values add up past 2^64")
        #expect(refusals.alone == refusals.pair)
        // Counts of the values 0 and 1 only: the count itself passes 64 bits (the library wraps it).
        let wrapping = try Self.refusals { Self.setHistograms(&$0, Self.histogram([.max, .max, 2])) }
        #expect(wrapping.alone == "b.json: histograms.corrected: histogram counts add up past 2^64")
    }

    /// Histograms of other significant digits trapped in the library's `add`.
    @Test func otherSignificantDigitsAreRefusedBeforeAdding() throws {
        let refusals = try Self.refusals { Self.setHistograms(&$0, Self.histogram(digits: 2, [0, 5, 7])) }
        #expect(refusals.pair == "b.json: histograms.corrected: 2 significant digits, a.json has 3")
        #expect(refusals.alone == nil)
    }

    @Test(arguments: [
        (2 as UInt64, LoadStats.highestTrackableNanos, "lowest discernible value 2, a.json has 1"),
        (1 as UInt64, 1_000_000 as UInt64, "highest trackable value 1000000, a.json has 3600000000000"),
    ])
    func otherRangesAreRefusedBeforeAdding(lowest: UInt64, highest: UInt64, message: String) throws {
        let refusals = try Self.refusals { Self.setHistograms(&$0, Self.histogram(lowest: lowest, highest: highest, [0, 5, 7])) }
        #expect(refusals.pair == "b.json: histograms.corrected: \(message)")
    }

    /// A header the library cannot represent (its unit magnitude, computed from a Double,
    /// rounds up for this lowest value) trapped in its initializer.
    @Test func headerTheLibraryCannotRepresentIsRefused() throws {
        let refusals = try Self.refusals { Self.setHistograms(&$0, Self.histogram(digits: 1, lowest: (1 << 58) - 1, highest: 1 << 59, [5])) }
        #expect(refusals.alone?.hasPrefix("b.json: histograms.corrected: histogram range 288230376151711743...576460752303423488 with 1 digits is too large") == true)
    }

    /// Each part fits; their sums do not.
    @Test func histogramSumsAreChecked() throws {
        var a = try Self.fixture("closed-loop")
        Self.setHistograms(&a, Self.histogram([0, 0, 0, 1 << 62]))
        #expect(Self.refusal([(name: "a.json", report: a)]) == nil)
        #expect(Self.refusal([(name: "a.json", report: a), (name: "b.json", report: a)])
            == "b.json: histograms.corrected: sum of the values 13835058055282163712 + 13835058055282163712 overflows")
        Self.setHistograms(&a, Self.histogram([.max, 2]))
        #expect(Self.refusal([(name: "a.json", report: a)]) == nil)
        #expect(Self.refusal([(name: "a.json", report: a), (name: "b.json", report: a)])
            == "b.json: histograms.corrected: count 9223372036854775809 + 9223372036854775809 overflows")
    }

    @Test func correctedAndUncorrectedHoldTheSameReplies() throws {
        let refusals = try Self.refusals { $0.histograms?.uncorrected = Self.histogram([0, 5]) }
        #expect(refusals.alone?.hasPrefix("b.json: histograms.uncorrected: 5 values, histograms.corrected has ") == true)
    }

    // MARK: Counters, rates and times

    @Test(arguments: [
        (\LoadReport.messages.sent, "messages.sent"), (\LoadReport.messages.timedOut, "messages.timed_out"),
        (\LoadReport.connections.failed, "connections.failed"), (\LoadReport.connections.peakOpen, "connections.peak_open"),
        (\LoadReport.bytes.received, "bytes.received"), (\LoadReport.config.connections, "config.connections"),
        (\LoadReport.peakRSSBytes, "peak_rss_bytes"),
    ] as [(WritableKeyPath<LoadReport, Int> & Sendable, String)])
    func negativeCountersAreRefused(path: WritableKeyPath<LoadReport, Int> & Sendable, field: String) throws {
        let refusals = try Self.refusals { $0[keyPath: path] = -5 }
        #expect(refusals.pair == "b.json: \(field): -5 is negative")
        #expect(refusals.alone == refusals.pair)
    }

    @Test func negativeCountersInEverySectionAreRefused() throws {
        #expect(try Self.refusals("refused") { $0.errors["refused"] = -1 }.alone == "b.json: errors.refused: -1 is negative")
        #expect(try Self.refusals { $0.timeline[0].sent = -1 }.alone == "b.json: timeline[0].sent: -1 is negative")
        #expect(try Self.refusals("labels") { $0.labels?.values[0].lost = -1 }.alone == "b.json: labels.values[0].lost: -1 is negative")
        #expect(try Self.refusals("from-pcap") { $0.replay?.runs = -1 }.alone == "b.json: replay.runs: -1 is negative")
        #expect(try Self.refusals { $0.hosts = 0 }.alone == "b.json: hosts: 0 is not a number of runs")
    }

    @Test(arguments: [
        (\LoadReport.throughput.sentPerSecond, Double.nan, "throughput.sent_per_second: not a number"),
        (\LoadReport.throughput.receivedBytesPerSecond, Double.infinity, "throughput.received_bytes_per_second: inf is not finite"),
        (\LoadReport.throughput.sentBytesPerSecond, -1, "throughput.sent_bytes_per_second: -1.0 is negative"),
        (\LoadReport.elapsedSeconds, Double.infinity, "elapsed_seconds: inf is not finite"),
        (\LoadReport.elapsedSeconds, 1e300, "elapsed_seconds: 1e+300 s is longer than any run (at most 315360000 s, ten years)"),
        (\LoadReport.config.warmupSeconds, -Double.infinity, "config.warmup_seconds: -inf is not finite"),
    ] as [(WritableKeyPath<LoadReport, Double> & Sendable, Double, String)])
    func ratesAndTimesMustBeFiniteAndNotNegative(path: WritableKeyPath<LoadReport, Double> & Sendable, value: Double, message: String) throws {
        let refusals = try Self.refusals { $0[keyPath: path] = value }
        #expect(refusals.alone == "b.json: \(message)")
    }

    @Test func optionalRatesAndLatenciesAreChecked() throws {
        #expect(try Self.refusals { $0.config.rate = .nan }.alone == "b.json: config.rate: not a number")
        #expect(try Self.refusals { $0.latency?.corrected.p99 = .infinity }.alone == "b.json: latency.corrected.p99: inf is not finite")
        #expect(try Self.refusals { $0.timeline[0].span = .nan }.alone == "b.json: timeline[0].span: not a number")
        #expect(try Self.refusals("from-pcap") { $0.replay?.speed = 0 }.alone == "b.json: replay.speed: 0.0 is not a speed")
        #expect(try Self.refusals("from-pcap") { $0.replay?.verify?.samplePercent = 101 }.alone == "b.json: replay.verify.sample_percent: 101.0 is more than 100")
        // Doubles that add up past the largest: refused, not infinite.
        var fast = try Self.fixture("labels")
        fast.config.rate = 1e308
        #expect(Self.refusal([(name: "a.json", report: fast), (name: "b.json", report: fast)]) == "b.json: config.rate: 1e+308 + 1e+308 overflows")
    }

    @Test(arguments: [-1, 1 << 62, Int.max])
    func timelineSecondsMustBeSecondsOfARun(second: Int) throws {
        let refusals = try Self.refusals { $0.timeline[0].second = second }
        #expect(refusals.alone == "b.json: timeline[0].second: \(second) is not a second of a run (0 to 315360000)")
    }

    @Test func timelineCountsOfTheSameSecondAreAddedChecked() throws {
        let a = try Self.fixture("labels")
        let error = #expect(throws: LoadGenError.self) { try Self.mergeWithChangedCopy("labels") { $0.timeline[1].received = .max } }
        #expect(error?.message == "b.json: timeline[1].received: \(a.timeline[1].received) + 9223372036854775807 overflows")
    }

    @Test(arguments: ["yesterday", "2026-02-30T00:00:00Z", "1969-12-31T23:59:59Z", "2026-11-23T08:00:00", "2026-11-23T08:00:00.Z", "2026-11-23T25:00:00Z", ""])
    func startedAtMustBeAUTCTime(text: String) throws {
        let refusals = try Self.refusals { $0.startedAt = text }
        #expect(refusals.alone == "b.json: started_at: '\(text)' is not a UTC time such as 2026-11-23T08:00:00.000Z")
    }

    /// The earliest start is the earliest instant, not the smallest string ('.' sorts before 'Z').
    @Test func theEarliestStartIsComparedAsATime() throws {
        let a = try Self.fixture("closed-loop")
        var early = a
        early.startedAt = "2026-11-23T08:00:00Z"
        var late = a
        late.startedAt = "2026-11-23T08:00:00.5Z"
        #expect(try LoadReport.merge([late, early]).startedAt == "2026-11-23T08:00:00Z")
        #expect(try LoadReport.merge([early, late]).startedAt == "2026-11-23T08:00:00Z")
        late.startedAt = "2026-11-23T08:00:00.123456789Z"
        #expect(try LoadReport.merge([late]).startedAt == late.startedAt)
    }

    @Test func errorsAndReplayCountersAddChecked() throws {
        let refused = try Self.fixture("refused")
        let errors = #expect(throws: LoadGenError.self) { try Self.mergeWithChangedCopy("refused") { $0.errors["refused"] = .max } }
        #expect(errors?.message == "b.json: errors.refused: \(refused.errors["refused"] ?? 0) + 9223372036854775807 overflows")
        let replay = try Self.fixture("from-pcap")
        let runs = #expect(throws: LoadGenError.self) { try Self.mergeWithChangedCopy("from-pcap") { $0.replay?.runsCompleted = .max } }
        #expect(runs?.message == "b.json: replay.runs_completed: \(replay.replay?.runsCompleted ?? 0) + 9223372036854775807 overflows")
    }

    // MARK: Label tables

    @Test func labelTablesAreCheckedAndAddedChecked() throws {
        let labels = try Self.fixture("labels")
        let sent = labels.labels?.values[0].sent ?? 0
        let overflow = #expect(throws: LoadGenError.self) { try Self.mergeWithChangedCopy("labels") { $0.labels?.values[0].sent = .max } }
        #expect(overflow?.message == "b.json: labels.values[0].sent: \(sent) + 9223372036854775807 overflows")
        let rule = #expect(throws: LoadGenError.self) { try Self.mergeWithChangedCopy("labels") { $0.labels?.rule = "json:$.x" } }
        #expect(rule?.message == "b.json: labels.rule: 'json:$.x', a.json has 'json:$.op'")
        // A label histogram of other digits trapped in the label table's add.
        let digits = #expect(throws: LoadGenError.self) {
            try Self.mergeWithChangedCopy("labels") { $0.labels?.values[0].histogram = Self.histogram(digits: 3, [0, 4]) }
        }
        #expect(digits?.message == "b.json: labels.values[0].histogram: 3 significant digits, a.json has 2")
        let many = try Self.refusals("labels") { report in
            let value = report.labels?.values[0]
            report.labels?.values = (0..<103).compactMap { index in value.map { var copy = $0; copy.label = "v\(index)"; return copy } }
        }
        #expect(many.alone == "b.json: labels.values: 103 values, more than a run keeps (100, (none) and (other))")
    }

    @Test func labelsPastTheLimitGoToOtherWhenMerged() throws {
        var a = try Self.fixture("labels")
        var b = a
        let value = try #require(a.labels?.values[0])
        a.labels?.values = (0..<100).map { var copy = value; copy.label = "a\($0)"; return copy }
        b.labels?.values = (0..<3).map { var copy = value; copy.label = "b\($0)"; return copy }
        let merged = try LoadReport.merge([a, b])
        let values = try #require(merged.labels?.values)
        #expect(values.count == 101)
        let other = try #require(values.first { $0.label == "(other)" })
        #expect(other.sent == 3 * value.sent)
        #expect(other.latency?.count == 3 * (value.latency?.count ?? 0))
    }

    // MARK: What still merges

    /// Every kind of real report merges with itself into the sums, and a merged report read
    /// back is valid again.
    @Test(arguments: ["closed-loop", "labels", "tls", "send-only", "from-pcap", "refused", "http"])
    func realReportsMergeAndTheResultIsValid(name: String) throws {
        let report = try Self.fixture(name)
        let merged = try LoadReport.merge([report, report])
        #expect(merged.hosts == 2)
        #expect(merged.messages.sent == 2 * report.messages.sent)
        #expect(merged.latency?.corrected.count == report.latency.map { 2 * $0.corrected.count })
        #expect(merged.tlsHandshake?.count == report.tlsHandshake.map { 2 * $0.count })
        #expect(merged.http?.total == report.http.map { 2 * $0.total })
        let again = try LoadReport(json: merged.jsonData(), name: "merged.json")
        try again.validate(named: "merged.json")
        _ = try LoadReport.merge([again])
        #expect(!merged.text.isEmpty)
    }

    /// Huge but valid figures print, and thresholds over them evaluate, without trapping.
    @Test func extremeValidFiguresPrintAndEvaluate() throws {
        var report = try Self.fixture("labels")
        report.config.rate = 1e300
        report.elapsedSeconds = 1e-9
        report.messages.timedOut = .max
        report.messages.lost = .max
        report.bytes.sent = .max
        let merged = try LoadReport.merge([report])
        #expect(merged.text.contains("open loop at 9,223,372,036,854,775,807/s"))
        #expect(try Threshold(parsing: "errors<1%").evaluate(merged).passed == false)
        #expect(try Threshold(parsing: "errors<5").evaluate(merged).passed == false)
        #expect(decimal(1e300, places: 2) == "1e+300")
    }
}
