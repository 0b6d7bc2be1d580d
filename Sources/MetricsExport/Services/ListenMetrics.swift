import Prometheus
import SocketEngine

/// `sockctl listen --metrics-listen`: the listener's clients, bytes and datagrams at
/// `http://ADDR/metrics`, read from the service at each scrape (``ListenService/liveSummary()``)
/// and, once it has stopped, from its final summary (the one printed). Labelled `listen` (the
/// endpoint as given).
public final class ListenMetrics: Sendable {
    private let server: MetricsServer
    private let figures: Figures

    /// The metric objects. Touched only inside the registry's updates and scrapes.
    private final class Figures: @unchecked Sendable {
        let clients, rejected, bytesIn, bytesOut, datagramsIn, datagramsOut, datagramsDropped, messagesDropped: TotalCounter
        let open, finished: Gauge

        init(_ registry: MetricsRegistry, labels: [(String, String)]) {
            func named(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
                MetricNameDescriptor(namespace: "sockctl", subsystem: "listen", metricName: name, unitName: unit, helpText: help)
            }
            func counter(_ name: String, _ unit: String, _ help: String) -> TotalCounter {
                TotalCounter(registry, named(name, unit, help), labels: labels)
            }
            func gauge(_ name: String, _ help: String) -> Gauge {
                registry.prometheus.makeGauge(descriptor: named(name, "", help), labels: labels)
            }
            clients = counter("clients", "total", "Stream clients admitted.")
            rejected = counter("rejected", "total", "Clients (UDP: datagrams) refused by --allow/--deny or --max-clients.")
            bytesIn = counter("received", "bytes_total", "Bytes received from clients and UDP peers.")
            bytesOut = counter("sent", "bytes_total", "Bytes sent to clients and UDP peers.")
            datagramsIn = counter("datagrams_received", "total", "UDP datagrams received from admitted peers.")
            datagramsOut = counter("datagrams_sent", "total", "UDP datagrams sent.")
            datagramsDropped = counter("datagrams_dropped", "total", "UDP datagrams received with no room to queue them.")
            messagesDropped = counter("messages_dropped", "total", "Broadcast messages not delivered to slow clients.")
            open = gauge("clients_open", "Stream clients connected now.")
            finished = gauge("finished", "1 once the listener has stopped and these are its summary's numbers, else 0.")
        }

        func set(_ summary: ListenSummary, open openCount: Int) {
            self.clients.set(summary.clients)
            rejected.set(summary.rejected)
            bytesIn.set(summary.bytesIn)
            bytesOut.set(summary.bytesOut)
            datagramsIn.set(summary.datagramsIn)
            datagramsOut.set(summary.datagramsOut)
            datagramsDropped.set(summary.datagramsDropped)
            messagesDropped.set(summary.messagesDropped)
            open.set(Double(openCount))
        }
    }

    private init(server: MetricsServer, figures: Figures) {
        self.server = server
        self.figures = figures
    }

    /// Binds `address` and serves `service`'s metrics there, labelled with its endpoint.
    public static func start(_ address: MetricsListenAddress, service: ListenService) async throws(MetricsExportError) -> ListenMetrics {
        let registry = MetricsRegistry()
        let figures = Figures(registry, labels: [("listen", service.configuration.endpoint.description)])
        registry.refreshOnScrape { [weak service] in
            guard let service else { return }
            let (summary, open) = service.liveSummary()
            figures.set(summary, open: open)
        }
        return ListenMetrics(server: try await MetricsServer.start(address, registry: registry), figures: figures)
    }

    /// Where the metrics are: `http://127.0.0.1:9464/metrics`.
    public var url: String { server.url }

    /// The last update, from the service's final summary (before it is printed).
    public func finish(_ summary: ListenSummary) {
        let figures = self.figures
        server.registry.finish {
            figures.set(summary, open: 0)
            figures.finished.set(1.0)
        }
    }

    /// Stops serving (after the summary).
    public func close() async { await server.close() }
}
