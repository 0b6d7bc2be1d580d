import Foundation
import SocketEngine

/// The value of `--proxy` and `--upstream-proxy`: a proxy URL (``ProxyEndpoint``'s grammar), or
/// `env` — the proxy the environment names (`ALL_PROXY`, `HTTPS_PROXY`, `HTTP_PROXY`,
/// `NO_PROXY`), read only then: variables that change where traffic goes are never read
/// unasked.
enum ProxyArgument: Sendable {
    case url(ProxyEndpoint)
    case environment

    /// `--proxy`'s value.
    @Sendable static func proxy(_ text: String) throws -> ProxyArgument {
        try parse(text, option: "--proxy")
    }

    /// `--upstream-proxy`'s value.
    @Sendable static func upstreamProxy(_ text: String) throws -> ProxyArgument {
        try parse(text, option: "--upstream-proxy")
    }

    /// Parses `env` or a proxy URL; a bad one is refused naming `option` and never showing the
    /// password given (the engine's message keeps it out).
    static func parse(_ text: String, option: String) throws -> ProxyArgument {
        if text == "env" { return .environment }
        do {
            return .url(try ProxyEndpoint(parsing: text))
        } catch {
            let reason = error.message.hasPrefix("invalid proxy ") ? String(error.message.dropFirst("invalid proxy ".count)) : error.message
            throw UsageError("invalid \(option) \(reason)")
        }
    }

    /// The route: the one proxy, or the environment's (a usage error when it names none or one
    /// that does not parse; said under `-v` with `diagnostics`). `option` is the flag's name.
    func route(option: String, diagnostics: Diagnostics?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ProxyRoute {
        switch self {
        case .url(let proxy):
            var route = ProxyRoute(proxy)
            route.origin = option
            return route
        case .environment:
            let route: ProxyRoute
            do {
                route = try ProxyRoute.environment(environment)
            } catch {
                throw UsageError("\(option) env: \(error.message)")
            }
            if let diagnostics {
                let chosen = [("ALL_PROXY", route.all), ("HTTPS_PROXY", route.https), ("HTTP_PROXY", route.http)]
                    .compactMap { name, proxy in proxy.map { "\(name) \($0)" } }.joined(separator: ", ")
                let bypass = route.bypass.isEmpty ? "" : "; direct for NO_PROXY \(route.bypass.joined(separator: ","))"
                diagnostics.event("proxy from the environment (\(option) env, read \(route.origin)): \(chosen)\(bypass)")
            }
            return route
        }
    }
}
