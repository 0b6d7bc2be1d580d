import Prometheus

/// A Prometheus counter set from a running total kept elsewhere (a load test's counters, a
/// listener's statistics): each ``set(_:)`` adds what the total grew by since the last.
///
/// swift-prometheus' `Counter` only goes up, by a non-negative amount (a negative one traps);
/// a total that went down (a source that was reset) resets the counter and adds the new total,
/// which Prometheus' `rate()` reads as a counter reset. Not thread-safe: call it inside
/// ``MetricsRegistry/update(_:)``.
public final class TotalCounter: @unchecked Sendable {
    /// The counter in the registry.
    public let counter: Counter
    private var applied: Int64 = 0

    /// The counter `descriptor` names, with `labels`, made in `registry`.
    public init(_ registry: MetricsRegistry, _ descriptor: MetricNameDescriptor, labels: [(String, String)] = []) {
        counter = registry.prometheus.makeCounter(descriptor: descriptor, labels: labels)
    }

    /// Makes the counter show `total`.
    public func set(_ total: Int) {
        let total = Int64(clamping: max(0, total))
        if total >= applied {
            if total > applied { counter.increment(by: total - applied) }
        } else {
            counter.reset()
            counter.increment(by: total)
        }
        applied = total
    }

    /// The total the counter shows.
    public var value: Int { Int(applied) }
}
