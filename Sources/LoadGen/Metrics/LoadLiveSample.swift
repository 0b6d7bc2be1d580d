import Histogram

/// What the runner knows of a run once a second: the totals so far and the rates now, handed to
/// ``LoadMetrics`` (the live `/metrics` numbers).
struct LoadLiveSample: Sendable {
    /// The totals of the measured part so far (the warm-up's apart).
    var counters: LoadCounters
    /// Connections open now.
    var open: Int
    /// Messages sent per second over the last sample period (warm-up included while it runs).
    var sentPerSecond: Double
    /// What the schedule asks for now (open loop); nil in a closed loop.
    var targetRate: Double?
    /// Seconds since the measured part began (negative during the warm-up).
    var elapsedSeconds: Double
    /// Every latency so far, corrected and uncorrected.
    var corrected: Histogram<UInt64>
    var uncorrected: Histogram<UInt64>
    /// Each `--label` value's figures so far (none without `--label`).
    var labels: [LabelTable.Entry] = []
}
