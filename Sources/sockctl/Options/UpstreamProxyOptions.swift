import ArgumentParser
import SocketEngine

/// `proxy --upstream-proxy URL|env`: the SOCKS or HTTP CONNECT proxy the relay's upstream
/// connections go through (each client's own tunnel), as `--proxy` for the clients.
struct UpstreamProxyOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Reach the upstream through this proxy (a tunnel per client): socks5://, socks5h://, socks4://, socks4a://, http:// (CONNECT) or env, as connect's --proxy.",
            valueName: "proxy"),
        transform: ProxyArgument.upstreamProxy)
    var upstreamProxy: ProxyArgument?

    /// The route for the upstream's ``ConnectOptions/proxy`` (nil without the option).
    func route(for upstream: Endpoint, diagnostics: Diagnostics?) throws -> ProxyRoute? {
        guard let upstreamProxy else { return nil }
        if upstream.transport == .unix || upstream.transport == .udp {
            throw UsageError("--upstream-proxy needs a tcp://, tls://, http://, ws:// or wss:// upstream (a proxy carries network streams only)")
        }
        return try upstreamProxy.route(option: "--upstream-proxy", diagnostics: diagnostics)
    }
}
