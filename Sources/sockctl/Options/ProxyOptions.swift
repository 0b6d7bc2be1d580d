import ArgumentParser
import SocketEngine

/// `--proxy URL|env`: the SOCKS or HTTP CONNECT proxy a client's connections go through (connect,
/// send, replay, loadtest on both I/O paths, in ``TransportOptions``). The tunnel is opened
/// first; TLS, the WebSocket upgrade and the traffic run through it.
struct ProxyOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Connect through this proxy: socks5://[USER:PASS@]HOST[:PORT] (names resolved here), socks5h:// (names resolved by the proxy), socks4://, socks4a://, http://[USER:PASS@]HOST[:PORT] (CONNECT), or env: ALL_PROXY, HTTPS_PROXY, HTTP_PROXY and NO_PROXY, read only then. A PASS given here is overwritten with * in the process's arguments once parsed (ps shows USER:****).",
            valueName: "proxy"),
        transform: ProxyArgument.proxy)
    var proxy: ProxyArgument?

    /// The route for ``ConnectOptions/proxy`` (nil without `--proxy`); a proxy for a unix: or
    /// udp:// endpoint is a usage error.
    func route(for endpoint: Endpoint, diagnostics: Diagnostics?) throws -> ProxyRoute? {
        guard let proxy else { return nil }
        if endpoint.transport == .unix { throw UsageError("--proxy needs a network endpoint (a unix: socket is reached directly)") }
        if endpoint.transport == .udp { throw UsageError("--proxy carries streams only: udp:// cannot go through a proxy") }
        return try proxy.route(option: "--proxy", diagnostics: diagnostics)
    }
}
