import Histogram
import SocketEngine

/// The result of a load test, or of several merged: every figure the run measured, and
/// nothing it did not. Encoded as the `--json` file (schema ``schemaVersion``), decoded again
/// by `sockctl report merge`.
///
/// Schema 2 added ``http`` (HTTP targets' responses by status); reports of schema 1 still
/// merge (the field absent).
///
/// Latency is in microseconds (with fractions); the full histograms are in HdrHistogram's
/// standard encoding with values in nanoseconds. "Corrected" latency runs from the time a
/// message was due (open loop) — what a user of the service waits; "uncorrected" from the time
/// it was actually sent. In a closed loop both are the same.
public struct LoadReport: Codable, Sendable {
    package static let schemaVersion = "sockctl.loadtest/2"
    /// The schemas a merge reads: this one and the ones before it.
    package static let readableSchemas: Set<String> = ["sockctl.loadtest/1", schemaVersion]

    package var schema = LoadReport.schemaVersion
    /// The targets as given: up to three, or the first and how many more.
    public var target: String
    /// The address the connections went to (`127.0.0.1:7000`).
    public var address: String?
    /// The targets' transport: `tcp`, `udp`, `unix`, `tls`, `ws` or `wss`.
    public var transport: String
    /// UTC, ISO 8601, when the measured part began (the earliest, merged).
    package var startedAt: String
    /// How many runs this report adds up (1 unless merged).
    package var hosts = 1
    package var config: Config
    /// Seconds from the end of the warm-up to the end of sending (the longest, merged).
    package var elapsedSeconds: Double
    /// How many connections were asked for, attempted, established, failed and lost.
    public var connections: Connections
    /// What became of the messages of the measured part.
    public var messages: Messages
    /// Bytes sent and received in the measured part.
    public var bytes: Bytes
    package var throughput: Throughput
    package var latency: Latency?
    package var histograms: Histograms?
    /// `tls://`: TLS handshake times, µs, and their histogram (ns), apart from message latency.
    package var tlsHandshake: Percentiles?
    package var tlsHandshakeHistogram: String?
    /// Through a proxy: the proxy (its password never shown), and each tunnel's handshake — the
    /// proxy's own part of the connect time — µs, and their histogram (ns).
    package var proxy: String?
    package var proxyTunnel: Percentiles?
    package var proxyTunnelHistogram: String?
    /// Errors by kind (see ``ErrorKind``).
    public var errors: [String: Int]
    /// The first message seen for each error kind.
    package var errorExamples: [String: String]
    /// One entry per second of the measured part.
    package var timeline: [Interval]
    /// Why the run may not show what was asked (descriptor limit, failed probe, connections
    /// that could not be opened): one line each, not errors, naming settings by key.
    @ReportLines public var warnings: [SettingText]
    package var peakRSSBytes: Int
    /// The verdicts of the `--threshold` rules, set by the caller after the run (dropped by a merge).
    public var thresholds: [ThresholdResult] = []
    /// `loadtest --from-pcap`: the replay and its verification (absent from other runs).
    public var replay: Replay? = nil
    /// `--label`: counts and latency per label value.
    package var labels: Labels?
    /// True when the run was stopped before its end (``LoadRunner/stop()``: SIGINT, SIGTERM) and
    /// the figures cover the run until then; merged, when any part was. Absent in reports older
    /// than the field.
    public var interrupted: Bool? = nil
    /// HTTP targets: the responses by status code and class, the server's closes and the
    /// interim responses (absent for other transports, and in reports older than schema 2).
    public var http: HTTP? = nil

    package struct Config: Codable, Sendable, Equatable {
        /// The pipeline depth that means "unlimited" (the largest ``LoadPlan/maximumPipeline`` takes).
        package static let unlimitedPipeline = 65_536

        package var connections: Int
        package var connectRate: Double?
        package var durationSeconds: Double?
        package var requests: Int?
        package var rate: Double?
        package var stages: String?
        package var pipeline: Int
        package var threads: Int
        package var warmupSeconds: Double
        package var framing: String?
        package var messageBytes: Int
        package var timeoutSeconds: Double
        /// `events` (event loops, ``threads`` of them) or `threads` (``threads`` threads of
        /// plain system calls, one per connection when there are as many); absent in reports
        /// older than the field.
        package var io: String? = nil
        /// The `--correlate` rule (absent: replies matched in order).
        package var correlate: String? = nil
        /// The `--label` rule.
        package var label: String? = nil
    }

