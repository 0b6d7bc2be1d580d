import Histogram
import NIOCore
import SocketEngine
import Testing

@testable import LoadGen
import TestSupport

@Suite(.hangGuard) struct RateScheduleTests {
    @Test func constantRateSchedulesExactlyRateTimesDuration() {
        let schedule = RateSchedule(rate: 2000, duration: .seconds(5))
        #expect(schedule.totalMessages == 10_000)
        #expect(schedule.time(ofMessage: 0) == 0)
        #expect(schedule.time(ofMessage: 1) == 500_000)
        #expect(schedule.time(ofMessage: 9_999) == 4_999_500_000)
        #expect(schedule.time(ofMessage: 10_000) == nil)
        #expect(schedule.messagesDue(before: 5_000_000_000) == 10_000)
        #expect(schedule.messagesDue(before: 1_000_000_000) == 2000)
        #expect(schedule.messagesDue(before: 1_000_000_001) == 2001)
        #expect(schedule.end == .seconds(5))
    }

    @Test func openEndedRateNeverEnds() {
        let schedule = RateSchedule(rate: 100, duration: nil)
        #expect(schedule.end == nil)
        #expect(schedule.totalMessages == nil)
        #expect(schedule.time(ofMessage: 1_000_000) == 10_000_000_000_000)
    }

    /// A ramp from 0 to 1000/s over 10 s holds 5000 messages, ever closer together.
    @Test func rampsSpaceMessagesByTheRateAtTheirTime() throws {
        let stages = try RateSchedule.stages(parsing: "10s:1000,5s:1000,10s:0", initialRate: 0)
        #expect(stages.map(\.startRate) == [0, 1000, 1000])
        #expect(stages.map(\.endRate) == [1000, 1000, 0])
        let schedule = RateSchedule(stages: stages)
        #expect(schedule.totalMessages == 5000 + 5000 + 5000)
        #expect(schedule.messagesDue(before: 10_000_000_000) == 5000)
        #expect(schedule.messagesDue(before: 15_000_000_000) == 10_000)
        // Due times rise, and the gaps shrink during the ramp-up and grow during the ramp-down.
        var previous: Int64 = -1
        var gaps: [Int64] = []
        for n in 0..<15_000 {
            let time = try #require(schedule.time(ofMessage: n))
            #expect(time >= previous)
            if previous >= 0 { gaps.append(time - previous) }
            previous = time
        }
        #expect(gaps[100] > gaps[4000])
        #expect(gaps[12_000] > gaps[10_500])
        #expect(schedule.rate(at: 5) == 500)
        #expect(schedule.rate(at: 20) == 500)
        // messagesDue(before:) and time(ofMessage:) agree.
        for n in [1, 10, 4999, 5000, 7777, 14_999] {
            let time = try #require(schedule.time(ofMessage: n))
            #expect(schedule.messagesDue(before: time) <= n)
            #expect(schedule.messagesDue(before: time + 1) >= n + 1)
        }
    }

    @Test(arguments: ["", "10s", "10s:abc", "10s:-5", ":100", "10s:100,", "0s:100", "soon:100"])
    func badStagesAreRefused(text: String) {
        let error = #expect(throws: LoadGenError.self) { try RateSchedule.stages(parsing: text, initialRate: 0) }
        #expect(error?.code == .invalidStages)
    }
}

