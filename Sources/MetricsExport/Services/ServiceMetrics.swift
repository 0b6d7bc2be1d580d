import Prometheus

/// The `/metrics` endpoint of a long-running service (`listen`, `proxy`): its figures are read
/// from the service at each scrape and, once it has stopped, set from its final summary (the
/// one printed), with `…_finished` 1 from then on. ``ListenMetrics`` and ``RelayMetrics`` say
/// which figures.
public final class ServiceMetrics<Summary: Sendable>: Sendable {
    private let server: MetricsServer
    private let update: @Sendable (Summary, Int) -> Void
    private let finished: Gauge

    /// Serves `registry` at `address`. `update` sets the figures from a summary and the number
    /// of clients open; `live` reads both from the running service (nil once it is gone);
    /// `onEvent` hears of scrapers refused or closed.
    init(
        _ address: MetricsListenAddress, registry: MetricsRegistry, finished: Gauge,
        update: @escaping @Sendable (Summary, Int) -> Void, live: @escaping @Sendable () -> (Summary, Int)?,
        onEvent: @escaping @Sendable (MetricsServerEvent) -> Void
    ) async throws(MetricsExportError) {
        registry.refreshOnScrape {
            if let (summary, open) = live() { update(summary, open) }
        }
        server = try await MetricsServer.start(address, registry: registry, onEvent: onEvent)
        self.update = update
        self.finished = finished
    }

    /// Where the metrics are: `http://127.0.0.1:9464/metrics`.
    public var url: String { server.url }

    /// The last update, from the service's final summary (before it is printed).
    public func finish(_ summary: Summary) {
        let (update, finished) = (self.update, self.finished)
        server.registry.finish {
            update(summary, 0)
            finished.set(1.0)
        }
    }

    /// Stops serving (after the summary).
    public func close() async { await server.close() }
}