    /// The connections of a run, ramp-up included; reopening a connection is another attempt.
    public struct Connections: Codable, Sendable {
        /// The connections asked for (`--connections`; summed when merged).
        public var requested: Int
        package var attempted: Int
        package var established: Int
        /// Connect attempts that failed (refused, timed out, TLS handshake or WebSocket upgrade failed),
        /// and connections not attempted for lack of file descriptors.
        public var failed: Int
        /// Established connections that ended before the run did (and were reopened).
        public var lost: Int
        /// Most connections open at the same time.
        public var peakOpen: Int
    }

    /// What became of the messages of the measured part (those sent during the warm-up apart):
    /// each one sent was received, timed out or lost.
    public struct Messages: Codable, Sendable {
        /// Due by the schedule (open loop, or `--requests`); nil for an unpaced run by time.
        package var intended: Int?
        /// Messages sent in the measured part (due after the warm-up).
        public var sent: Int
        /// Messages answered by a reply.
        public var received: Int
        /// Messages with no reply within the reply timeout (``LoadPlan/replyTimeout``).
        public var timedOut: Int
        /// Messages unanswered when their connection failed or the run ended.
        public var lost: Int
        package var unsent: Int
        package var warmupSent: Int
        /// `--correlate`: replies that answered no unanswered message (no key, or a key none
        /// had): pushed by the server, or duplicates. Absent without `--correlate`.
        package var unmatched: Int? = nil
    }

    /// Bytes of the measured part with their framing (over WebSocket, the message payloads).
    public struct Bytes: Codable, Sendable {
        /// The messages sent after the warm-up, framed.
        public var sent: Int
        /// The replies to those messages, plus any reply to nothing (every byte read in a send-only run).
        public var received: Int
    }

    /// Messages and bytes per second over the measured part (a merged report: its totals over
    /// the longest run).
    public struct Throughput: Codable, Sendable {
        /// What the schedule asked for (open loop).
        package var offeredPerSecond: Double?
        package var sentPerSecond: Double
        package var receivedPerSecond: Double
        package var sentBytesPerSecond: Double
        package var receivedBytesPerSecond: Double
    }

    /// Latency percentiles in microseconds, made from a nanosecond histogram: for message latency
    /// (``Latency``) and TLS handshake times.
    public struct Percentiles: Codable, Sendable, Equatable {
        /// How many values the histogram holds (answered messages, or handshakes).
        public var count: Int
        package var min: Double
        package var mean: Double
        package var p50: Double
        package var p90: Double
        package var p99: Double
        package var p99_9: Double
        package var p99_99: Double
        package var max: Double

        enum CodingKeys: String, CodingKey {
            case count, min, mean, p50, p90, p99, max
            case p99_9 = "p99.9"
            case p99_99 = "p99.99"
        }

        /// Microseconds from a nanosecond histogram (nil when it is empty).
        ///
        /// Computed as HdrHistogram defines them (the highest value equivalent to the bucket
        /// where the percentile falls; min the lowest equivalent), from the counts alone, so a
        /// histogram decoded from the report gives the same numbers as the live one.
        public init?(_ histogram: Histogram<UInt64>) {
            guard histogram.totalCount > 0 else { return nil }
            let total = histogram.totalCount
            let levels: [Double] = [50, 90, 99, 99.9, 99.99]
            let targets = levels.map { level -> UInt64 in
                let fraction = Swift.min(Swift.max(level.nextDown, 0), 100) * Double(total) / 100
                return Swift.max(1, UInt64(fraction.rounded(.up)))
            }
            var values = [UInt64](repeating: 0, count: levels.count)
            var lowest: UInt64?
            var highest: UInt64 = 0
            var seen: UInt64 = 0
            var next = 0
            for step in histogram.recordedValues() where step.count > 0 {
                if lowest == nil { lowest = step.value == 0 ? 0 : histogram.lowestEquivalentForValue(step.value) }
                seen += UInt64(step.count)
                let top = histogram.highestEquivalentForValue(step.value)
                highest = top
                while next < targets.count && seen >= targets[next] {
                    values[next] = top
                    next += 1
                }
            }
            func micros(_ nanos: UInt64) -> Double { Double(nanos) / 1000 }
            count = Int(clamping: total)
            min = micros(lowest ?? 0)
            mean = (histogram.mean / 1000 * 1000).rounded() / 1000
            p50 = micros(values[0])
            p90 = micros(values[1])
            p99 = micros(values[2])
            p99_9 = micros(values[3])
            p99_99 = micros(values[4])
            max = micros(highest)
        }
    }

    /// Message latency, corrected and uncorrected (see ``LoadReport``); absent when nothing was answered.
    public struct Latency: Codable, Sendable {
        /// The unit of the percentiles: `us` (microseconds).
        public var unit = "us"
        package var corrected: Percentiles
        package var uncorrected: Percentiles
    }

