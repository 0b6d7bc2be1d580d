import SocketEngine

/// `proxy`'s LISTEN: an endpoint clients connect to, or — `socks5://[HOST:]PORT`,
/// `http-connect://[HOST:]PORT` — a TCP address where sockctl serves as a SOCKS5 or HTTP
/// CONNECT proxy, each client's destination taken from its request (no UPSTREAM).
struct ProxyListen: Sendable {
    /// Where to listen (for a proxy server: tcp).
    var endpoint: Endpoint
    /// The protocol served; nil: a relay to UPSTREAM.
    var tunnel: TunnelServer.Kind?

    /// Parses `socks5://…`, `http-connect://…` or any listener endpoint.
    @Sendable static func parse(_ text: String) throws -> ProxyListen {
        for kind in TunnelServer.Kind.allCases {
            let scheme = kind.rawValue + "://"
            guard text.lowercased().hasPrefix(scheme) else { continue }
            let rest = String(text.dropFirst(scheme.count))
            if rest.contains("://") || rest.lowercased().hasPrefix("unix:") || rest.contains("/") {
                throw UsageError("invalid endpoint '\(text)': a \(kind.rawValue):// proxy listens on TCP: \(kind.rawValue)://[HOST:]PORT, e.g. \(kind.rawValue)://127.0.0.1:\(kind == .socks5 ? 1080 : 8080)")
            }
            return ProxyListen(endpoint: try Endpoint(parsing: rest, role: .listener), tunnel: kind)
        }
        return ProxyListen(endpoint: try ArgumentValues.listenerEndpoint(text), tunnel: nil)
    }
}