@Suite(.hangGuard) struct MessageTemplateTests {
    @Test func placeholdersAreFilledAndFramed() throws {
        let template = try MessageTemplate(Array(#"{"id":{{seq}},"c":{{conn}}}"#.utf8), framing: .crlf)
        #expect(!template.isConstant)
        #expect(String(buffer: template.message(sequence: 7, connection: 2)) == "{\"id\":7,\"c\":2}\r\n")
        #expect(String(buffer: template.message(sequence: 12345, connection: 10)) == "{\"id\":12345,\"c\":10}\r\n")
    }

    @Test func aTemplateWithoutPlaceholdersIsFramedOnce() throws {
        let template = try MessageTemplate(Array("ping {{other}}".utf8), framing: .lengthPrefixed(width: 2, bigEndian: true))
        #expect(template.isConstant)
        var buffer = ByteBuffer()
        template.append(sequence: 1, connection: 1, to: &buffer)
        template.append(sequence: 2, connection: 1, to: &buffer)
        #expect(Array(buffer.readableBytesView) == [0, 14] + Array("ping {{other}}".utf8) + [0, 14] + Array("ping {{other}}".utf8))
    }

    @Test func fixedFramingPadsOrCutsNumberedMessages() throws {
        let template = try MessageTemplate(Array("m{{seq}}".utf8), framing: .fixed(4))
        #expect(String(buffer: template.message(sequence: 1, connection: 1)) == "m1  ")
        #expect(String(buffer: template.message(sequence: 123_456, connection: 1)) == "m123")
        #expect(throws: LoadGenError.self) { try MessageTemplate(Array("toolong{{seq}}".utf8), framing: .fixed(4)) }
        #expect(throws: LoadGenError.self) { try MessageTemplate(Array("abc".utf8), framing: .fixed(4)) }
    }

    @Test func aLengthPrefixTooNarrowForTheWidestNumbersIsRefused() {
        let body = [UInt8](repeating: 0x61, count: 250) + Array("{{seq}}".utf8)
        #expect(throws: LoadGenError.self) { try MessageTemplate(body, framing: .lengthPrefixed(width: 1, bigEndian: true)) }
    }
}

@Suite(.hangGuard) struct ThresholdTests {
    static func report(p99 micros: Double, sent: Int = 1000, lost: Int = 0, received: Double = 5000) throws -> LoadReport {
        var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: .three)
        histogram.record(UInt64(micros * 1000), count: 100)
        var report = LoadReport(
            target: "127.0.0.1:1", address: nil, transport: "tcp", startedAt: "2026-11-23T00:00:00Z",
            config: .init(connections: 1, connectRate: nil, durationSeconds: 1, requests: nil, rate: nil, stages: nil, pipeline: 1, threads: 1,
                          warmupSeconds: 0, framing: "line", messageBytes: 5, timeoutSeconds: 5),
            elapsedSeconds: 1,
            connections: .init(requested: 1, attempted: 1, established: 1, failed: 0, lost: 0, peakOpen: 1),
            messages: .init(intended: nil, sent: sent, received: sent - lost, timedOut: 0, lost: lost, unsent: 0, warmupSent: 0),
            bytes: .init(sent: 0, received: 0),
            throughput: .init(offeredPerSecond: nil, sentPerSecond: Double(sent), receivedPerSecond: received, sentBytesPerSecond: 0, receivedBytesPerSecond: 0),
            latency: nil, histograms: nil, errors: [:], errorExamples: [:], timeline: [], warnings: [], peakRSSBytes: 0)
        report.setLatency(corrected: histogram, uncorrected: histogram)
        return report
    }

    @Test(arguments: [
        ("p99<50ms", 49_000.0, true), ("p99<50ms", 51_000.0, false), ("p99 < 50 ms", 49_000.0, true),
        ("p99<=50000us", 49_900.0, true), ("p99<50000us", 50_000.0, false), ("p99<1s", 999_000.0, true), ("p99<50", 51_000.0, false),
    ])
    func latencyThresholds(text: String, p99: Double, passes: Bool) throws {
        let threshold = try Threshold(parsing: text)
        let result = threshold.evaluate(try Self.report(p99: p99))
        // 3 significant digits: the recorded value may read back a little higher.
        #expect(result.passed == passes, "\(text) with p99 \(p99)µs measured \(String(describing: result.measured))")
    }

    @Test func errorAndRateThresholds() throws {
        let report = try Self.report(p99: 100, sent: 1000, lost: 2, received: 5000)
        #expect(try Threshold(parsing: "errors<0.1%").evaluate(report).passed == false)
        #expect(try Threshold(parsing: "errors<0.5%").evaluate(report).passed == true)
        #expect(try Threshold(parsing: "errors<3").evaluate(report).passed == true)
        #expect(try Threshold(parsing: "errors<2").evaluate(report).passed == false)
        #expect(try Threshold(parsing: "rate>4000").evaluate(report).passed == true)
        #expect(try Threshold(parsing: "rate>10000").evaluate(report).passed == false)
    }

    @Test(arguments: ["p98<5ms", "p99", "p99<fast", "latency<5ms", "<5ms"])
    func badThresholdsAreRefused(text: String) {
        let error = #expect(throws: LoadGenError.self) { try Threshold(parsing: text) }
        #expect(error?.code == .invalidThreshold)
        #expect(error?.flagged.hasPrefix("invalid --threshold '\(text)'") == true, "\(error?.flagged ?? "")")
    }

    /// More connections to one address than the local port range holds: the warning names
    /// the source setting by key (the CLI words it `--source`).
    @Test func thePortRangeWarningNamesTheSourceSetting() throws {
        let (low, high) = try #require(SystemLimits.localPortRange())
        let connections = high - low + 2
        let warnings = SystemLimits.preflight(connections: connections, descriptors: 4 * connections, tcp: true)
        let flagged = warnings.map { $0.rendered { "--" + $0.rawValue } }
        #expect(flagged == [
            "the local port range \(low)-\(high) holds \(high - low + 1) ports, fewer than \(connections) connections to one address: "
                + "widen it with `sysctl -w net.ipv4.ip_local_port_range=\"1024 65535\"`, or spread the connections over several --source addresses",
        ])
        #expect(warnings.first?.settings == [.source])
    }

    /// Merging three reports adds the counts and the histograms exactly.
    @Test func mergeAddsCountersAndHistograms() throws {
        let parts = try [Self.report(p99: 100, sent: 1000), Self.report(p99: 200, sent: 2000, lost: 5), Self.report(p99: 300, sent: 3000)]
        let merged = try LoadReport.merge(parts)
        #expect(merged.hosts == 3)
        #expect(merged.messages.sent == 6000)
        #expect(merged.messages.lost == 5)
        #expect(merged.connections.peakOpen == 3)
        let histograms = try #require(try merged.decodedHistograms())
        #expect(histograms.corrected.totalCount == 300)
        #expect(merged.latency?.corrected.p50 ?? 0 > 199 && merged.latency?.corrected.p50 ?? 0 < 201)
        var other = try Self.report(p99: 1)
        other.target = "127.0.0.1:2"
        #expect(throws: LoadGenError(.unmergeableReports, "the results are of different targets: report 1, report 2 and report 3 loaded 127.0.0.1:1 (tcp), report 4 loaded 127.0.0.1:2 (tcp)")) { try LoadReport.merge(parts + [other]) }
        #expect(throws: LoadGenError(.unmergeableReports, "nothing to merge")) { try LoadReport.merge([]) }
    }
}
