import Prometheus

/// Carries a run's HDR latency histogram (nanoseconds) into a Prometheus histogram.
///
/// The run keeps its latencies in an HdrHistogram; Prometheus wants cumulative counts per bucket
/// bound. Each ``feed(_:)`` is given the whole HDR histogram so far and records into the
/// Prometheus one what was added since the last: for every HDR value range, the difference in
/// counts, each at the range's median value (HdrHistogram's own choice for its mean; at three
/// significant digits it is within 0.1 % of every value in the range). So the Prometheus
/// histogram's `_count` is the HDR histogram's count exactly, and a bucket holds the values at
/// or below its bound give or take that 0.1 %. Not thread-safe: call it inside
/// `MetricsRegistry.update`.
final class LatencyFeed: @unchecked Sendable {
    let histogram: DurationHistogram
    /// What has been recorded into ``histogram`` so far.
    private var applied: HDRHistogram

    /// Bucket bounds from 50 µs to 10 s: loopback to a stalled service.
    static let buckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
        .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    init(histogram: DurationHistogram) {
        self.histogram = histogram
        applied = LoadStats.makeHistogram()
    }

    /// Records what `total` holds beyond what was fed before. A `total` that holds less than
    /// before (not from the same run) is ignored.
    func feed(_ total: HDRHistogram) {
        guard total.totalCount > applied.totalCount else { return }
        for entry in total.recordedValues() {
            let before = applied.countForValue(entry.value)
            guard entry.count > before else { continue }
            let value = Duration.nanoseconds(Int64(clamping: total.medianEquivalentForValue(entry.value)))
            for _ in 0..<(entry.count - before) { histogram.record(value) }
        }
        applied = total
    }

    /// How many latencies have been fed.
    var count: UInt64 { applied.totalCount }
}
