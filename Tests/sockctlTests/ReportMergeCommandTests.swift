import Foundation
import TestSupport
import Testing

/// `sockctl report merge` of hostile part files, as a CI merge job meets them: exit 1 and one
/// line naming the file and the field, nothing on stdout, never a Swift trap (exit 132). Each
/// `b.json` is a real `loadtest --json` file (Tests/Reports/closed-loop.json) with one field
/// changed; `a.json` is the file unchanged (issue 26, point 3).
@Suite("sockctl report merge: hostile parts", .hangGuard)
struct ReportMergeCommandTests {
    /// What `b.json` gets, and what the merge must say.
    enum Hostile: String, CaseIterable, Sendable {
        /// A counter of 2^63−1 (overflowed when added).
        case counterAtIntMax
        /// A negative counter (was accepted and summed).
        case negativeCounter
        /// A histogram bucket count of 2^62 (trapped in the histogram library).
        case bucketCountOf2To62
        /// A histogram of two significant digits (trapped in the library's add).
        case otherSignificantDigits
        /// A histogram header the library cannot represent (trapped in its initializer).
        case unrepresentableHeader
        /// A timeline second of 2^62.
        case hugeTimelineSecond
        /// A negative timeline second.
        case negativeTimelineSecond
        /// An elapsed time of 1e300 s (trapped when printed).
        case hugeElapsedTime
        /// A rate of 1e999: JSON cannot hold infinity, so the file is not JSON.
        case infiniteRate

        /// Changes the report's JSON.
        func apply(to report: inout [String: Any]) {
            func set(_ section: String, _ key: String, _ value: Any) {
                var object = report[section] as? [String: Any] ?? [:]
                object[key] = value
                report[section] = object
            }
            switch self {
            case .counterAtIntMax: set("messages", "sent", Int.max)
            case .negativeCounter: set("connections", "failed", -1)
            case .bucketCountOf2To62:
                let histogram = ReportMergeCommandTests.histogram([-3000, 1 << 62])
                set("histograms", "corrected", histogram)
                set("histograms", "uncorrected", histogram)
            case .otherSignificantDigits:
                let histogram = ReportMergeCommandTests.histogram(digits: 2, [0, 5, 7])
                set("histograms", "corrected", histogram)
                set("histograms", "uncorrected", histogram)
            case .unrepresentableHeader: set("histograms", "corrected", ReportMergeCommandTests.histogram(digits: 1, lowest: (1 << 58) - 1, highest: 1 << 59, [5]))
            case .hugeTimelineSecond, .negativeTimelineSecond:
                var timeline = report["timeline"] as? [[String: Any]] ?? []
                timeline[0]["second"] = self == .hugeTimelineSecond ? 1 << 62 : -1
                report["timeline"] = timeline
            case .hugeElapsedTime: report["elapsed_seconds"] = 1e300
            case .infiniteRate: set("throughput", "sent_per_second", 123_456.5)
            }
        }

        /// The message after `sockctl report merge: error: `, for `a.json b.json` (`sent` is
        /// a.json's `messages.sent`).
        func message(sent: Int) -> String {
            switch self {
            case .counterAtIntMax: "b.json: messages.sent: \(sent) + 9223372036854775807 overflows"
            case .negativeCounter: "b.json: connections.failed: -1 is negative"
            case .bucketCountOf2To62: "b.json: histograms.corrected: histogram values add up past 2^64"
            case .otherSignificantDigits: "b.json: histograms.corrected: 2 significant digits, a.json has 3"
            case .unrepresentableHeader: "b.json: histograms.corrected: histogram range 288230376151711743...576460752303423488 with 1 digits is too large"
            case .hugeTimelineSecond: "b.json: timeline[0].second: 4611686018427387904 is not a second of a run (0 to 315360000)"
            case .negativeTimelineSecond: "b.json: timeline[0].second: -1 is not a second of a run (0 to 315360000)"
            case .hugeElapsedTime: "b.json: elapsed_seconds: 1e+300 s is longer than any run (at most 315360000 s, ten years)"
            case .infiniteRate: "b.json: not a sockctl load-test result (The given data was not valid JSON.)"
            }
        }

        /// Whether `b.json` alone is refused too (other digits are fine alone).
        var refusedAlone: Bool { self != .otherSignificantDigits && self != .counterAtIntMax }
    }

    /// An uncompressed HdrHistogram V2 encoding (ZigZag LEB128 words: a count per slot, -N for
    /// N empty slots), as base64.
    static func histogram(digits: UInt32 = 3, lowest: UInt64 = 1, highest: UInt64 = 3_600_000_000_000, _ words: [Int64]) -> String {
        var payload: [UInt8] = []
        for word in words {
            var value = UInt64(bitPattern: (word << 1) ^ (word >> 63))
            while value >= 0x80 {
                payload.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            payload.append(UInt8(value))
        }
        var bytes: [UInt8] = []
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }
        append(UInt32(0x1c84_9313))
        append(UInt32(payload.count))
        append(UInt32(0))
        append(digits)
        append(lowest)
        append(highest)
        append((1.0 as Double).bitPattern)
        return Data(bytes + payload).base64EncodedString()
    }

    @Test(arguments: Hostile.allCases)
    func hostilePartIsOneLineNamingFileAndField(hostile: Hostile) async throws {
        let scratch = try Scratch()
        let original = try Data(contentsOf: packageRoot.appendingPathComponent("Tests/Reports/closed-loop.json"))
        try original.write(to: URL(fileURLWithPath: scratch.path("a.json")))
        var report = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
        let sent = try #require((report["messages"] as? [String: Any])?["sent"] as? Int)
        hostile.apply(to: &report)
        var changed = String(decoding: try JSONSerialization.data(withJSONObject: report), as: UTF8.self)
        if hostile == .infiniteRate { changed = changed.replacingOccurrences(of: "123456.5", with: "1e999") }
        try Data(changed.utf8).write(to: URL(fileURLWithPath: scratch.path("b.json")))

        let pair = try await run(try tool("env"), ["-C", scratch.url.path, try sockctlPath(), "report", "merge", "a.json", "b.json"])
        #expect(pair.status == 1, "\(pair.stderr)")
        #expect(pair.stdout.isEmpty)
        #expect(pair.stderr == "sockctl report merge: error: \(hostile.message(sent: sent))\n")

        let alone = try await run(try tool("env"), ["-C", scratch.url.path, try sockctlPath(), "report", "merge", "b.json", "--json", "-"])
        #expect(alone.status == (hostile.refusedAlone ? 1 : 0), "\(alone.stderr)")
        #expect(!alone.stderr.contains("Fatal error"))
        if hostile.refusedAlone {
            #expect(alone.stderr == "sockctl report merge: error: \(hostile.message(sent: sent))\n")
        }
    }
}
