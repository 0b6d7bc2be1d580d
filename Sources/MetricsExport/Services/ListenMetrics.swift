import Prometheus
import SocketEngine

/// `sockctl listen --metrics-listen`: the listener's clients, bytes and datagrams at
/// `http://ADDR/metrics`, read from the service at each scrape (``ListenService/liveSummary()``)
/// and, once it has stopped, from its final summary (the one printed). Labelled `listen` (the
/// endpoint as given).
public enum ListenMetrics {
    /// The metric objects. Touched only inside the registry's updates and scrapes.
    private final class Figures: @unchecked Sendable {
        let clients, rejected, bytesIn, bytesOut, datagramsIn, datagramsOut, datagramsDropped, messagesDropped: TotalCounter
        let open, finished: Gauge

        init(_ registry: MetricsRegistry, labels: [(String, String)]) {
            let make = MetricFactory(registry, subsystem: "listen", labels: labels)
            clients = make.counter("clients", "total", "Stream clients admitted.")
            rejected = make.counter("rejected", "total", "Clients (UDP: datagrams) refused by the access rules or the client limit, or whose handshake failed or timed out.")
            bytesIn = make.counter("received", "bytes_total", "Bytes received from clients and UDP peers.")
            bytesOut = make.counter("sent", "bytes_total", "Bytes sent to clients and UDP peers.")
            datagramsIn = make.counter("datagrams_received", "total", "UDP datagrams received from admitted peers.")
            datagramsOut = make.counter("datagrams_sent", "total", "UDP datagrams sent.")
            datagramsDropped = make.counter("datagrams_dropped", "total", "UDP datagrams received with no room to queue them.")
            messagesDropped = make.counter("messages_dropped", "total", "Broadcast messages not delivered to slow clients.")
            open = make.gauge("clients_open", "", "Stream clients connected now.")
            finished = make.gauge("finished", "", "1 once the listener has stopped and these are its summary's numbers, else 0.")
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

    /// Binds `address` and serves `service`'s metrics there (`onEvent`: scrapers refused or
    /// closed, see ``MetricsServerLimits``), labelled with its endpoint.
    public static func start(
        _ address: MetricsListenAddress, service: ListenService, onEvent: @escaping @Sendable (MetricsServerEvent) -> Void = { _ in }
    ) async throws(MetricsExportError) -> ServiceMetrics<ListenSummary> {
        let registry = MetricsRegistry()
        let figures = Figures(registry, labels: [("listen", service.configuration.endpoint.description)])
        return try await ServiceMetrics(
            address, registry: registry, finished: figures.finished,
            update: { figures.set($0, open: $1) }, live: { [weak service] in service?.liveSummary() }, onEvent: onEvent)
    }
}
