import MetricsExport
import NIOCore

/// `--metrics-listen`: a run's live metrics served at `http://ADDR/metrics` for Prometheus, from
/// before the run until its summary is printed.
///
/// Made before the run (``start(_:plan:)``, which binds the address, so a port of 0 is known
/// before anything is sent) and given to ``LoadRunner/init(plan:metrics:)``, which updates the
/// metrics once a second. After the run, ``finish(_:)`` sets them from the report — the `--json`
/// file's numbers — and ``linger(_:)`` can wait until a scraper has read them; ``close()`` stops
/// serving.
/// Each endpoint has its own registry: runs in one process do not mix their numbers.
public final class LoadMetricsEndpoint: Sendable {
    package let metrics: LoadMetrics
    package let server: MetricsServer

    private init(metrics: LoadMetrics, server: MetricsServer) {
        self.metrics = metrics
        self.server = server
    }

    /// Binds `address` and serves the metrics of a run of `plan` there (`onEvent`: scrapers
    /// refused or closed, see ``MetricsServerLimits``). Throws `.metricsUnavailable` when the
    /// address cannot be bound.
    public static func start(
        _ address: MetricsListenAddress, plan: LoadPlan, onEvent: @escaping @Sendable (MetricsServerEvent) -> Void = { _ in }
    ) async throws(LoadGenError) -> LoadMetricsEndpoint {
        let registry = MetricsRegistry()
        let metrics = LoadMetrics(registry: registry, plan: plan)
        do {
            return LoadMetricsEndpoint(metrics: metrics, server: try await MetricsServer.start(address, registry: registry, onEvent: onEvent))
        } catch {
            throw LoadGenError(error.isUsageError ? .invalidPlan : .metricsUnavailable, error.text)
        }
    }

    /// Where the metrics are: `http://127.0.0.1:9464/metrics`.
    public var url: String { server.url }

    /// Sets the metrics from the run's `report`: their last change, before the summary.
    public func finish(_ report: LoadReport) {
        metrics.finish(report)
    }

    /// After ``finish(_:)``: waits until a scraper has read the final numbers and come back for
    /// more — Prometheus stores a scrape before it starts the next, so then they are in its
    /// database — for at most `duration` (on the server's event loop). Returns false when
    /// `duration` ran out first.
    public func linger(_ duration: Duration) async -> Bool {
        await server.registry.waitForFinalScrapes(2, timeout: duration.timeAmount, on: server.eventLoop)
    }

    /// Stops serving (after the summary).
    public func close() async {
        await server.close()
    }
}
