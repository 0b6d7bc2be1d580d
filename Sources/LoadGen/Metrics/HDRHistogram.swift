import Histogram

/// The run's latency histogram type (HdrHistogram, nanoseconds), under a name that does not
/// clash with swift-prometheus' `Histogram` in files that use both.
typealias HDRHistogram = Histogram<UInt64>
