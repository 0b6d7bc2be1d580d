import Prometheus
import SocketEngine

/// `sockctl proxy --metrics-listen`: the relay's clients, bytes each way, drops, resets and
/// refusals at `http://ADDR/metrics`, read from the service at each scrape
/// (``RelayService/liveSummary()``) and, once it has stopped, from its final summary (the one
/// printed). Labelled `listen` and `upstream` (the endpoints as given).
public final class RelayMetrics: Sendable {
    private let server: MetricsServer
    private let figures: Figures

    /// The metric objects. Touched only inside the registry's updates and scrapes.
    private final class Figures: @unchecked Sendable {
        let clients, upstreamFailures, rejected, bytesUp, bytesDown, dropped, discarded, resets: TotalCounter
        let open, finished: Gauge

        init(_ registry: MetricsRegistry, labels: [(String, String)]) {
            func named(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
                MetricNameDescriptor(namespace: "sockctl", subsystem: "proxy", metricName: name, unitName: unit, helpText: help)
            }
            func counter(_ name: String, _ unit: String, _ help: String, _ extra: [(String, String)] = []) -> TotalCounter {
                TotalCounter(registry, named(name, unit, help), labels: labels + extra)
            }
            func gauge(_ name: String, _ help: String) -> Gauge {
                registry.prometheus.makeGauge(descriptor: named(name, "", help), labels: labels)
            }
            let forwarded = "Bytes forwarded: up from clients to the upstream, down from the upstream to clients."
            clients = counter("clients", "total", "Clients admitted (UDP: flows).")
            upstreamFailures = counter("upstream_failures", "total", "Clients whose upstream connection could not be made.")
            rejected = counter("rejected", "total", "Clients (UDP: datagrams) refused by --allow/--deny or --max-clients.")
            bytesUp = counter("forwarded", "bytes_total", forwarded, [("direction", "up")])
            bytesDown = counter("forwarded", "bytes_total", forwarded, [("direction", "down")])
            dropped = counter("dropped_messages", "total", "Datagrams or messages dropped by a fault or a full UDP queue.")
            discarded = counter("discarded", "bytes_total", "Bytes read and thrown away by a fault (drop, timeout).")
            resets = counter("resets", "total", "Connections reset, by a fault or by one side.")
            open = gauge("clients_open", "Clients being relayed now.")
            finished = gauge("finished", "1 once the proxy has stopped and these are its summary's numbers, else 0.")
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

    private init(server: MetricsServer, figures: Figures) {
        self.server = server
        self.figures = figures
    }

    /// Binds `address` and serves `service`'s metrics there, labelled with its endpoints.
    public static func start(_ address: MetricsListenAddress, service: RelayService) async throws(MetricsExportError) -> RelayMetrics {
        let registry = MetricsRegistry()
        let labels = [("listen", service.configuration.listen.description), ("upstream", service.configuration.upstream.description)]
        let figures = Figures(registry, labels: labels)
        registry.refreshOnScrape { [weak service] in
            guard let service else { return }
            let (summary, open) = service.liveSummary()
            figures.set(summary, open: open)
        }
        return RelayMetrics(server: try await MetricsServer.start(address, registry: registry), figures: figures)
    }

    /// Where the metrics are: `http://127.0.0.1:9464/metrics`.
    public var url: String { server.url }

    /// The last update, from the service's final summary (before it is printed).
    public func finish(_ summary: RelaySummary) {
        let figures = self.figures
        server.registry.finish {
            figures.set(summary, open: 0)
            figures.finished.set(1.0)
        }
    }

    /// Stops serving (after the summary).
    public func close() async { await server.close() }
}
