import SocketEngine

/// How much of the process a `/metrics` endpoint may take: the endpoint must never starve the
/// service it describes (a listener or a relay whose descriptors it shares).
///
/// - At most ``maximumConnections`` scrapers at once (a Prometheus server needs one); later ones
///   are closed on arrival.
/// - A connection that has not sent a complete request within ``idleTimeout`` of connecting, or
///   of its last response, is closed (a slow or silent client cannot hold one).
/// - A scraper is refused while fewer than ``descriptorReserve`` file descriptors are free
///   (under the process's `RLIMIT_NOFILE`), so the endpoint never takes the last ones.
///
/// Each refusal and each idle connection closed is reported (``MetricsServerEvent``).
public struct MetricsServerLimits: Sendable, Equatable {
    /// Scrapers connected at once; 16 by default.
    public var maximumConnections = 16
    /// How long a connection may go without a complete request; 10 s by default.
    public var idleTimeout: Duration = .seconds(10)
    /// Descriptors kept free for the service; by default ``reserve(forLimit:)`` of the limit in
    /// effect when the server starts.
    public var descriptorReserve: Int?

    /// The defaults: 16 scrapers, 10 s to send a request, the reserve computed from the limit.
    public init() {}

    /// The descriptors kept for the service under a limit of `limit`: an eighth of it, at least
    /// 16 and at most 1024 (128 → 16, 1024 → 128, 65536 → 1024).
    public static func reserve(forLimit limit: Int) -> Int {
        min(1024, max(16, limit / 8))
    }
}
