import SocketEngine

/// `sockctl proxy --metrics-listen`: the relay's clients, bytes each way, drops, resets and
/// refusals at `http://ADDR/metrics`, read from the service at each scrape
/// (``RelayService/liveSummary()``) and, once it has stopped, from its final summary (the one
/// printed). Labelled `listen` and `upstream` (the endpoints as given; for a SOCKS5 or HTTP
/// CONNECT proxy, `socks5 request` or `http-connect request`: each client's destination).
public enum RelayMetrics {
    private static let forwarded = "Bytes forwarded: up from clients to the upstream, down from the upstream to clients."

    /// The figures, in the order they are registered.
    static let table: [ServiceFigure<RelaySummary>] = [
        ServiceFigure("clients", "total", "Clients admitted (UDP: flows).", \.clients),
        ServiceFigure("upstream_failures", "total", "Clients whose upstream connection could not be made.", \.upstreamFailures),
        ServiceFigure("rejected", "total", "Clients (UDP: datagrams) refused by the access rules or the client limit, or whose handshake failed or timed out.", \.rejected),
        ServiceFigure("forwarded", "bytes_total", forwarded, labels: [("direction", "up")], \.bytesUp),
        ServiceFigure("forwarded", "bytes_total", forwarded, labels: [("direction", "down")], \.bytesDown),
        ServiceFigure("dropped_messages", "total", "Datagrams or messages dropped by a fault or a full UDP queue.", \.dropped),
        ServiceFigure("discarded", "bytes_total", "Bytes read and thrown away by a fault (drop, timeout).", \.discardedBytes),
        ServiceFigure("resets", "total", "Connections reset, by a fault or by one side.", \.resets),
    ]

    /// Binds `address` and serves `service`'s metrics there (`onEvent`: scrapers refused or
    /// closed, see ``MetricsServerLimits``), labelled with its endpoints.
    public static func start(
        _ address: MetricsListenAddress, service: RelayService, onEvent: @escaping @Sendable (MetricsServerEvent) -> Void = { _ in }
    ) async throws(MetricsExportError) -> ServiceMetrics<RelaySummary> {
        try await ServiceFigures.start(
            address, subsystem: "proxy",
            labels: [("listen", service.configuration.listen.description), ("upstream", service.configuration.tunnelServer.map { "\($0.kind.rawValue) request" } ?? service.configuration.upstream.description)],
            table: table, openHelp: "Clients being relayed now.",
            finishedHelp: "1 once the proxy has stopped and these are its summary's numbers, else 0.",
            live: { [weak service] in service?.liveSummary() }, onEvent: onEvent)
    }
}
