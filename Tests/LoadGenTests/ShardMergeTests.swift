import Foundation
import SocketEngine
import Testing

@testable import LoadGen
import TestSupport

/// `report merge` of the shards of one test (issue 32): which shards are there (`--expect N`),
/// where each part lies in time (timelines by absolute time, overlap under 90 %: a warning,
/// with `--strict` a failure), and which parts fell behind (their corrected latency not valid).
@Suite(.hangGuard) struct ShardMergeTests {
    /// The closed-loop fixture as shard `index` of `count`, 10 s measured from `start` seconds
    /// after 12:00:00 (one timeline entry per second, 10 messages each).
    static func part(_ index: Int?, of count: Int = 3, start: Double = 0) throws -> LoadReport {
        var report = try ReportMergeValidationTests.fixture("closed-loop")
        report.shard = index.map { "\($0)/\(count)" }
        let whole = Int(start)
        let millis = Int(((start - Double(whole)) * 1000).rounded())
        report.startedAt = String(format: "2026-11-27T12:%02d:%02d.%03dZ", whole / 60, whole % 60, millis)
        report.elapsedSeconds = 10
        report.timeline = (1...10).map { LoadReport.Interval(second: $0, span: 1, open: 2, sent: 30, received: 30, errors: 0, p50: 1, p99: 2) }
        return report
    }

