import SocketEngine

/// A pass/fail rule for CI: `p99<50ms`, `p50<=5ms`, `errors<0.1%`, `errors<5`, `rate>10000`,
/// `unmatched<1%`, `status5xx<1%`, `non2xx<=0`.
///
/// Metrics:
/// - `min`, `mean`, `p50`, `p90`, `p99`, `p99.9`, `p99.99`, `max`: corrected latency (from
///   the time each message was due); the value takes a unit `us`, `ms` or `s` (bare: ms).
/// - `errors`: messages timed out or lost plus failed connection attempts; as a count, or with
///   `%` as a share of messages sent plus connection attempts.
/// - `rate`: messages answered per second (sent per second in a send-only run).
/// - `unmatched` (`--correlate`): replies that answered no message; as a count, or with `%` as
///   a share of every reply (answered plus unmatched). Not measured without `--correlate`.
/// - `status1xx` … `status5xx`, `non2xx` (HTTP targets): final responses of that class (`non2xx`:
///   of any class but 2xx); as a count, or with `%` as a share of the responses received. Not
///   measured on a run of other targets.
///
/// A latency threshold on a run that measured no latency fails (nothing was shown to be fast).
public struct Threshold: Sendable, Equatable, CustomStringConvertible {
    package enum Metric: String, Sendable, CaseIterable {
        case min, mean, p50, p90, p99
        case p99_9 = "p99.9"
        case p99_99 = "p99.99"
        case max, errors, rate, unmatched
        case status1xx, status2xx, status3xx, status4xx, status5xx, non2xx

        /// A count of HTTP responses (measured on HTTP runs only).
        var isHTTP: Bool {
            switch self {
            case .status1xx, .status2xx, .status3xx, .status4xx, .status5xx, .non2xx: true
            default: false
            }
        }
    }

    /// How the measured value must compare with ``Threshold/limit``: `<`, `<=`, `>` or `>=`.
    public enum Comparison: String, Sendable {
        case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    /// The threshold as written (`p99<50ms`).
    public let text: String
    package let metric: Metric
    package let comparison: Comparison
    /// Microseconds for latency, a count or a fraction (0…1) for errors, unmatched and HTTP
    /// statuses, messages/s for rate.
    public let limit: Double
    package let isPercentage: Bool

    /// The threshold as written.
    public var description: String { text }

    /// Parses a `--threshold` expression (whitespace ignored; latency without a unit is in ms).
    /// Throws ``LoadGenError/Code/invalidThreshold`` naming what does not parse.
    public init(parsing text: String) throws(LoadGenError) {
        self.text = text
        let trimmed = text.filter { !$0.isWhitespace }
        let operators: [Comparison] = [.lessOrEqual, .greaterOrEqual, .less, .greater]
        guard let comparison = operators.first(where: { trimmed.contains($0.rawValue) }),
              let range = trimmed.range(of: comparison.rawValue) else {
            throw LoadGenError(.invalidThreshold, "invalid \(.threshold) '\(text)' (expected e.g. p99<50ms, errors<0.1%, rate>10000, unmatched<1%, status5xx<1%)")
        }
        let name = String(trimmed[..<range.lowerBound])
        var value = String(trimmed[range.upperBound...])
        guard let metric = Metric(rawValue: name) else {
            let known = Metric.allCases.map(\.rawValue).joined(separator: ", ")
            throw LoadGenError(.invalidThreshold, "invalid \(.threshold) '\(text)': unknown metric '\(name)' (known: \(known))")
        }
        self.metric = metric
        self.comparison = comparison
        var scale = 1.0
        var percentage = false
        switch metric {
        case .errors, .unmatched, .status1xx, .status2xx, .status3xx, .status4xx, .status5xx, .non2xx:
            if value.hasSuffix("%") {
                value.removeLast()
                scale = 0.01
                percentage = true
            }
        case .rate:
            if value.hasSuffix("/s") { value.removeLast(2) }
        default:
            let units: [(String, Double)] = [("us", 1), ("µs", 1), ("ms", 1000), ("s", 1_000_000)]
            scale = 1000
            for (suffix, factor) in units where value.hasSuffix(suffix) {
                value.removeLast(suffix.count)
                scale = factor
                break
            }
        }
        guard let number = Double(value), number.isFinite, number >= 0 else {
            throw LoadGenError(.invalidThreshold, "invalid \(.threshold) '\(text)': '\(value)' is not a number")
        }
        limit = number * scale
        isPercentage = percentage
    }

