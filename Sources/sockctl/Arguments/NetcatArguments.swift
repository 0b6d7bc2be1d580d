import SocketEngine

/// nc's and ncat's ways of saying where to go, turned into the endpoint grammar: `HOST PORT`
/// (two words) for `HOST:PORT`, `-u` for `udp://`, `-z HOST PORT[-PORT]...` for a list of ports
/// to check, and `listen -p PORT` for `listen PORT`.
///
/// The endpoint grammar stays the one way every command writes an endpoint; these only rewrite
/// what a user of nc types into it, so the endpoint's own checks (and their messages) apply.
enum NetcatArguments {
    /// `connect`'s positional words: ENDPOINT, or HOST PORT as nc takes them; `udp` is `-u`.
    static func clientEndpoint(_ words: [String], udp: Bool) throws -> Endpoint {
        switch words.count {
        case 1:
            return try Endpoint(parsing: udp ? try udpEndpoint(words[0], role: .client) : words[0], role: .client)
        case 2:
            guard let ports = try? PortList(parsing: [words[1]]) else {
                throw UsageError("invalid port '\(words[1])': with two words the second is the port, 1-65535, as in nc (e.g. 127.0.0.1 7000)")
            }
            guard ports.ports.count == 1 else {
                throw UsageError("'\(words[1])' is a range of ports: connect to one port, or check a range with -z")
            }
            return try Endpoint(parsing: (udp ? "udp://" : "") + hostAndPort(words[0], ports.ports[0]), role: .client)
        default:
            throw UsageError("too many arguments: give ENDPOINT (e.g. 127.0.0.1:7000) or HOST PORT (e.g. 127.0.0.1 7000); -z checks several ports")
        }
    }

    /// `connect -z`'s positional words: HOST PORT[-PORT]... (nc -z), or one HOST:PORT endpoint
    /// (or `unix:/path`); the ports are nil for an endpoint.
    static func checkTarget(_ words: [String], udp: Bool) throws -> (Endpoint, PortList?) {
        if udp { throw UsageError("-z checks TCP ports (a UDP port cannot be checked without sending to it)") }
        guard words.count > 1 else {
            return (try Endpoint(parsing: words.first ?? "", role: .client), nil)
        }
        let ports = try PortList(parsing: Array(words.dropFirst()))
        let endpoint = try Endpoint(parsing: hostAndPort(words[0], ports.ports.first ?? 1), role: .client)
        return (endpoint, ports)
    }

    /// `listen`'s endpoint: the positional ENDPOINT, or `-p PORT` as ncat's `-l -p PORT`
    /// (loopback, as a bare port is); `udp` is `-u`.
    static func listenerEndpoint(_ text: String?, port: Int?, udp: Bool) throws -> Endpoint {
        let written: String
        switch (text, port) {
        case (let text?, nil):
            written = text
        case (nil, let port?):
            guard (0...65535).contains(port) else { throw UsageError("-p \(port): a port is 0-65535 (0: any free port)") }
            written = String(port)
        case (_?, _?):
            throw UsageError("-p gives the port to listen on, and so does the endpoint: give one of them")
        case (nil, nil):
            throw UsageError("missing ENDPOINT: where to listen, e.g. 7000, 0.0.0.0:7000 or udp://:5353 (or -p 7000)")
        }
        return try Endpoint(parsing: udp ? try udpEndpoint(written, role: .listener) : written, role: .listener)
    }

    /// `text` with `udp://` in front (`-u`); an endpoint that names another transport is refused.
    private static func udpEndpoint(_ text: String, role: Endpoint.Role) throws -> String {
        if let separator = text.range(of: "://") {
            let scheme = text[..<separator.lowerBound].lowercased()
            if scheme == "udp" { return text }
            throw UsageError("-u means udp://, but '\(text)' is \(scheme)://")
        }
        if text.lowercased().hasPrefix("unix:") {
            throw UsageError("-u means udp://, but '\(text)' is a Unix socket")
        }
        return "udp://" + text
    }

    /// nc's HOST and PORT written as the endpoint grammar's `HOST:PORT` (`[v6]:PORT`). A HOST
    /// that is already an endpoint (a scheme, a path, a port of its own) is refused: with two
    /// words the first is only a host.
    private static func hostAndPort(_ host: String, _ port: Int) throws -> String {
        if host.contains("/") || host.lowercased().hasPrefix("unix:") {
            throw UsageError("'\(host)' is an endpoint, not a host: with HOST PORT the first word is a host name or address (e.g. 127.0.0.1 7000)")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { return "\(host):\(port)" }
        if host.contains(":") {
            // A bare IPv6 address (nc ::1 7000); a host:port here has a port twice.
            guard host.filter({ $0 == ":" }).count > 1 else {
                throw UsageError("'\(host)' has a port already: give HOST PORT or HOST:PORT, not both")
            }
            return "[\(host)]:\(port)"
        }
        return "\(host):\(port)"
    }
}
