import Testing
@testable import SocketEngine
import TestSupport

/// The proxy grammar (`--proxy`, `--upstream-proxy`) and the environment's proxies, read only
/// through ``ProxyRoute/environment(_:)``: which variable each destination takes, `NO_PROXY`,
/// and one line for each bad value.
@Suite(.hangGuard) struct ProxyEndpointTests {
    @Test(arguments: [
        ("socks5://127.0.0.1:1080", ProxyEndpoint.Kind.socks5, "127.0.0.1", 1080, nil, nil),
        ("socks5h://proxy.test", .socks5h, "proxy.test", 1080, nil, nil),
        ("SOCKS4A://[::1]:9050", .socks4a, "::1", 9050, nil, nil),
        ("http://u%40x:p%3Aw@127.0.0.1:3128/", .http, "127.0.0.1", 3128, "u@x", "p:w"),
        ("http://127.0.0.1", .http, "127.0.0.1", 3128, nil, nil),
        ("socks5://alice:@h:1", .socks5, "h", 1, "alice", ""),
    ] as [(String, ProxyEndpoint.Kind, String, Int, String?, String?)])
    func proxiesParse(text: String, kind: ProxyEndpoint.Kind, host: String, port: Int, user: String?, password: String?) throws {
        let proxy = try ProxyEndpoint(parsing: text)
        #expect(proxy.kind == kind && proxy.host == host && proxy.port == port)
        #expect(proxy.credentials?.username == user && proxy.credentials?.password == password)
    }

    @Test(arguments: [
        ("127.0.0.1:1080", "invalid proxy '127.0.0.1:1080': expected SCHEME://[USER:PASSWORD@]HOST[:PORT] such as socks5h://127.0.0.1:1080 (socks5, socks5h, socks4, socks4a or http)"),
        ("https://p:443", "invalid proxy 'https://p:443': a proxy reached over TLS (https://) is not supported; expected SCHEME://[USER:PASSWORD@]HOST[:PORT] such as socks5h://127.0.0.1:1080 (socks5, socks5h, socks4, socks4a or http)"),
        ("socks5://u:secret@h:99999", "invalid proxy 'socks5://u:***@h:99999': port '99999' is not 1-65535"),
        ("socks5://:pw@h:1", "invalid proxy 'socks5://:***@h:1': an empty user name"),
        ("socks5://u:%zz@h:1", "invalid proxy 'socks5://u:***@h:1': a bad percent escape in the user or password"),
        ("socks5://[::1:1080", "invalid proxy 'socks5://[::1:1080': an IPv6 address without its ']'"),
        ("http://", "invalid proxy 'http://': no host; expected SCHEME://[USER:PASSWORD@]HOST[:PORT] such as socks5h://127.0.0.1:1080 (socks5, socks5h, socks4, socks4a or http)"),
    ])
    func badProxiesSayWhatIsWrongWithoutThePassword(text: String, message: String) {
        #expect(throws: SocketEngineError(.invalidConfiguration, SettingText(message))) { try ProxyEndpoint(parsing: text) }
    }

    @Test func theDescriptionNeverShowsThePassword() throws {
        #expect(try ProxyEndpoint(parsing: "socks5://alice:secret@[::1]:1080").description == "socks5://alice@[::1]:1080")
    }

    @Test func eachDestinationTakesItsVariableLowerCaseFirst() throws {
        let route = try ProxyRoute.environment([
            "ALL_PROXY": "socks5h://127.0.0.1:1080", "https_proxy": "127.0.0.1:3128", "HTTPS_PROXY": "http://ignored:1",
            "HTTP_PROXY": "http://127.0.0.1:8080", "NO_PROXY": "localhost, .internal.test,10.0.0.0/8,[::1]",
        ])
        func proxy(_ endpoint: String) throws -> String? { try route.proxy(for: Endpoint(parsing: endpoint))?.description }
        #expect(try proxy("tcp://example.com:22") == "socks5h://127.0.0.1:1080")
        #expect(try proxy("tls://example.com:443") == "http://127.0.0.1:3128")
        #expect(try proxy("wss://example.com/") == "http://127.0.0.1:3128")
        #expect(try proxy("http://example.com/") == "http://127.0.0.1:8080")
        #expect(try proxy("ws://example.com/") == "http://127.0.0.1:8080")
        #expect(try proxy("localhost:80") == nil)
        #expect(try proxy("a.internal.test:80") == nil)
        #expect(try proxy("internal.test:80") == nil)
        #expect(try proxy("10.2.3.4:80") == nil)
        #expect(try proxy("[::1]:80") == nil)
        #expect(try proxy("notinternal.test:80") == "socks5h://127.0.0.1:1080")
        #expect(try proxy("unix:/tmp/x.sock") == nil)
        #expect(route.origin == "ALL_PROXY, https_proxy, HTTP_PROXY, NO_PROXY")
    }

    @Test func anEnvironmentWithoutAProxyOrWithABadOneIsRefused() {
        #expect(throws: SocketEngineError(.invalidConfiguration, "no proxy in the environment: none of ALL_PROXY, HTTPS_PROXY, HTTP_PROXY (or their lower-case spellings) is set")) {
            try ProxyRoute.environment(["NO_PROXY": "*", "PATH": "/bin"])
        }
        #expect(throws: SocketEngineError(.invalidConfiguration, "all_proxy: invalid proxy 'ftp://x:1': unknown scheme 'ftp': expected SCHEME://[USER:PASSWORD@]HOST[:PORT] such as socks5h://127.0.0.1:1080 (socks5, socks5h, socks4, socks4a or http)")) {
            try ProxyRoute.environment(["all_proxy": "ftp://x:1"])
        }
    }

    @Test func socks5SendsTheAddressResolvedHereAndSocks5hTheName() async throws {
        var options = ConnectOptions()
        options.resolver = StaticResolver(table: ["svc.test": ["192.0.2.9"]])
        let endpoint = try Endpoint(parsing: "svc.test:80")
        let local = try await ProxyRoute(ProxyEndpoint(parsing: "socks5://127.0.0.1:1")).resolvingNames(of: [endpoint], options: options)
        #expect(try local.target(for: endpoint, through: ProxyEndpoint(parsing: "socks5://127.0.0.1:1")).description == "192.0.2.9:80")
        let remote = try await ProxyRoute(ProxyEndpoint(parsing: "socks5h://127.0.0.1:1")).resolvingNames(of: [endpoint], options: options)
        #expect(try remote.target(for: endpoint, through: ProxyEndpoint(parsing: "socks5h://127.0.0.1:1")).description == "svc.test:80")
    }
}
