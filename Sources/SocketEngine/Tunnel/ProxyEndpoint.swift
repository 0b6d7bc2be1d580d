/// A proxy a client connection goes through: `socks5://`, `socks5h://`, `socks4://`,
/// `socks4a://` or `http://` (CONNECT), its host and port, and the credentials it asks for.
///
/// ```
/// socks5://[user[:password]@]host[:port]     names resolved here, the address sent  (port 1080)
/// socks5h://…                                 names sent, resolved by the proxy       (port 1080)
/// socks4://host[:port]                        IPv4 only, resolved here                (port 1080)
/// socks4a://[user@]host[:port]                names sent (the user is SOCKS4's user id)
/// http://[user[:password]@]host[:port]        HTTP CONNECT, Basic Proxy-Authorization (port 3128)
/// ```
///
/// The user and password may be percent-encoded (`%40` for `@`); each is at most 255 bytes
/// (RFC 1929's limit). A proxy reached over TLS (`https://`) is not supported yet.
public struct ProxyEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The proxy protocol.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// SOCKS5, the destination's name resolved here (its address sent).
        case socks5
        /// SOCKS5, the destination's name sent (resolved by the proxy), as curl's spelling.
        case socks5h
        /// SOCKS4: IPv4 addresses only, resolved here.
        case socks4
        /// SOCKS4a: the destination's name sent.
        case socks4a
        /// HTTP CONNECT.
        case http

        /// Whether this side resolves the destination's name and sends its address.
        package var resolvesLocally: Bool { self == .socks5 || self == .socks4 }
        /// The port when none is given: 1080 for SOCKS, 3128 for HTTP (as ncat).
        package var defaultPort: Int { self == .http ? 3128 : 1080 }
        /// The protocol's name in messages: `SOCKS5`, `SOCKS4a`, `HTTP CONNECT`.
        package var protocolName: String {
            switch self {
            case .socks5, .socks5h: "SOCKS5"
            case .socks4: "SOCKS4"
            case .socks4a: "SOCKS4a"
            case .http: "HTTP CONNECT"
            }
        }
    }

    /// The proxy protocol.
    public var kind: Kind
    /// The proxy's host: a name or an address literal (without brackets).
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The user and password, when the proxy asks for them.
    public var credentials: ProxyCredentials?

    /// A proxy of `kind` at `host`:`port`, with `credentials` when it asks for them.
    public init(kind: Kind, host: String, port: Int, credentials: ProxyCredentials? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// Parses `scheme://[user[:password]@]host[:port][/]`; throws `.invalidConfiguration`
    /// naming what is wrong and what is expected.
    public init(parsing text: String) throws(SocketEngineError) {
        let expected = "expected SCHEME://[USER:PASSWORD@]HOST[:PORT] such as socks5h://127.0.0.1:1080 (socks5, socks5h, socks4, socks4a or http)"
        guard let schemeEnd = text.range(of: "://") else {
            throw SocketEngineError(.invalidConfiguration, "invalid proxy '\(text)': \(expected)")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard let kind = Kind(rawValue: scheme) else {
            let hint = scheme == "https" ? "a proxy reached over TLS (https://) is not supported; " : "unknown scheme '\(scheme)': "
            throw SocketEngineError(.invalidConfiguration, "invalid proxy '\(text)': \(hint)\(expected)")
        }
        var rest = Substring(text[schemeEnd.upperBound...])
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        var credentials: ProxyCredentials?
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let user: Substring
            let password: Substring
            if let colon = userinfo.firstIndex(of: ":") {
                (user, password) = (userinfo[..<colon], userinfo[userinfo.index(after: colon)...])
            } else {
                (user, password) = (userinfo, "")
            }
            guard let username = Self.percentDecoded(user), let secret = Self.percentDecoded(password) else {
                throw SocketEngineError(.invalidConfiguration, "invalid proxy '\(Self.redacted(text))': a bad percent escape in the user or password")
            }
            guard !username.isEmpty else {
                throw SocketEngineError(.invalidConfiguration, "invalid proxy '\(Self.redacted(text))': an empty user name")
            }
            guard username.utf8.count <= 255, secret.utf8.count <= 255 else {
                throw SocketEngineError(.invalidConfiguration, "invalid proxy '\(Self.redacted(text))': the user and the password are at most 255 bytes each")
            }
            credentials = ProxyCredentials(username: username, password: secret)
        }
        let host: String
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw SocketEngineError(.invalidConfiguration, "invalid proxy '\(Self.redacted(text))': an IPv6 address without its ']'")
            }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty {
                throw SocketEngineError(.invalidConfiguration, "invalid proxy '\(Self.redacted(text))': \(expected)")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            portText = rest[rest.index(after: colon)...]
        } else {
            host = String(rest)
        }
        guard !host.isEmpty, !host.contains("/") else {
            throw SocketEngineError(.invalidConfiguration, "invalid proxy '\(Self.redacted(text))': no host; \(expected)")
        }
        var port = kind.defaultPort
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw SocketEngineError(.invalidConfiguration, "invalid proxy '\(Self.redacted(text))': port '\(portText)' is not 1-65535")
            }
            port = value
        }
        if kind == .socks4, credentials?.password.isEmpty == false {
            throw SocketEngineError(.invalidConfiguration, "invalid proxy '\(Self.redacted(text))': SOCKS4 has a user id but no password")
        }
        self.init(kind: kind, host: host, port: port, credentials: credentials)
    }

    /// `socks5://user@127.0.0.1:1080`: the password never shown.
    public var description: String {
        let user = credentials.map { "\($0.username)@" } ?? ""
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(kind.rawValue)://\(user)\(shownHost):\(port)"
    }

    /// `host:port` as the proxy's messages name it.
    package var authority: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// `text` with any password replaced by `***`.
    static func redacted(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://"), let at = text[schemeEnd.upperBound...].lastIndex(of: "@") else { return text }
        let userinfo = text[schemeEnd.upperBound..<at]
        guard let colon = userinfo.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }

    /// `%XX` escapes decoded (nil for a bad escape or bytes that are not UTF-8).
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// A proxy's user and password (SOCKS5: RFC 1929; HTTP: Basic `Proxy-Authorization`; SOCKS4a:
/// the user id only).
public struct ProxyCredentials: Sendable, Hashable {
    /// The user name (at least one byte).
    public var username: String
    /// The password (may be empty).
    public var password: String
    /// A user and its password.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}
