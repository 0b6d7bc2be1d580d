import Glibc

/// Where a socket connects to or listens on, parsed from the one endpoint grammar every
/// subcommand shares.
///
/// ```
/// host:port  [v6]:port  tcp://host:port  udp://host:port  unix:/path
/// tls://host:port  ws://host[:port]/path  wss://host[:port]/path
/// http://host[:port]/path?query  https://host[:port]/path?query
/// listeners also: PORT  :PORT
/// ```
///
/// Parsing is strict: a port of 0 (except for a listener, where it asks the kernel for a free
/// port) or above 65535, an empty host, an IPv6 address without brackets, an unknown scheme and a
/// missing port are all errors whose message names the offending part.
public struct Endpoint: Hashable, Sendable, CustomStringConvertible {
    /// The transport an endpoint names.
    public enum Transport: String, Sendable, Hashable, CaseIterable {
        case tcp, udp, unix, tls, ws, wss, http, https

        /// True for transports built on a byte stream (everything but UDP).
        package var isStream: Bool { self != .udp }

        /// The byte transport under the scheme: `http` and `ws` ride `tcp`, `https` and `wss`
        /// ride `tls`; the others are their own. Opening, listening and the thread path switch on
        /// this, so a scheme that adds a protocol on top opens exactly like its carrier.
        package var carrier: Transport {
            switch self {
            case .http, .ws: .tcp
            case .https, .wss: .tls
            case .tcp, .udp, .unix, .tls: self
            }
        }

        /// `tls://`, `wss://` and `https://`: the TLS layer goes on.
        public var isSecured: Bool { carrier == .tls }

        /// `http://` and `https://`: messages are HTTP/1.1 requests and responses.
        public var isHTTP: Bool { self == .http || self == .https }

        /// The schemes whose endpoints carry a request target (`/path?query`) and a default port.
        var takesRequestTarget: Bool { self == .ws || self == .wss || isHTTP }
    }

    /// How an endpoint is going to be used; listeners accept a bare port.
    public enum Role: Sendable {
        case client
        case listener
    }

    /// The scheme; `tcp` when the text has none.
    public var transport: Transport
    /// Host name or address literal (without brackets); empty for a listener given only a port.
    public var host: String
    /// Port number; 0 for Unix sockets and for a listener that asks for any free port.
    public var port: Int
    /// Socket path for `unix:` endpoints.
    public var path: String
    /// Request target for `ws://`, `wss://`, `http://` and `https://`: the path and query
    /// (always starts with `/`).
    package var resource: String

    /// An endpoint from its parts, taken as given: unlike ``init(parsing:role:)`` nothing is checked.
    public init(transport: Transport, host: String = "", port: Int = 0, path: String = "", resource: String = "/") {
        self.transport = transport
        self.host = host
        self.port = port
        self.path = path
        self.resource = resource
    }

    /// The endpoint written back in the canonical grammar.
    public var description: String {
        switch transport {
        case .unix:
            return "unix:\(path)"
        case .ws, .wss, .http, .https:
            return "\(transport.rawValue)://\(hostForDisplay):\(port)\(resource)"
        case .tcp:
            return "\(hostForDisplay):\(port)"
        case .udp, .tls:
            return "\(transport.rawValue)://\(hostForDisplay):\(port)"
        }
    }

    /// The host with brackets around IPv6 literals, as it appears in `host:port`.
    package var hostForDisplay: String {
        host.contains(":") ? "[\(host)]" : host
    }
}

