import MetricsExport
import Prometheus

/// The metrics of one `--label` value: messages sent, answered, timed out and lost, and the
/// corrected latency, as `sockctl_loadtest_label_…{target, label}`. Touched only inside the
/// registry's updates.
final class LabelFigures: @unchecked Sendable {
    let sent, received, timedOut, lost: TotalCounter
    let corrected: LatencyFeed

    init(_ registry: MetricsRegistry, labels: [(String, String)]) {
        let make = MetricFactory(registry, subsystem: "loadtest", labels: labels)
        sent = make.counter("label_messages_sent", "total", "Messages sent with this label value.")
        received = make.counter("label_messages_received", "total", "Messages with this label value answered.")
        timedOut = make.counter("label_messages_timed_out", "total", "Messages with this label value that timed out.")
        lost = make.counter("label_messages_lost", "total", "Messages with this label value lost.")
        corrected = LatencyFeed(histogram: registry.prometheus.makeDurationHistogram(
            descriptor: make.named("label_latency", "seconds", "Corrected latency of the messages with this label value."),
            labels: labels, buckets: LatencyFeed.buckets))
    }

    /// Every label value's figures of one run, made when a value first appears.
    final class Set: @unchecked Sendable {
        private let registry: MetricsRegistry
        private let labels: [(String, String)]
        private var byValue: [String: LabelFigures] = [:]

        init(_ registry: MetricsRegistry, labels: [(String, String)]) {
            self.registry = registry
            self.labels = labels
        }

        /// Sets each value's metrics from its totals so far.
        func set(_ entries: [LabelTable.Entry]) {
            for entry in entries {
                let figures = byValue[entry.name] ?? LabelFigures(registry, labels: labels + [("label", entry.name)])
                byValue[entry.name] = figures
                figures.sent.set(entry.sent)
                figures.received.set(entry.received)
                figures.timedOut.set(entry.timedOut)
                figures.lost.set(entry.lost)
                if let latency = entry.corrected { figures.corrected.feed(latency) }
            }
        }
    }
}
