import Foundation
import TestSupport
import Testing

import Glibc

/// `--proxy` (connect, send, loadtest on both I/O paths) and `proxy --upstream-proxy` against
/// real proxies on loopback — microsocks (with and without a password), dante, tinyproxy and
/// `ncat --proxy-type http` — with TLS and WebSocket on top of the tunnel, 16 MiB each way, and
/// every refusal one line with the proxy's own reason and exit status 1.
@Suite("client proxies with real peers", .hangGuard)
struct ProxyClientTests {
    /// `sockctl listen 127.0.0.1:0 --echo -k`.
    static func echoServer(_ endpoint: String = "127.0.0.1:0") async throws -> (Child, Int) {
        let child = try await Child(try sockctlPath(), ["listen", endpoint, "--echo", "-k"], name: "echo")
        return (child, try await child.listeningPort())
    }

    /// `sockctl ARGS` run to its end, stdin closed.
    static func sockctl(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try await run(try sockctlPath(), arguments, environment: environment)
        return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
    }

    enum Peer: String, CaseIterable, Sendable {
        case microsocks, microsocksWithPassword, dante, tinyproxy, ncat
    }

    static func start(_ peer: Peer, allowing port: Int) async throws -> ProxyPeer {
        switch peer {
        case .microsocks: try await ProxyPeer.microsocks()
        case .microsocksWithPassword: try await ProxyPeer.microsocks(credentials: ("alice", "s3cret"))
        case .dante: try await ProxyPeer.dante(allowedPort: port)
        case .tinyproxy: try await ProxyPeer.tinyproxy(allowedPort: port, user: "alice", password: "s3cret")
        case .ncat: try await ProxyPeer.ncatHTTP()
        }
    }

    /// The proxy URLs each peer is reached with.
    static func urls(_ peer: Peer, port: Int) -> [String] {
        switch peer {
        case .microsocks: ["socks5://127.0.0.1:\(port)", "socks5h://127.0.0.1:\(port)"]
        case .microsocksWithPassword: ["socks5://alice:s3cret@127.0.0.1:\(port)", "socks5h://alice:s3cret@127.0.0.1:\(port)"]
        case .dante: ["socks5://127.0.0.1:\(port)", "socks5h://127.0.0.1:\(port)", "socks4://127.0.0.1:\(port)"]
        case .tinyproxy: ["http://alice:s3cret@127.0.0.1:\(port)"]
        case .ncat: ["http://127.0.0.1:\(port)"]
        }
    }

    // MARK: Through each proxy

    /// `send` reaches an echo server through each proxy and each of its schemes; `-v` names the
    /// tunnel and its destination — the name itself for socks5h:// (the proxy resolved it), the
    /// address resolved here for socks5:// and socks4://.
    @Test(arguments: Peer.allCases)
    func sendReachesTheServerThroughTheProxy(peer: Peer) async throws {
        let (echo, echoPort) = try await Self.echoServer()
        defer { echo.signal(SIGKILL) }
        let proxy = try await Self.start(peer, allowing: echoPort)
        for url in Self.urls(peer, port: proxy.port) {
            let result = try await Self.sockctl(["send", "localhost:\(echoPort)", "through \(peer)", "--framing", "line", "-v", "--proxy", url])
            #expect(result.status == 0, "\(url): \(result.stderr)")
            #expect(result.stdout == "through \(peer)\n", "\(url)")
            let sentName = url.hasPrefix("socks5h") || url.hasPrefix("http")
            let shown = url.replacingOccurrences(of: ":s3cret@", with: "@")
            #expect(result.stderr.contains("proxy \(shown) opened the tunnel to \(sentName ? "localhost" : "127.0.0.1"):\(echoPort) in "), "\(url): \(result.stderr)")
            #expect(!result.stderr.contains("s3cret"), "the password is never shown")
        }
        await proxy.stop()
    }

    // MARK: Refusals

    /// `connect` through a proxy that says no: one line on stderr, the proxy's own reason, exit 1.
    static func refused(_ target: String, _ url: String) async throws -> String {
        let result = try await sockctl(["connect", target, "--proxy", url])
        #expect(result.status == 1, "\(url): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        return result.stderr
    }