    /// The measured value this threshold compares (µs, count, fraction or messages/s).
    package func measured(in report: LoadReport) -> Double? {
        let latency = report.latency?.corrected
        switch metric {
        case .min: return latency?.min
        case .mean: return latency?.mean
        case .p50: return latency?.p50
        case .p90: return latency?.p90
        case .p99: return latency?.p99
        case .p99_9: return latency?.p99_9
        case .p99_99: return latency?.p99_99
        case .max: return latency?.max
        case .errors:
            // Added as Doubles: the counts of a merged report may be near Int.max each.
            let failures = Double(report.messages.timedOut) + Double(report.messages.lost) + Double(report.connections.failed)
            guard isPercentage else { return failures }
            let denominator = Double(report.messages.sent) + Double(report.connections.attempted)
            return denominator > 0 ? failures / denominator : (failures > 0 ? 1 : 0)
        case .rate:
            return report.config.framing == nil ? report.throughput.sentPerSecond : report.throughput.receivedPerSecond
        case .unmatched:
            guard let unmatched = report.messages.unmatched.map(Double.init) else { return nil }
            guard isPercentage else { return unmatched }
            let replies = Double(report.messages.received) + unmatched
            return replies > 0 ? unmatched / replies : 0
        case .status1xx, .status2xx, .status3xx, .status4xx, .status5xx, .non2xx:
            guard let http = report.http else { return nil }
            let total = http.total
            let count = switch metric {
            case .status1xx: http.count(ofClass: 1)
            case .status2xx: http.count(ofClass: 2)
            case .status3xx: http.count(ofClass: 3)
            case .status4xx: http.count(ofClass: 4)
            case .status5xx: http.count(ofClass: 5)
            default: total - http.count(ofClass: 2)
            }
            guard isPercentage else { return Double(count) }
            return total > 0 ? Double(count) / Double(total) : 0
        }
    }

    /// Why ``measured(in:)`` has no value for `report` (nil when it has one).
    package func unmeasuredReason(in report: LoadReport) -> String? {
        guard measured(in: report) == nil else { return nil }
        switch metric {
        case .unmatched: return "not measured: replies are matched by a correlation rule only"
        case _ where metric.isHTTP: return "not measured: the run had no HTTP targets"
        default: return "not measured: no reply came back"
        }
    }

    /// Compares the report's value with ``limit``; fails when the report has none (no latency measured).
    public func evaluate(_ report: LoadReport) -> ThresholdResult {
        guard let value = measured(in: report) else {
            return ThresholdResult(threshold: text, measured: nil, passed: false, reason: unmeasuredReason(in: report))
        }
        let passed: Bool
        switch comparison {
        case .less: passed = value < limit
        case .lessOrEqual: passed = value <= limit
        case .greater: passed = value > limit
        case .greaterOrEqual: passed = value >= limit
        }
        return ThresholdResult(threshold: text, measured: value, passed: passed)
    }
}

/// One threshold's verdict, as kept in the report.
public struct ThresholdResult: Codable, Sendable, Equatable {
    /// The threshold as written (``Threshold/text``).
    public var threshold: String
    /// In the threshold's own terms: µs for latency, a count or a fraction for errors, /s for rate.
    package var measured: Double?
    /// Whether the measured value met the limit; false when nothing was measured.
    public var passed: Bool
    /// Why nothing was measured (`not measured: the run had no HTTP targets`); absent when it was.
    package var reason: String? = nil
}