    static func refusal(_ parts: [(name: String, report: LoadReport)], _ rules: MergeRules) -> String? {
        do {
            _ = try LoadReport.merge(named: parts, rules: rules)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func theExpectedShardsMergeAndAreRecorded() throws {
        let parts = try [("a.json", Self.part(0)), ("b.json", Self.part(1, start: 0.2)), ("c.json", Self.part(2, start: 0.4))]
        let merged = try LoadReport.merge(named: parts.map { (name: $0.0, report: $0.1) }, rules: MergeRules(expectedShards: 3))
        let findings = try #require(merged.mergeFindings)
        #expect(findings.shards == ["0/3", "1/3", "2/3"])
        #expect(findings.expected == 3)
        #expect(findings.correctedLatencyValid)
        #expect(abs(findings.overlapSeconds - 9.6) < 1e-6)
        #expect(findings.overlapShare == 0.96)
        #expect(merged.mergeWarnings.isEmpty)
        #expect(merged.shard == nil)
        #expect(merged.messages.sent == 900)
        // From the earliest start to the latest end.
        #expect(merged.elapsedSeconds == 10.4)
        #expect(merged.text.contains("merged      3 parts, shards 0/3, 1/3, 2/3 (all 3 expected); measured together 9.60 s, 96% of the shortest part"))
        #expect(merged.text.contains("every part kept its schedule: corrected latency is valid"))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(merged)) as? [String: Any]
        let section = try #require(json?["merge"] as? [String: Any])
        #expect(section["corrected_latency_valid"] as? Bool == true)
        #expect(section["shards"] as? [String] == ["0/3", "1/3", "2/3"])
    }

    @Test func aMissingDuplicateOrForeignShardFailsTheMergeNamingIt() throws {
        let expect3 = MergeRules(expectedShards: 3)
        #expect(Self.refusal([("a.json", try Self.part(0)), ("c.json", try Self.part(2))], expect3) == "1 of the 3 shards expected is missing: 1/3")
        #expect(Self.refusal([("a.json", try Self.part(0))], expect3) == "2 of the 3 shards expected are missing: 1/3, 2/3")
        #expect(Self.refusal([("a.json", try Self.part(0)), ("b.json", try Self.part(1)), ("b2.json", try Self.part(1)), ("c.json", try Self.part(2))], expect3)
            == "shard 1 is there twice: b.json and b2.json")
        #expect(Self.refusal([("a.json", try Self.part(0)), ("b.json", try Self.part(1)), ("c.json", try Self.part(2, of: 4))], expect3)
            == "c.json is shard 2/4 of 4, not of the 3 expected")
        #expect(Self.refusal([("a.json", try Self.part(0)), ("b.json", try Self.part(nil)), ("c.json", try Self.part(2))], expect3)
            == "b.json is not a shard (it has no shard K/N): cannot check it against the shards expected")
        // Without --expect: a duplicate or a mix of splits is still refused.
        #expect(Self.refusal([("a.json", try Self.part(0)), ("b.json", try Self.part(0))], MergeRules()) == "shard 0 is there twice: a.json and b.json")
        #expect(Self.refusal([("a.json", try Self.part(0)), ("b.json", try Self.part(1, of: 2))], MergeRules()) == "the parts are shards of different splits (of 2, 3)")
        // A shard that is not one: refused as a field of the file.
        var bad = try Self.part(0)
        bad.shard = "3/3"
        #expect(Self.refusal([("a.json", bad)], MergeRules()) == "a.json: shard: shard 3 of 3 does not exist: shards are numbered 0 to 2")
    }

    /// A part that started 2 s after the first has its timeline moved by 2 s: second 1 of it
    /// is second 3 of the merged run.
    @Test func timelinesAreAddedByAbsoluteTime() throws {
        let merged = try LoadReport.merge(named: [(name: "a.json", report: try Self.part(0, of: 2)), (name: "b.json", report: try Self.part(1, of: 2, start: 2.1))])
        let sent = Dictionary(uniqueKeysWithValues: merged.timeline.map { ($0.second, $0.sent) })
        #expect(sent[1] == 30 && sent[2] == 30)
        #expect(sent[3] == 60 && sent[10] == 60)
        #expect(sent[11] == 30 && sent[12] == 30)
        #expect(merged.timeline.map(\.second) == Array(1...12))
        #expect(merged.elapsedSeconds == 12.1)
    }

    /// Windows that overlap by less than 90 % of the shortest: a warning naming the late part,
    /// a failure with strict rules.
    @Test func partsMeasuredAtDifferentTimesAreCalledOut() throws {
        let parts = [(name: "a.json", report: try Self.part(0)), (name: "b.json", report: try Self.part(1)), (name: "late.json", report: try Self.part(2, start: 4))]
        let merged = try LoadReport.merge(named: parts, rules: MergeRules(expectedShards: 3))
        let warning = "the parts were measured together for 6.00 s, 60% of the shortest (a.json, 10.00 s), less than 90%: late.json started 4.00 s after the first; their sums are not one test"
        #expect(merged.mergeWarnings.map(\.description) == [warning])
        #expect(merged.warnings.map(\.description).contains(warning))
        #expect(merged.mergeFindings?.overlapShare == 0.6)
        #expect(Self.refusal(parts, MergeRules(expectedShards: 3, strict: true)) == warning)
        // Parts that never met at all.
        let apart = [(name: "a.json", report: try Self.part(0, of: 2)), (name: "b.json", report: try Self.part(1, of: 2, start: 60))]
        #expect(try LoadReport.merge(named: apart).mergeFindings?.overlapSeconds == 0)
        // 91 %: fine.
        let close = [(name: "a.json", report: try Self.part(0, of: 2)), (name: "b.json", report: try Self.part(1, of: 2, start: 0.9))]
        #expect(try LoadReport.merge(named: close, rules: MergeRules(strict: true)).mergeWarnings.isEmpty)
    }

    /// An open-loop part with messages due and never sent, or one that ran out of descriptors,
    /// is named, and the merged verdict says its corrected latency is not valid.
    @Test func aPartThatFellBehindIsFlaggedAndItsCorrectedLatencyDisowned() throws {
        var behind = try Self.part(1)
        behind.config.rate = 1000
        behind.messages.intended = 400
        behind.messages.unsent = 100
        var starved = try Self.part(2)
        starved.errors["fd-exhausted"] = 7
        let merged = try LoadReport.merge(named: [(name: "a.json", report: try Self.part(0)), (name: "b.json", report: behind), (name: "c.json", report: starved)])
        let findings = try #require(merged.mergeFindings)
        #expect(!findings.correctedLatencyValid)
        #expect(findings.behind.map(\.part) == ["b.json", "c.json"])
        #expect(findings.behind.first?.reasons == ["fell behind its schedule (100 of 400 messages due were not sent)"])
        #expect(findings.behind.last?.reasons == ["ran out of file descriptors (7 fd-exhausted errors)"])
        #expect(merged.text.contains("corrected latency NOT valid for b.json (shard 1/3): fell behind its schedule (100 of 400 messages due were not sent)"))
        #expect(merged.mergeWarnings.map(\.description).contains("c.json (shard 2/3): ran out of file descriptors (7 fd-exhausted errors): its corrected latency is not valid"))
        // A closed-loop part with unsent messages (requests not all sent) did not fall behind a schedule.
        var closed = try Self.part(1)
        closed.messages.unsent = 5
        #expect(try LoadReport.merge(named: [(name: "a.json", report: try Self.part(0)), (name: "b.json", report: closed)]).mergeFindings?.correctedLatencyValid == true)
    }
}