    @Test func anUnreachableProxyIsOneLine() async throws {
        let closed = try ClosedPort()
        let line = try await Self.refused("127.0.0.1:9", "socks5://127.0.0.1:\(closed.port)")
        #expect(line == "sockctl connect: error: connect to 127.0.0.1:9 through the proxy socks5://127.0.0.1:\(closed.port) failed: 127.0.0.1:\(closed.port): connection refused (ECONNREFUSED)\n")
    }

    @Test func wrongOrMissingCredentialsAreTheProxysRefusal() async throws {
        let (echo, echoPort) = try await Self.echoServer()
        defer { echo.signal(SIGKILL) }
        let socks = try await ProxyPeer.microsocks(credentials: ("alice", "s3cret"))
        let target = "127.0.0.1:\(echoPort)"
        #expect(try await Self.refused(target, "socks5://alice:wrong@127.0.0.1:\(socks.port)").hasPrefix(
            "sockctl connect: error: SOCKS5 proxy 127.0.0.1:\(socks.port) refused the user 'alice' and its password (RFC 1929 status 0x"))
        #expect(try await Self.refused(target, "socks5://127.0.0.1:\(socks.port)") ==
            "sockctl connect: error: SOCKS5 proxy 127.0.0.1:\(socks.port) accepts none of the authentication methods offered (no authentication) (it may want a user and password)\n")
        await socks.stop()

        let http = try await ProxyPeer.tinyproxy(allowedPort: echoPort, user: "alice", password: "s3cret")
        #expect(try await Self.refused(target, "http://alice:wrong@127.0.0.1:\(http.port)") ==
            "sockctl connect: error: HTTP CONNECT proxy 127.0.0.1:\(http.port) refused the connection to \(target): 'HTTP/1.0 401 Unauthorized'\n")
        #expect(try await Self.refused(target, "http://127.0.0.1:\(http.port)") ==
            "sockctl connect: error: HTTP CONNECT proxy 127.0.0.1:\(http.port) refused the connection to \(target): 'HTTP/1.0 407 Proxy Authentication Required'\n")
        await http.stop()
    }

    /// A destination the proxy will not reach: its rules (dante's ruleset, tinyproxy's
    /// ConnectPort) or a port nothing listens on (microsocks, ncat).
    @Test func aDestinationTheProxyRefusesNamesItsReplyCodeOrStatusLine() async throws {
        let (echo, echoPort) = try await Self.echoServer()
        defer { echo.signal(SIGKILL) }
        let closed = try ClosedPort()
        let target = "127.0.0.1:\(closed.port)"

        let dante = try await ProxyPeer.dante(allowedPort: echoPort)
        #expect(try await Self.refused(target, "socks5://127.0.0.1:\(dante.port)") ==
            "sockctl connect: error: SOCKS5 proxy 127.0.0.1:\(dante.port) refused the connection to \(target): reply 0x02 (connection not allowed by ruleset)\n")
        await dante.stop()

        let socks = try await ProxyPeer.microsocks()
        #expect(try await Self.refused(target, "socks5://127.0.0.1:\(socks.port)") ==
            "sockctl connect: error: SOCKS5 proxy 127.0.0.1:\(socks.port) refused the connection to \(target): reply 0x05 (connection refused)\n")
        await socks.stop()

        let tiny = try await ProxyPeer.tinyproxy(allowedPort: echoPort, user: "alice", password: "s3cret")
        #expect(try await Self.refused(target, "http://alice:s3cret@127.0.0.1:\(tiny.port)") ==
            "sockctl connect: error: HTTP CONNECT proxy 127.0.0.1:\(tiny.port) refused the connection to \(target): 'HTTP/1.1 403 Access violation'\n")
        await tiny.stop()

        let ncat = try await ProxyPeer.ncatHTTP()
        let line = try await Self.refused(target, "http://127.0.0.1:\(ncat.port)")
        #expect(line.hasPrefix("sockctl connect: error: HTTP CONNECT proxy 127.0.0.1:\(ncat.port) refused the connection to \(target): 'HTTP/1."), "\(line)")
        await ncat.stop()
    }

    /// A proxy that sends half a reply, closes at once, or answers in another protocol.
    @Test(arguments: [
        ("half-reply", "closed the connection in the middle of its SOCKS5 reply (5 of at least 10 bytes)"),
        ("close", "closed the connection before its SOCKS5 method selection"),
        ("garbage", "sent a malformed SOCKS5 method selection: version 0x48, not 0x05"),
    ])
    func aBrokenProxyIsOneLine(mode: String, reason: String) async throws {
        let (server, port) = try await ScriptedSOCKSServer.start(mode)
        defer { server.signal(SIGKILL) }
        #expect(try await Self.refused("127.0.0.1:9", "socks5h://127.0.0.1:\(port)") == "sockctl connect: error: SOCKS5 proxy 127.0.0.1:\(port) \(reason)\n")
    }

    // MARK: TLS and WebSocket on top

    /// openssl s_server behind microsocks and tinyproxy: the TLS handshake runs through the
    /// tunnel (the certificate checked for the destination, not the proxy) and the server
    /// decrypts what was sent.
    @Test func tlsRunsInsideTheTunnel() async throws {
        let dir = try await TestCertificates.shared.directory()
        let (server, port) = try await openSSLServer("server")
        defer { server.signal(SIGKILL) }
        let socks = try await ProxyPeer.microsocks()
        let tiny = try await ProxyPeer.tinyproxy(allowedPort: port, user: "alice", password: "s3cret")
        for (index, url) in ["socks5h://127.0.0.1:\(socks.port)", "http://alice:s3cret@127.0.0.1:\(tiny.port)"].enumerated() {
            let result = try await Self.sockctl(["send", "tls://localhost:\(port)", "secret \(index)", "--responses", "0", "--cafile", "\(dir)/ca.pem", "-v", "--proxy", url])
            #expect(result.status == 0, "\(url): \(result.stderr)")
            #expect(result.stderr.contains("TLS: TLSv1.3") && result.stderr.contains("verified (chain and host name)"), "\(result.stderr)")
            try await server.waitForStdout("secret \(index)")
        }
        await socks.stop()
        await tiny.stop()
    }

    /// `listen ws://` behind dante and ncat: the upgrade and the messages go through the tunnel.
    @Test func webSocketRunsInsideTheTunnel() async throws {
        let (echo, port) = try await Self.echoServer("ws://127.0.0.1:0/chat")
        defer { echo.signal(SIGKILL) }
        let dante = try await ProxyPeer.dante(allowedPort: port)
        let ncat = try await ProxyPeer.ncatHTTP()
        for url in ["socks5h://127.0.0.1:\(dante.port)", "http://127.0.0.1:\(ncat.port)"] {
            let result = try await Self.sockctl(["send", "ws://localhost:\(port)/chat", "one", "two", "--responses", "2", "-v", "--proxy", url])
            #expect(result.status == 0, "\(url): \(result.stderr)")
            #expect(result.stdout == "one\ntwo\n", "\(url)")
            #expect(result.stderr.contains("WebSocket open"), "\(result.stderr)")
        }
        await dante.stop()
        await ncat.stop()
    }

    // MARK: Bulk

    /// 16 MiB up and 16 MiB down through microsocks, byte for byte: `connect` sends a file and
    /// keeps its side open (microsocks passes no half-close: a client's FIN ends both ways);
    /// socat's server reads the 16 MiB, answers with its own file and closes.
    @Test func sixteenMebibytesEachWayThroughMicrosocks() async throws {
        let scratch = try Scratch()
        let exchange = try await SocatExchange(size: 16 << 20, in: scratch)
        let server = exchange.server
        defer { server.signal(SIGKILL) }
        let port = exchange.port
        let socks = try await ProxyPeer.microsocks()
        let client = try await Child(
            try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--no-shutdown", "--proxy", "socks5://127.0.0.1:\(socks.port)"],
            stdin: .file(exchange.requestPath), name: "connect")
        #expect(try await client.wait() == 0, "\(client.stderr)")
        #expect(try await server.wait() == 0, "\(server.stderr)")
        let wrong = try exchange.check(client.stdout)
        #expect(wrong == nil, "\(wrong ?? "")")
        await socks.stop()
    }

    // MARK: Replay

    /// A session recorded directly, replayed through dante and verified: the recorded client
    /// side goes through the tunnel, its end (a FIN) too, and the answers match.
    @Test func replayVerifiesThroughDante() async throws {
        let (echo, echoPort) = try await Self.echoServer()
        defer { echo.signal(SIGKILL) }
        let scratch = try Scratch()
        try "one\ntwo\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let recorder = try await Child(
            try sockctlPath(), ["connect", "127.0.0.1:\(echoPort)", "--record", scratch.path("s.pcap"), "--framing", "line"],
            stdin: .file(scratch.path("input")), name: "recorder")
        #expect(try await recorder.wait() == 0, "\(recorder.stderr)")
        let dante = try await ProxyPeer.dante(allowedPort: echoPort)
        let result = try await Self.sockctl([
            "replay", scratch.path("s.pcap"), "127.0.0.1:\(echoPort)", "--verify", "--framing", "line", "-v", "--proxy", "socks5://127.0.0.1:\(dante.port)",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("opened the tunnel to 127.0.0.1:\(echoPort)") && result.stderr.contains("2 matched, 0 mismatched"), "\(result.stderr)")
        await dante.stop()
    }

    // MARK: Load

    /// loadtest through microsocks on event loops and on threads: every connection a tunnel,
    /// every message answered, the tunnels timed apart from the latency.
    @Test(arguments: ["events", "threads"])
    func loadtestGoesThroughMicrosocksOnBothIOPaths(io: String) async throws {
        let (echo, echoPort) = try await Self.echoServer()
        defer { echo.signal(SIGKILL) }
        let socks = try await ProxyPeer.microsocks()
        let scratch = try Scratch()
        let url = "socks5://127.0.0.1:\(socks.port)"
        let result = try await Self.sockctl([
            "loadtest", "127.0.0.1:\(echoPort)", "-c", "4", "--requests", "200", "--framing", "line", "--io", io,
            "--proxy", url, "--json", scratch.path("report.json"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("report.json")))) as? [String: Any]
        let connections = report?["connections"] as? [String: Any]
        let messages = report?["messages"] as? [String: Any]
        #expect(connections?["established"] as? Int == 4)
        #expect(messages?["received"] as? Int == 200)
        #expect((report?["errors"] as? [String: Any])?.isEmpty == true, "\(report?["errors"] ?? "")")
        #expect(report?["proxy"] as? String == url)
        #expect((report?["proxy_tunnel"] as? [String: Any])?["count"] as? Int == 4, "\(report?["proxy_tunnel"] ?? "none")")
        #expect(result.stdout.contains("proxy       \(url): 4 tunnels opened: min "), "\(result.stdout)")
        await socks.stop()
    }

    /// A destination microsocks cannot reach: each connect counts as a `proxy` error whose
    /// example is the proxy's reply, on both I/O paths.
    @Test(arguments: ["events", "threads"])
    func loadtestCountsTheProxysRefusals(io: String) async throws {
        let closed = try ClosedPort()
        let socks = try await ProxyPeer.microsocks()
        let scratch = try Scratch()
        _ = try await Self.sockctl([
            "loadtest", "127.0.0.1:\(closed.port)", "-c", "2", "--duration", "300ms", "--framing", "line", "--io", io,
            "--proxy", "socks5://127.0.0.1:\(socks.port)", "--json", scratch.path("report.json"),
        ])
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("report.json")))) as? [String: Any]
        #expect(((report?["errors"] as? [String: Any])?["proxy"] as? Int ?? 0) > 0, "\(report?["errors"] ?? "")")
        let example = (report?["error_examples"] as? [String: Any])?["proxy"] as? String ?? ""
        #expect(example.hasSuffix("SOCKS5 proxy 127.0.0.1:\(socks.port) refused the connection to 127.0.0.1:\(closed.port): reply 0x05 (connection refused)"), "\(example)")
        await socks.stop()
    }

    /// A proxy that cuts its reply short, met by loadtest's event loops and by its threads'
    /// blocking step alike: a `proxy` error whose example says where the reply stopped.
    @Test(arguments: ["events", "threads"])
    func loadtestCountsATruncatedReply(io: String) async throws {
        let (server, port) = try await ScriptedSOCKSServer.start("half-reply")
        defer { server.signal(SIGKILL) }
        let scratch = try Scratch()
        _ = try await Self.sockctl([
            "loadtest", "127.0.0.1:9", "-c", "1", "--duration", "300ms", "--framing", "line", "--io", io,
            "--proxy", "socks5h://127.0.0.1:\(port)", "--json", scratch.path("report.json"),
        ])
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("report.json")))) as? [String: Any]
        #expect(((report?["errors"] as? [String: Any])?["proxy"] as? Int ?? 0) > 0, "\(report?["errors"] ?? "")")
        let example = (report?["error_examples"] as? [String: Any])?["proxy"] as? String ?? ""
        #expect(example.hasSuffix("SOCKS5 proxy 127.0.0.1:\(port) closed the connection in the middle of its SOCKS5 reply (5 of at least 10 bytes)"), "\(example)")
    }

    // MARK: The relay's upstream, the environment

    @Test func theRelaysUpstreamConnectionsGoThroughTheUpstreamProxy() async throws {
        let (echo, echoPort) = try await Self.echoServer()
        defer { echo.signal(SIGKILL) }
        let socks = try await ProxyPeer.microsocks(credentials: ("alice", "s3cret"))
        let relay = try await Child(
            try sockctlPath(), ["proxy", "127.0.0.1:0", "127.0.0.1:\(echoPort)", "-v", "--upstream-proxy", "socks5h://alice:s3cret@127.0.0.1:\(socks.port)"],
            name: "relay")
        defer { relay.signal(SIGKILL) }
        let port = try await relay.listeningPort()
        let result = try await Self.sockctl(["send", "127.0.0.1:\(port)", "relayed", "--framing", "line"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "relayed\n")
        // The relay's upstream connection was to the proxy, not to the echo server.
        try await relay.waitForStderr("upstream connected to 127.0.0.1:\(socks.port)")
        await socks.stop()
    }

    /// ALL_PROXY is read only with `--proxy env`: without it, a proxy variable pointing nowhere
    /// changes nothing; with it, the variable's proxy is used, and NO_PROXY sends a destination
    /// directly.
    @Test func theEnvironmentIsReadOnlyWhenAsked() async throws {
        let (echo, echoPort) = try await Self.echoServer()
        defer { echo.signal(SIGKILL) }
        let closed = try ClosedPort()
        let socks = try await ProxyPeer.microsocks()
        let target = "127.0.0.1:\(echoPort)"
        let nowhere = ["ALL_PROXY": "socks5://127.0.0.1:\(closed.port)", "all_proxy": "socks5://127.0.0.1:\(closed.port)"]

        let unasked = try await Self.sockctl(["send", target, "direct", "--framing", "line", "-v"], environment: nowhere)
        #expect(unasked.status == 0 && unasked.stdout == "direct\n", "\(unasked.stderr)")
        #expect(!unasked.stderr.contains("proxy"), "\(unasked.stderr)")

        let asked = try await Self.sockctl(
            ["send", target, "proxied", "--framing", "line", "-v", "--proxy", "env"],
            environment: ["ALL_PROXY": "socks5h://127.0.0.1:\(socks.port)", "all_proxy": ""])
        #expect(asked.status == 0 && asked.stdout == "proxied\n", "\(asked.stderr)")
        #expect(asked.stderr.contains("proxy from the environment (--proxy env, read ALL_PROXY): ALL_PROXY socks5h://127.0.0.1:\(socks.port)"), "\(asked.stderr)")
        #expect(asked.stderr.contains("opened the tunnel to \(target)"), "\(asked.stderr)")

        var bypassed = nowhere
        bypassed["NO_PROXY"] = "127.0.0.0/8"
        let direct = try await Self.sockctl(["send", target, "bypassed", "--framing", "line", "--proxy", "env"], environment: bypassed)
        #expect(direct.status == 0 && direct.stdout == "bypassed\n", "\(direct.stderr)")
        await socks.stop()
    }
}