    /// The histograms behind ``Latency``, encoded, so that `sockctl report merge` can add them up.
    public struct Histograms: Codable, Sendable {
        /// The unit of the histograms' values: `ns` (nanoseconds).
        public var unit = "ns"
        package var encoding = "HdrHistogram V2 compressed, base64"
        package var corrected: String
        package var uncorrected: String
    }

    /// One entry of the report's per-second timeline; merged reports add the counts of the same second.
    public struct Interval: Codable, Sendable {
        /// Seconds since the start of the measured part, at the end of this interval.
        public var second: Int
        /// Seconds this interval covers: 1, or more when a sample came late (a busy machine),
        /// or less for the last one of a run that ended between two seconds (`--requests`);
        /// its counts are over the whole span.
        package var span: Double
        /// Connections open when the interval ended.
        public var open: Int
        /// Messages sent in this interval.
        public var sent: Int
        /// Replies received in this interval.
        public var received: Int
        /// Errors of any kind counted in this interval, failed connects included.
        public var errors: Int
        /// Corrected latency over this interval, µs (nil when merged or when nothing came back).
        package var p50: Double?
        package var p99: Double?
    }

    enum CodingKeys: String, CodingKey {
        case schema, target, address, transport, hosts, config, connections, messages, bytes, throughput, latency
        case histograms, errors, timeline, warnings, thresholds, labels
        case replay, interrupted, http
        case startedAt = "started_at"
        case elapsedSeconds = "elapsed_seconds"
        case errorExamples = "error_examples"
        case peakRSSBytes = "peak_rss_bytes"
        case tlsHandshake = "tls_handshake"
        case tlsHandshakeHistogram = "tls_handshake_histogram"
        case proxy
        case proxyTunnel = "proxy_tunnel"
        case proxyTunnelHistogram = "proxy_tunnel_histogram"
    }
}

extension LoadReport.Config {
    enum CodingKeys: String, CodingKey {
        case connections, requests, rate, stages, pipeline, threads, framing, io, correlate, label
        case connectRate = "connect_rate"
        case durationSeconds = "duration_seconds"
        case warmupSeconds = "warmup_seconds"
        case messageBytes = "message_bytes"
        case timeoutSeconds = "timeout_seconds"
    }
}

extension LoadReport.Connections {
    enum CodingKeys: String, CodingKey {
        case requested, attempted, established, failed, lost
        case peakOpen = "peak_open"
    }
}

extension LoadReport.Messages {
    enum CodingKeys: String, CodingKey {
        case intended, sent, received, lost, unsent, unmatched
        case timedOut = "timed_out"
        case warmupSent = "warmup_sent"
    }
}

extension LoadReport.Throughput {
    enum CodingKeys: String, CodingKey {
        case offeredPerSecond = "offered_per_second"
        case sentPerSecond = "sent_per_second"
        case receivedPerSecond = "received_per_second"
        case sentBytesPerSecond = "sent_bytes_per_second"
        case receivedBytesPerSecond = "received_bytes_per_second"
    }
}

extension LoadReport {
    /// The two latency histograms, decoded (nil when the report has none).
    package func decodedHistograms() throws(LoadGenError) -> (corrected: Histogram<UInt64>, uncorrected: Histogram<UInt64>)? {
        guard let histograms else { return nil }
        return (try HistogramCodec.decode(histograms.corrected), try HistogramCodec.decode(histograms.uncorrected))
    }

    /// Sets ``tlsHandshake`` (nil when no handshake was timed).
    mutating func setHandshakes(_ histogram: Histogram<UInt64>) {
        tlsHandshake = Percentiles(histogram)
        tlsHandshakeHistogram = histogram.totalCount > 0 ? HistogramCodec.encode(histogram) : nil
    }

    /// Sets ``proxyTunnel`` (nil when no tunnel was timed).
    mutating func setTunnels(_ histogram: Histogram<UInt64>) {
        proxyTunnel = histogram.totalCount > 0 ? Percentiles(histogram) : nil
        proxyTunnelHistogram = histogram.totalCount > 0 ? HistogramCodec.encode(histogram) : nil
    }

    /// Sets ``latency`` and ``histograms`` from the two histograms.
    mutating func setLatency(corrected: Histogram<UInt64>, uncorrected: Histogram<UInt64>) {
        if let correctedPercentiles = Percentiles(corrected), let uncorrectedPercentiles = Percentiles(uncorrected) {
            latency = Latency(corrected: correctedPercentiles, uncorrected: uncorrectedPercentiles)
            histograms = Histograms(corrected: HistogramCodec.encode(corrected), uncorrected: HistogramCodec.encode(uncorrected))
        } else {
            latency = nil
            histograms = nil
        }
    }
}
