/// `sockctl proxy socks5://…` and `http-connect://…`: the relay as a SOCKS5 (RFC 1928) or HTTP
/// CONNECT (RFC 9110 §9.3.6) proxy, each client's destination taken from its request instead
/// of one upstream, and checked against ``destinations`` before it is dialled.
public struct TunnelServer: Sendable, Hashable {
    /// The protocol clients speak to the proxy.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// SOCKS5: CONNECT to an IPv4, IPv6 or domain-name destination, no authentication or
        /// (with ``TunnelServer/credentials``) RFC 1929 username/password.
        case socks5
        /// HTTP CONNECT `host:port`, answered `HTTP/1.1 200 Connection established`; with
        /// ``TunnelServer/credentials``, `Proxy-Authorization: Basic` is required.
        case httpConnect = "http-connect"

        /// The protocol's name in messages: `SOCKS5`, `HTTP CONNECT`.
        public var name: String { self == .socks5 ? "SOCKS5" : "HTTP CONNECT" }
    }

    /// The protocol clients speak.
    public var kind: Kind
    /// Which destinations may be dialled.
    public var destinations: DestinationPolicy
    /// The user and password every client must give (SOCKS5: RFC 1929; HTTP: Basic); nil: none
    /// asked for.
    public var credentials: ProxyCredentials?

    /// A proxy of `kind` that dials every destination and asks for no credentials.
    public init(kind: Kind, destinations: DestinationPolicy = DestinationPolicy(), credentials: ProxyCredentials? = nil) {
        self.kind = kind
        self.destinations = destinations
        self.credentials = credentials
    }
}
