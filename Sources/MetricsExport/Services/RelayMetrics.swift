import Prometheus
import SocketEngine

/// `sockctl proxy --metrics-listen`: the relay's clients, bytes each way, drops, resets and
/// refusals at `http://ADDR/metrics`, read from the service at each scrape
/// (``RelayService/liveSummary()``) and, once it has stopped, from its final summary (the one
/// printed). Labelled `listen` and `upstream` (the endpoints as given).
public enum RelayMetrics {
    /// The metric objects. Touched only inside the registry's updates and scrapes.
    private final class Figures: @unchecked Sendable {
        let clients, upstreamFailures, rejected, bytesUp, bytesDown, dropped, discarded, resets: TotalCounter
        let open, finished: Gauge

        init(_ registry: MetricsRegistry, labels: [(String, String)]) {
            let make = MetricFactory(registry, subsystem: "proxy", labels: labels)
            let forwarded = "Bytes forwarded: up from clients to the upstream, down from the upstream to clients."
            clients = make.counter("clients", "total", "Clients admitted (UDP: flows).")
            upstreamFailures = make.counter("upstream_failures", "total", "Clients whose upstream connection could not be made.")
            rejected = make.counter("rejected", "total", "Clients (UDP: datagrams) refused by the access rules or the client limit, or whose handshake failed or timed out.")
            bytesUp = make.counter("forwarded", "bytes_total", forwarded, [("direction", "up")])
            bytesDown = make.counter("forwarded", "bytes_total", forwarded, [("direction", "down")])
            dropped = make.counter("dropped_messages", "total", "Datagrams or messages dropped by a fault or a full UDP queue.")
            discarded = make.counter("discarded", "bytes_total", "Bytes read and thrown away by a fault (drop, timeout).")
            resets = make.counter("resets", "total", "Connections reset, by a fault or by one side.")
            open = make.gauge("clients_open", "", "Clients being relayed now.")
            finished = make.gauge("finished", "", "1 once the proxy has stopped and these are its summary's numbers, else 0.")
        }

        func set(_ summary: RelaySummary, open openCount: Int) {
            self.clients.set(summary.clients)
            upstreamFailures.set(summary.upstreamFailures)
            rejected.set(summary.rejected)
            bytesUp.set(summary.bytesUp)
            bytesDown.set(summary.bytesDown)
            dropped.set(summary.dropped)
            discarded.set(summary.discardedBytes)
            resets.set(summary.resets)
            open.set(Double(openCount))
        }
    }

    /// Binds `address` and serves `service`'s metrics there (`onEvent`: scrapers refused or
    /// closed, see ``MetricsServerLimits``), labelled with its endpoints.
    public static func start(
        _ address: MetricsListenAddress, service: RelayService, onEvent: @escaping @Sendable (MetricsServerEvent) -> Void = { _ in }
    ) async throws(MetricsExportError) -> ServiceMetrics<RelaySummary> {
        let registry = MetricsRegistry()
        let labels = [("listen", service.configuration.listen.description), ("upstream", service.configuration.upstream.description)]
        let figures = Figures(registry, labels: labels)
        return try await ServiceMetrics(
            address, registry: registry, finished: figures.finished,
            update: { figures.set($0, open: $1) }, live: { [weak service] in service?.liveSummary() }, onEvent: onEvent)
    }
}
