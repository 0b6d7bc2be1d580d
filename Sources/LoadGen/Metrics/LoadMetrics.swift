import MetricsExport
import Prometheus

/// The live metrics of one load test, made in the run's own ``MetricsRegistry``: counters,
/// gauges and the two latency histograms, all labelled `target` (the targets as the report
/// names them).
///
/// ``update(_:)`` sets them from the runner's sample once a second; ``finish(_:)`` sets them from
/// the final report, so the last scrape shows exactly the report's (and the `--json` file's)
/// counts. Every name starts `sockctl_loadtest_` and says its unit (`_seconds`, `_bytes`,
/// `_total` for counters); the README lists them.
///
/// With `--label json:PATH` each label value also has its own messages and corrected latency,
/// under names of their own (`sockctl_loadtest_label_…`, labelled `target` and `label`), so that
/// summing the run's metrics never counts a message twice. Values appear as the run meets them
/// (at most ``LabelTable/maximumLabels``, then `(other)`).
package final class LoadMetrics: Sendable {
    package let registry: MetricsRegistry
    private let figures: Figures
    private let labelFigures: LabelFigures.Set

    /// The metric objects of one label set. Touched only inside the registry's updates.
    fileprivate final class Figures: @unchecked Sendable {
        let sent, received, timedOut, lost, bytesSent, bytesReceived: TotalCounter
        let connectAttempts, connectsSucceeded, connectsFailed, connectionsLost: TotalCounter
        let errors: [(kind: String, counter: TotalCounter)]
        let open, achievedRate, elapsed, finished: Gauge
        let targetRate: Gauge?
        let corrected, uncorrected: LatencyFeed
        /// HTTP targets: responses by status, server closes (made with the first response).
        private let make: MetricFactory
        private var http: HTTPFigures?

        init(_ registry: MetricsRegistry, labels: [(String, String)], openLoop: Bool) {
            let make = MetricFactory(registry, subsystem: "loadtest", labels: labels)
            self.make = make
            func counter(_ name: String, _ unit: String, _ help: String) -> TotalCounter { make.counter(name, unit, help) }
            func gauge(_ name: String, _ unit: String, _ help: String) -> Gauge { make.gauge(name, unit, help) }
            func latency(_ kind: String) -> LatencyFeed {
                LatencyFeed(histogram: registry.prometheus.makeDurationHistogram(
                    descriptor: make.named("latency", "seconds", "Time from a message (corrected: its due time; uncorrected: its send) to its reply."),
                    labels: labels + [("latency", kind)], buckets: LatencyFeed.buckets))
            }
            sent = counter("messages_sent", "total", "Messages sent after the warm-up.")
            received = counter("messages_received", "total", "Messages answered by a reply.")
            timedOut = counter("messages_timed_out", "total", "Messages with no reply within the reply timeout.")
            lost = counter("messages_lost", "total", "Messages unanswered when their connection failed or the run ended.")
            bytesSent = counter("sent", "bytes_total", "Bytes of the messages sent after the warm-up, framed.")
            bytesReceived = counter("received", "bytes_total", "Bytes of the replies received.")
            connectAttempts = counter("connect_attempts", "total", "Connection attempts, reconnections included.")
            connectsSucceeded = counter("connections_established", "total", "Connections established.")
            connectsFailed = counter("connections_failed", "total", "Connection attempts that failed.")
            connectionsLost = counter("connections_lost", "total", "Established connections that ended before the run did.")
            errors = ErrorKind.allCases.map { kind in
                (kind.rawValue, TotalCounter(
                    registry, make.named("errors", "total", "Errors by kind: refused, connect-timeout, reset, closed-by-peer, timeout, framing, tls, websocket, http, proxy, fd-exhausted, ports-exhausted, other."),
                    labels: labels + [("kind", kind.rawValue)]))
            }
            open = gauge("connections_open", "", "Connections open now.")
            achievedRate = gauge(
                "rate_achieved", "messages_per_second", "Messages sent per second: over the last second during the run, over the whole run at the end.")
            targetRate = openLoop
                ? gauge("rate_target", "messages_per_second", "Messages per second the rate schedule asks for: now during the run, on average at the end.")
                : nil
            elapsed = gauge("elapsed", "seconds", "Seconds since the warm-up ended (negative during it).")
            finished = gauge("finished", "", "1 once the run is over and these are the summary's numbers, else 0.")
            corrected = latency("corrected")
            uncorrected = latency("uncorrected")
        }

        /// The HTTP metrics from the responses counted so far (none before the first).
        func setHTTP(statuses: [(code: Int, count: Int)], serverCloses: Int) {
            let figures = http ?? HTTPFigures(make)
            http = figures
            figures.set(statuses: statuses, serverCloses: serverCloses)
        }
    }

    /// The metrics of a run of `plan`, in `registry`.
    package init(registry: MetricsRegistry, plan: LoadPlan) {
        self.registry = registry
        let labels = [("target", LoadRunner.describe(plan.endpoints))]
        figures = Figures(registry, labels: labels, openLoop: plan.schedule != nil)
        labelFigures = LabelFigures.Set(registry, labels: labels)
    }

    /// Sets every metric from the runner's sample.
    func update(_ sample: LoadLiveSample) {
        let figures = self.figures
        registry.update {
            figures.set(sample.counters)
            figures.open.set(Double(sample.open))
            figures.achievedRate.set(sample.sentPerSecond)
            if let rate = sample.targetRate { figures.targetRate?.set(rate) }
            figures.elapsed.set(sample.elapsedSeconds)
            figures.corrected.feed(sample.corrected)
            figures.uncorrected.feed(sample.uncorrected)
            labelFigures.set(sample.labels)
        }
    }

    /// The last update, from the run's report: every scrape from now on shows the report's counts.
    package func finish(_ report: LoadReport) {
        let figures = self.figures
        let histograms = try? report.decodedHistograms()
        let labelEntries = report.labelEntries
        let labelFigures = self.labelFigures
        registry.finish {
            labelFigures.set(labelEntries)
            figures.sent.set(report.messages.sent)
            figures.received.set(report.messages.received)
            figures.timedOut.set(report.messages.timedOut)
            figures.lost.set(report.messages.lost)
            figures.bytesSent.set(report.bytes.sent)
            figures.bytesReceived.set(report.bytes.received)
            figures.connectAttempts.set(report.connections.attempted)
            figures.connectsSucceeded.set(report.connections.established)
            figures.connectsFailed.set(report.connections.failed)
            figures.connectionsLost.set(report.connections.lost)
            for (kind, counter) in figures.errors { counter.set(report.errors[kind] ?? 0) }
            if let http = report.http { figures.setHTTP(statuses: http.byCode, serverCloses: http.serverCloses) }
            figures.open.set(0.0)
            figures.achievedRate.set(report.throughput.sentPerSecond)
            if let offered = report.throughput.offeredPerSecond { figures.targetRate?.set(offered) }
            figures.elapsed.set(report.elapsedSeconds)
            if let histograms {
                figures.corrected.feed(histograms.corrected)
                figures.uncorrected.feed(histograms.uncorrected)
            }
            figures.finished.set(1.0)
        }
    }
}

extension LoadMetrics.Figures {
    /// The counters from the run's totals.
    func set(_ counters: LoadCounters) {
        sent.set(counters.messagesSent)
        received.set(counters.messagesReceived)
        timedOut.set(counters.timedOut)
        lost.set(counters.lost)
        bytesSent.set(counters.bytesSent)
        bytesReceived.set(counters.bytesReceived)
        connectAttempts.set(counters.connectAttempts)
        connectsSucceeded.set(counters.connectsSucceeded)
        connectsFailed.set(counters.connectsFailed)
        connectionsLost.set(counters.connectionsLost)
        for (kind, counter) in errors {
            counter.set(ErrorKind(rawValue: kind).flatMap { counters.errors[$0] } ?? 0)
        }
        if let http = counters.http { setHTTP(statuses: http.statuses, serverCloses: http.serverCloses) }
    }
}