extension Endpoint {
    /// Parses `text` in the endpoint grammar.
    ///
    /// - Throws: ``SocketEngineError`` with code `.invalidEndpoint` and a message naming the bad
    ///   part and the form expected, with an example.
    public init(parsing text: String, role: Role = .client) throws(SocketEngineError) {
        func fail(_ why: String) -> SocketEngineError {
            SocketEngineError(.invalidEndpoint, "invalid endpoint '\(text)': \(why)")
        }
        let form = Endpoint.expectedForm(role)
        if text.isEmpty { throw fail("empty endpoint (expected \(form))") }
        if text.contains(where: { $0.isWhitespace }) { throw fail("contains whitespace (expected \(form))") }

        var rest = Substring(text)
        var transport = Transport.tcp
        if let schemeEnd = Endpoint.schemeSeparator(in: text) {
            let scheme = text[..<schemeEnd.lowerBound].lowercased()
            guard let known = Transport(rawValue: scheme) else {
                let names = Transport.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail("unknown scheme '\(scheme)' (expected one of \(names))")
            }
            transport = known
            rest = text[schemeEnd.upperBound...]
        } else if text.lowercased().hasPrefix("unix:") {
            transport = .unix
            rest = text.dropFirst(5)
        }

        switch transport {
        case .unix:
            if rest.hasPrefix("//") { rest = rest.dropFirst(2) }
            guard !rest.isEmpty else { throw fail("empty socket path (expected unix:PATH, e.g. unix:/run/app.sock)") }
            let maximum = Endpoint.maximumUnixPathLength
            guard rest.utf8.count <= maximum else {
                throw fail("socket path is \(rest.utf8.count) bytes, the limit is \(maximum)")
            }
            guard !rest.utf8.contains(0) else { throw fail("socket path contains a NUL byte") }
            self.init(transport: .unix, path: String(rest))
        case .ws, .wss, .http, .https:
            var authority = rest
            var resource = "/"
            if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                authority = rest[..<slash]
                resource = String(rest[slash...])
                if resource.hasPrefix("?") { resource = "/" + resource }
            }
            let defaultPort = transport.isSecured ? 443 : 80
            // A listener may leave the host out (`ws://:8080/chat`): loopback, as for TCP.
            let (host, port) = try Endpoint.splitHostPort(authority, defaultPort: defaultPort, role: role, fail: fail)
            self.init(transport: transport, host: host, port: port, resource: resource)
        case .tcp, .udp, .tls:
            if rest.contains("/") { throw fail("unexpected '/' (a path is only valid for ws://, wss://, http:// and https://)") }
            let (host, port) = try Endpoint.splitHostPort(rest, defaultPort: nil, role: role, fail: fail)
            self.init(transport: transport, host: host, port: port)
        }
    }

    /// `sun_path` holds 108 bytes including the terminating NUL.
    package static let maximumUnixPathLength = 107

    private static func splitHostPort(
        _ text: Substring,
        defaultPort: Int?,
        role: Role,
        fail: (String) -> SocketEngineError
    ) throws(SocketEngineError) -> (String, Int) {
        var host: Substring
        var portText: Substring?
        let form = expectedForm(role)
        let bracketed = "expected [ADDRESS]:PORT, e.g. [::1]:7000"
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw fail("missing ']' after IPv6 address (\(bracketed))") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if after.isEmpty {
                portText = nil
            } else if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else {
                throw fail("unexpected '\(after)' after ']'")
            }
            guard isIPv6Literal(host) else { throw fail("'\(host)' is not an IPv6 address (\(bracketed))") }
        } else if role == .listener, text.allSatisfy(\.isASCIIDigit) {
            host = ""
            portText = text
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") {
                throw fail("IPv6 addresses need brackets, as in [\(host)]:\(portText ?? "")")
            }
        } else {
            host = text
            portText = nil
        }

        if host.isEmpty && role == .client { throw fail("empty host (expected \(form))") }
        if let bad = host.first(where: { !($0.isLetter || $0.isNumber || "-._:%".contains($0)) }) {
            throw fail("invalid character '\(bad)' in host '\(host)' (expected \(form))")
        }

        guard let portText else {
            if let defaultPort { return (String(host), defaultPort) }
            throw fail("missing port (expected \(form))")
        }
        guard !portText.isEmpty else { throw fail("missing port after ':' (expected \(form))") }
        guard portText.allSatisfy(\.isASCIIDigit), portText.count <= 6, let port = Int(portText) else {
            throw fail("port '\(portText)' is not a number (expected \(form))")
        }
        let lowest = role == .listener ? 0 : 1
        guard port >= lowest && port <= 65535 else {
            throw fail("port \(port) is out of range (\(lowest)-65535; expected \(form))")
        }
        return (String(host), port)
    }

    /// `HOST:PORT, e.g. 127.0.0.1:7000` (a listener: `[HOST:]PORT, e.g. 7000 or 127.0.0.1:7000`).
    private static func expectedForm(_ role: Role) -> String {
        role == .listener ? "[HOST:]PORT, e.g. 7000 or 127.0.0.1:7000" : "HOST:PORT, e.g. 127.0.0.1:7000"
    }

    private static func schemeSeparator(in text: String) -> Range<String.Index>? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("://") {
                return index..<text.index(index, offsetBy: 3)
            }
            index = text.index(after: index)
        }
        return nil
    }

    static func isIPv6Literal(_ text: Substring) -> Bool {
        let address = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? ""
        var storage = in6_addr()
        return !address.isEmpty && inet_pton(AF_INET6, address, &storage) == 1
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
