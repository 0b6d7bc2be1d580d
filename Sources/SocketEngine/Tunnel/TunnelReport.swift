/// A tunnel as its handshake opened it: for `-v`, `send --json` and the load report's proxy times.
public struct TunnelReport: Sendable, Equatable {
    /// The proxy (its password never shown in its description).
    public var proxy: ProxyEndpoint
    /// The proxy's address connected to (`127.0.0.1:1080`).
    public var proxyAddress: String
    /// The destination as the request named it (`example.com:443`, `192.0.2.1:80`).
    public var target: String
    /// From the connection to the proxy being up to the tunnel being open: the proxy's own part
    /// of the connect time.
    public var duration: Duration

    /// A tunnel through `proxy` (at `proxyAddress`) to `target`, opened in `duration`.
    public init(proxy: ProxyEndpoint, proxyAddress: String, target: String, duration: Duration) {
        self.proxy = proxy
        self.proxyAddress = proxyAddress
        self.target = target
        self.duration = duration
    }
}
