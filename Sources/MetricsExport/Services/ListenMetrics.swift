import SocketEngine

/// `sockctl listen --metrics-listen`: the listener's clients, bytes, datagrams (and HTTP requests by class) at
/// `http://ADDR/metrics`, read from the service at each scrape (``ListenService/liveSummary()``)
/// and, once it has stopped, from its final summary (the one printed). Labelled `listen` (the
/// endpoint as given).
public enum ListenMetrics {
    /// The figures, in the order they are registered.
    static let table: [ServiceFigure<ListenSummary>] = [
        ServiceFigure("clients", "total", "Stream clients admitted.", \.clients),
        ServiceFigure("rejected", "total", "Clients (UDP: datagrams) refused by the access rules or the client limit, or whose handshake failed or timed out.", \.rejected),
        ServiceFigure("received", "bytes_total", "Bytes received from clients and UDP peers.", \.bytesIn),
        ServiceFigure("sent", "bytes_total", "Bytes sent to clients and UDP peers.", \.bytesOut),
        ServiceFigure("datagrams_received", "total", "UDP datagrams received from admitted peers.", \.datagramsIn),
        ServiceFigure("datagrams_sent", "total", "UDP datagrams sent.", \.datagramsOut),
        ServiceFigure("datagrams_dropped", "total", "UDP datagrams received with no room to queue them.", \.datagramsDropped),
        ServiceFigure("messages_dropped", "total", "Broadcast messages not delivered to slow clients.", \.messagesDropped),
    ]

    /// `listen http://`: the requests answered, by the class of their status (a request that
    /// could not be read counts with its 400 or 413).
    static let httpTable: [ServiceFigure<ListenSummary>] = (1...5).map { digit in
        ServiceFigure("http_requests", "total", "HTTP requests answered, by status class.", labels: [("class", "\(digit)xx")], \.httpAnswers[digit])
    }

    /// Binds `address` and serves `service`'s metrics there (`onEvent`: scrapers refused or
    /// closed, see ``MetricsServerLimits``), labelled with its endpoint.
    public static func start(
        _ address: MetricsListenAddress, service: ListenService, onEvent: @escaping @Sendable (MetricsServerEvent) -> Void = { _ in }
    ) async throws(MetricsExportError) -> ServiceMetrics<ListenSummary> {
        try await ServiceFigures.start(
            address, subsystem: "listen", labels: [("listen", service.configuration.endpoint.description)],
            table: service.configuration.endpoint.transport.isHTTP ? table + httpTable : table,
            openHelp: "Stream clients connected now.",
            finishedHelp: "1 once the listener has stopped and these are its summary's numbers, else 0.",
            live: { [weak service] in service?.liveSummary() }, onEvent: onEvent)
    }
}
