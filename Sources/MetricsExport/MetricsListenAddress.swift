import SocketEngine

/// Where `--metrics-listen` serves `/metrics`: `PORT`, `:PORT`, `HOST:PORT` or `[V6]:PORT`, the
/// listener grammar of every command.
///
/// A bare port (or `:PORT`) binds loopback (127.0.0.1): metrics are for the machine's own
/// Prometheus unless an address says otherwise (`0.0.0.0:9464`). Port 0 asks the kernel for a
/// free port; the server reports the one it got. Only TCP: a scheme other than `tcp://` is refused.
public struct MetricsListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host or address literal to bind (127.0.0.1 when only a port was given).
    public let host: String
    /// The port to bind; 0 for any free port.
    public let port: Int

    /// Parses `text`; a mistake throws `.invalidAddress` naming it.
    public init(parsing text: String) throws(MetricsExportError) {
        let endpoint: Endpoint
        do {
            endpoint = try Endpoint(parsing: text, role: .listener)
        } catch {
            // The endpoint's reason, without its own "invalid endpoint 'TEXT': ".
            let reason = error.message.hasPrefix("invalid endpoint '\(text)': ") ? String(error.message.dropFirst("invalid endpoint '\(text)': ".count)) : error.message
            throw MetricsExportError(.invalidAddress, "invalid metrics address '\(text)': \(reason)")
        }
        guard endpoint.transport == .tcp else {
            throw MetricsExportError(.invalidAddress, "invalid metrics address '\(text)': /metrics is served over plain TCP (expected [HOST:]PORT, e.g. 9464 or 127.0.0.1:9464)")
        }
        host = endpoint.host.isEmpty ? "127.0.0.1" : endpoint.host
        port = endpoint.port
    }

    /// `127.0.0.1:9464`, `[::1]:9464`.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
