import Prometheus

/// One figure of a service's `/metrics`: a counter `sockctl_SUBSYSTEM_NAME_UNIT` set from a
/// running total of the service's summary.
package struct ServiceFigure<Summary>: @unchecked Sendable {
    // Unchecked: a key path to a stored property is immutable; read only inside the registry's
    // updates and scrapes.
    let name: String, unit: String, help: String
    let labels: [(String, String)]
    let value: KeyPath<Summary, Int>

    /// The counter `name`/`unit` with its help text (and labels of its own), set from `value`.
    package init(_ name: String, _ unit: String, _ help: String, labels: [(String, String)] = [], _ value: KeyPath<Summary, Int>) {
        self.name = name
        self.unit = unit
        self.help = help
        self.labels = labels
        self.value = value
    }
}

/// The `/metrics` of a long-running service (``ListenMetrics``, ``RelayMetrics``): a table of
/// ``ServiceFigure``s, then the gauges every service has — clients open now, and finished.
package enum ServiceFigures {
    /// The metric objects. Touched only inside the registry's updates and scrapes.
    private final class Figures<Summary>: @unchecked Sendable {
        let counters: [(TotalCounter, KeyPath<Summary, Int>)]
        let open, finished: Gauge

        init(_ make: MetricFactory, _ table: [ServiceFigure<Summary>], openHelp: String, finishedHelp: String) {
            counters = table.map { (make.counter($0.name, $0.unit, $0.help, $0.labels), $0.value) }
            open = make.gauge("clients_open", "", openHelp)
            finished = make.gauge("finished", "", finishedHelp)
        }

        func set(_ summary: Summary, open openCount: Int) {
            for (counter, value) in counters { counter.set(summary[keyPath: value]) }
            open.set(Double(openCount))
        }
    }

    /// Binds `address` and serves the figures of `table` (in its order, then `…_clients_open`
    /// and `…_finished`) under `subsystem` with `labels`, read at each scrape from `live` (nil
    /// once the service is gone); `onEvent`: scrapers refused or closed, see ``MetricsServerLimits``.
    package static func start<Summary: Sendable>(
        _ address: MetricsListenAddress, subsystem: String, labels: [(String, String)],
        table: [ServiceFigure<Summary>], openHelp: String, finishedHelp: String,
        live: @escaping @Sendable () -> (Summary, Int)?,
        onEvent: @escaping @Sendable (MetricsServerEvent) -> Void
    ) async throws(MetricsExportError) -> ServiceMetrics<Summary> {
        let registry = MetricsRegistry()
        let figures = Figures(MetricFactory(registry, subsystem: subsystem, labels: labels), table, openHelp: openHelp, finishedHelp: finishedHelp)
        return try await ServiceMetrics(
            address, registry: registry, finished: figures.finished,
            update: { figures.set($0, open: $1) }, live: live, onEvent: onEvent)
    }
}
