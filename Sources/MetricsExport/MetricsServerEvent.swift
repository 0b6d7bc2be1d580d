import SocketEngine

/// What a ``MetricsServer`` did on its own to keep within its ``MetricsServerLimits``.
public enum MetricsServerEvent: Sendable, Equatable {
    /// A scraper was closed on arrival.
    case refused(peer: String, reason: String)
    /// A connection sent no complete request in time and was closed.
    case closedIdle(peer: String, after: Duration)

    /// Its line in the command's log: `metrics: refused 127.0.0.1:5555: 16 connections open (the
    /// most at once)`.
    public var logLine: LogLine {
        switch self {
        case .refused(let peer, let reason):
            return .note("metrics: refused \(peer): \(reason)")
        case .closedIdle(let peer, let after):
            return .note("metrics: closed \(peer): no complete request within \(after.formatted)")
        }
    }
}
