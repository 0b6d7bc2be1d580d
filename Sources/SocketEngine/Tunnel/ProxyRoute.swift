import NIOCore

/// Which proxy, if any, a client connection to an endpoint goes through: one proxy for every
/// destination, or the proxies the environment names — read only when the caller asks for them
/// (`ALL_PROXY`, `HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`; variables that change where traffic
/// goes are never read silently).
///
/// From the environment, as curl: `http://` and `ws://` destinations take `HTTP_PROXY`,
/// `https://`, `tls://` and `wss://` take `HTTPS_PROXY`, each falling back to `ALL_PROXY`, and
/// every other stream to `ALL_PROXY`; the lower-case spelling wins over the upper-case one; a
/// value without a scheme is `http://`. `NO_PROXY` lists destinations reached directly: `*`,
/// names (`example.com` also covers its subdomains, as `.example.com` does), addresses and
/// address ranges (`10.0.0.0/8`).
public struct ProxyRoute: Sendable {
    /// Every destination's proxy, when one is given for all.
    public var all: ProxyEndpoint?
    /// `http://` and `ws://` destinations (from the environment).
    public var http: ProxyEndpoint?
    /// `https://`, `tls://` and `wss://` destinations (from the environment).
    public var https: ProxyEndpoint?
    /// Destinations reached directly (`NO_PROXY`).
    public var bypass: [String] = []
    /// Where the route came from, for messages: `proxy` or the variables read.
    public var origin: String = ""
    /// Destinations' names resolved here for a proxy that takes addresses (`socks5://`,
    /// `socks4://`), by name: filled by ``resolvingNames(of:options:)`` before connections open
    /// on threads that cannot wait for a resolver.
    package var resolved: [String: TunnelTarget.Host] = [:]

    /// Every destination through `proxy`.
    public init(_ proxy: ProxyEndpoint) {
        all = proxy
    }

    init() {}

    /// The variables ``environment(_:)`` reads, in the order it reads them.
    public static let variableNames = ["all_proxy", "ALL_PROXY", "https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY"]

    /// The route the environment `variables` describe; throws `.invalidConfiguration` when none
    /// of the proxy variables is set or one does not parse (naming the variable).
    public static func environment(_ variables: [String: String]) throws(SocketEngineError) -> ProxyRoute {
        var route = ProxyRoute()
        var read: [String] = []
        func value(_ name: String) throws(SocketEngineError) -> ProxyEndpoint? {
            for spelling in [name.lowercased(), name] {
                guard let text = variables[spelling]?.strippingBlanks, !text.isEmpty else { continue }
                read.append(spelling)
                let withScheme = text.contains("://") ? text : "http://" + text
                do {
                    return try ProxyEndpoint(parsing: withScheme)
                } catch {
                    throw SocketEngineError(.invalidConfiguration, "\(spelling): \(error.text)")
                }
            }
            return nil
        }
        route.all = try value("ALL_PROXY")
        route.https = try value("HTTPS_PROXY")
        route.http = try value("HTTP_PROXY")
        guard route.all != nil || route.https != nil || route.http != nil else {
            throw SocketEngineError(.invalidConfiguration, "no proxy in the environment: none of ALL_PROXY, HTTPS_PROXY, HTTP_PROXY (or their lower-case spellings) is set")
        }
        if let list = variables["no_proxy"] ?? variables["NO_PROXY"] {
            read.append(variables["no_proxy"] != nil ? "no_proxy" : "NO_PROXY")
            route.bypass = list.split(separator: ",").map { String($0).strippingBlanks }.filter { !$0.isEmpty }
        }
        route.origin = read.joined(separator: ", ")
        return route
    }

    /// The proxy for a connection to `endpoint`, nil for a direct one (no proxy for its kind,
    /// or `NO_PROXY` covers it). Unix sockets never go through a proxy.
    package func proxy(for endpoint: Endpoint) -> ProxyEndpoint? {
        guard endpoint.transport != .unix, !bypasses(endpoint.host) else { return nil }
        switch endpoint.transport {
        case .http, .ws: return http ?? all
        case .https, .tls, .wss: return https ?? all
        default: return all
        }
    }

    /// Whether `NO_PROXY` covers `host`.
    package func bypasses(_ host: String) -> Bool {
        let name = host.lowercased()
        let address = TunnelTarget.literal(host).flatMap { _ in try? SocketAddress(ipAddress: host, port: 0) }
        for entry in bypass {
            if entry == "*" { return true }
            var pattern = entry.lowercased()
            if pattern.hasPrefix("[") && pattern.hasSuffix("]") { pattern = String(pattern.dropFirst().dropLast()) }
            if pattern.contains("/"), let address, let range = try? AddressRange(parsing: pattern) {
                if range.contains(address) { return true }
                continue
            }
            if pattern.hasPrefix("*.") { pattern.removeFirst() }
            if pattern.hasPrefix(".") { pattern.removeFirst() }
            if name == pattern || name.hasSuffix("." + pattern) { return true }
        }
        return false
    }

    /// The destination `endpoint`'s tunnel asks `proxy` for: the name, or for a proxy that takes
    /// addresses the address resolved here (a literal as it is). Throws `.resolutionFailed` for
    /// a name not resolved beforehand, `.unsupported` for an IPv6 destination of SOCKS4.
    package func target(for endpoint: Endpoint, through proxy: ProxyEndpoint) throws(SocketEngineError) -> TunnelTarget {
        var target = TunnelTarget(host: endpoint.host, port: endpoint.port)
        if proxy.kind.resolvesLocally, case .name(let name) = target.host {
            guard let host = resolved[name] else {
                throw SocketEngineError(.resolutionFailed, "'\(name)' was not resolved for the \(proxy.kind.protocolName) proxy \(proxy.authority)")
            }
            target.host = host
        }
        if proxy.kind == .socks4, case .ipv6 = target.host {
            throw SocketEngineError(.unsupported, "SOCKS4 carries IPv4 addresses only: use socks4a:// or socks5h:// for \(endpoint.hostForDisplay)")
        }
        return target
    }

    /// This route with the names of `endpoints` resolved here where their proxy takes
    /// addresses (the first address `options.family` allows; SOCKS4: the first IPv4 one).
    package func resolvingNames(of endpoints: [Endpoint], options: ConnectOptions) async throws -> ProxyRoute {
        var route = self
        for endpoint in endpoints {
            guard let proxy = proxy(for: endpoint), proxy.kind.resolvesLocally, TunnelTarget.literal(endpoint.host) == nil,
                  route.resolved[endpoint.host] == nil else { continue }
            let addresses = try await options.resolver.resolve(host: endpoint.host, port: endpoint.port, datagram: false)
            let allowed = addresses.filter { options.family.allows($0) && (proxy.kind != .socks4 || $0.protocol == .inet) }
            guard let first = allowed.first, let target = TunnelTarget(address: first) else {
                throw SocketEngineError(.resolutionFailed, "'\(endpoint.host)' has no \(proxy.kind == .socks4 ? "IPv4" : options.family.name) address to send to the \(proxy.kind.protocolName) proxy")
            }
            route.resolved[endpoint.host] = target.host
        }
        return route
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var strippingBlanks: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
