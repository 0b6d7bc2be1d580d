import Foundation
import TestSupport
import Testing

import Glibc

/// `sockctl proxy socks5://…` and `proxy http-connect://…` with real clients — curl
/// (`--socks5`, `--socks5-hostname`, `-x http://` with `-p`) and `ncat --proxy` — fetching from
/// nginx and exchanging 16 MiB each way with socat byte for byte; the destination rules and
/// failed destinations refused with the protocol's own reply as the client sees it; `--record`
/// of a tunnel; and every bad request answered by the protocol's refusal or a close, in one
/// log line, the proxy serving on.
@Suite("sockctl proxy as a SOCKS5 and HTTP CONNECT proxy", .hangGuard)
struct ProxyServerTests {
    /// `sockctl proxy LISTEN ARGS` and the port it listens on.
    static func proxy(_ listen: String, _ arguments: [String] = []) async throws -> (Child, Int) {
        let child = try await Child(try sockctlPath(), ["proxy", listen] + arguments, name: "proxy")
        return (child, try await child.listeningPort())
    }

    /// Runs curl to its end.
    static func curl(_ arguments: [String]) async throws -> (status: Int32, stdout: Data, stderr: String) {
        try await run(try tool("curl"), ["-sS", "--max-time", "120"] + arguments)
    }

    /// Sends `bytes` to 127.0.0.1:`port` from a Python client, ends its output unless `keepOpen`,
    /// and returns everything that came back until the server closed, as hex.
    static func raw(_ port: Int, _ bytes: [UInt8], keepOpen: Bool = false) async throws -> String {
        let script = """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", \(port)))
            s.sendall(bytes.fromhex(sys.argv[1]))
            if sys.argv[2] == "close": s.shutdown(socket.SHUT_WR)
            out = b""
            while True:
                try:
                    chunk = s.recv(65536)
                except ConnectionResetError:
                    break
                if not chunk: break
                out += chunk
            print(out.hex())
            """
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let result = try await run(try tool("python3"), ["-c", script, hex, keepOpen ? "open" : "close"])
        guard result.status == 0 else { throw HarnessError("python client: \(result.stderr)") }
        return String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Through the proxy

    /// curl fetches 16 MiB from nginx through both modes — the name resolved by sockctl
    /// (`--socks5-hostname`, `-x http://` with `-p`) and by curl (`--socks5`) — byte for byte.
    @Test func curlFetchesSixteenMebibytesThroughBothModes() async throws {
        var site = Nginx.Site()
        let scratch = try Scratch()
        let body = Array(try await randomFile(scratch.path("big"), bytes: 16 << 20))
        site.file("/big", body)
        let nginx = try await Nginx.start(site)
        let (socks, socksPort) = try await Self.proxy("socks5://127.0.0.1:0")
        let (http, httpPort) = try await Self.proxy("http-connect://127.0.0.1:0")
        defer { socks.signal(SIGKILL); http.signal(SIGKILL) }
        let ways = [
            ["--socks5-hostname", "127.0.0.1:\(socksPort)", "http://localhost:\(nginx.port)/big"],
            ["--socks5", "127.0.0.1:\(socksPort)", nginx.url("/big")],
            ["-p", "-x", "http://127.0.0.1:\(httpPort)", "http://localhost:\(nginx.port)/big"],
        ]
        for way in ways {
            let result = try await Self.curl(way)
            #expect(result.status == 0, "\(way): \(result.stderr)")
            #expect(result.stdout == Data(body), "\(way): \(result.stdout.count) bytes")
        }
        try await socks.waitForStderr("disconnected after", count: 2)
        try await http.waitForStderr("disconnected after")
        #expect(try await nginx.stop() == 0)
    }

    /// ncat `--proxy-type socks5` and `--proxy-type http` send 16 MiB and get 16 MiB back from
    /// socat through sockctl, byte for byte, the client's end (a FIN) passed on.
    @Test(arguments: ["socks5", "http"])
    func ncatExchangesSixteenMebibytesEachWay(type: String) async throws {
        let size = 16 << 20
        let scratch = try Scratch()
        let exchange = try await SocatExchange(size: size, in: scratch)
        let server = exchange.server
        defer { server.signal(SIGKILL) }
        let port = exchange.port
        let kind = type == "socks5" ? "socks5" : "http-connect"
        let (proxy, proxyPort) = try await Self.proxy("\(kind)://127.0.0.1:0", ["--metrics-listen", ":0"])
        defer { proxy.signal(SIGKILL) }
        let client = try await Child(
            try tool("ncat"), ["--proxy", "127.0.0.1:\(proxyPort)", "--proxy-type", type, "127.0.0.1", "\(port)"],
            stdin: .file(exchange.requestPath), name: "ncat")
        #expect(try await client.wait() == 0, "\(client.stderr)")
        #expect(try await server.wait() == 0, "\(server.stderr)")
        let wrong = try exchange.check(client.stdout)
        #expect(wrong == nil, "\(wrong ?? "")")
        try await proxy.waitForStderr("disconnected after")
        #expect(proxy.stderr.contains("(\(size) bytes up, \(size) bytes down)"), "\(proxy.stderr)")
        // The metrics count the tunnel's bytes, labelled by where destinations come from.
        let metricsLine = try await proxy.waitForStderr("metrics on ")
        guard let url = metricsLine.firstMatch(of: #/metrics on (http://\S+)/#).map({ String($0.1) }) else { throw HarnessError("no metrics URL: \(metricsLine)") }
        let scrape = String(decoding: try await Self.curl([url]).stdout, as: UTF8.self)
        #expect(scrape.contains("sockctl_proxy_forwarded_bytes_total{listen=\"127.0.0.1:0\",upstream=\"\(kind) request\",direction=\"up\"} \(size)"), "\(scrape)")
    }

    /// `--proxy-user`: curl with the right user and password gets through both modes; a wrong
    /// password is SOCKS5's RFC 1929 failure and HTTP's 407; the password does not show in `ps`.
    @Test func aRequiredUserAndPasswordIsAskedFor() async throws {
        var site = Nginx.Site()
        site.file("/small", Array("hello through a password\n".utf8))
        let nginx = try await Nginx.start(site)
        let (socks, socksPort) = try await Self.proxy("socks5://127.0.0.1:0", ["--proxy-user", "alice:s3cret"])
        let (http, httpPort) = try await Self.proxy("http-connect://127.0.0.1:0", ["--proxy-user", "alice:s3cret"])
        defer { socks.signal(SIGKILL); http.signal(SIGKILL) }
        // `ps` shows the user, not the password (as curl's -U): the argument is overwritten in
        // place once parsed, here as in a client's `--proxy URL`.
        for child in [socks, http] {
            let shown = try String(contentsOfFile: "/proc/\(child.pid)/cmdline", encoding: .utf8).replacingOccurrences(of: "\0", with: " ")
            #expect(shown.contains(" --proxy-user alice:****** ") && !shown.contains("s3cret"), "\(shown)")
        }
        let client = try await Child(
            try sockctlPath(), ["connect", "-v", "--proxy", "socks5://alice:s3cret@127.0.0.1:\(socksPort)", "127.0.0.1:\(nginx.port)"],
            stdin: .pipe, name: "connect")
        try await client.waitForStderr("connected")
        let shown = try String(contentsOfFile: "/proc/\(client.pid)/cmdline", encoding: .utf8).replacingOccurrences(of: "\0", with: " ")
        #expect(shown.contains(" socks5://alice:******@127.0.0.1:") && !shown.contains("s3cret"), "\(shown)")
        client.signal(SIGKILL)
        _ = try await client.wait()
        for proxy in ["socks5h://alice:s3cret@127.0.0.1:\(socksPort)", "http://alice:s3cret@127.0.0.1:\(httpPort)"] {
            let result = try await Self.curl(["-p", "-x", proxy, nginx.url("/small")])
            #expect(result.status == 0 && String(decoding: result.stdout, as: UTF8.self) == "hello through a password\n", "\(proxy): \(result.stderr)")
        }
        let wrongSOCKS = try await Self.curl(["-x", "socks5h://alice:wrong@127.0.0.1:\(socksPort)", nginx.url("/small")])
        #expect(wrongSOCKS.status == 97, "\(wrongSOCKS.stderr)")
        let wrongHTTP = try await Self.curl(["-p", "-x", "http://alice:wrong@127.0.0.1:\(httpPort)", nginx.url("/small")])
        #expect(wrongHTTP.stderr.contains("response 407"), "\(wrongHTTP.stderr)")
        try await socks.waitForStderr("password refused")
        try await http.waitForStderr("407 Proxy Authentication Required")
        #expect(try await nginx.stop() == 0)
    }

    // MARK: Refused destinations

    /// `--deny-destination` and `--allow-destination` as curl sees them — SOCKS5 reply 0x02 (a
    /// name refused after it resolved into a denied network too), HTTP 403 — and a destination
    /// nothing listens on: reply 0x05 and 502. One log line each.
    @Test func refusedDestinationsGetTheProtocolsReply() async throws {
        var site = Nginx.Site()
        site.file("/small", Array("allowed\n".utf8))
        let nginx = try await Nginx.start(site)
        let closed = try ClosedPort()
        let (socks, socksPort) = try await Self.proxy("socks5://127.0.0.1:0", ["--deny-destination", "127.0.0.0/8"])
        let (http, httpPort) = try await Self.proxy("http-connect://127.0.0.1:0", ["--allow-destination", "127.0.0.1:\(nginx.port)"])
        defer { socks.signal(SIGKILL); http.signal(SIGKILL) }

        let byName = try await Self.curl(["--socks5-hostname", "127.0.0.1:\(socksPort)", "http://localhost:\(nginx.port)/small"])
        #expect(byName.status == 97 && byName.stderr.contains("(2)"), "\(byName.stderr)")
        let byAddress = try await Self.curl(["--socks5", "127.0.0.1:\(socksPort)", nginx.url("/small")])
        #expect(byAddress.status == 97 && byAddress.stderr.contains("(2)"), "\(byAddress.stderr)")
        try await socks.waitForStderr("disconnected after", count: 2)
        let lines = socks.stderr.split(separator: "\n").filter { $0.contains("deny-destination") }
        #expect(lines.count == 2, "\(socks.stderr)")
        #expect(lines.first?.hasSuffix("SOCKS5 request for localhost:\(nginx.port) (127.0.0.1:\(nginx.port)) matches --deny-destination 127.0.0.0/8: reply 0x02 (connection not allowed by ruleset)") == true, "\(socks.stderr)")

        let allowed = try await Self.curl(["-p", "-x", "http://127.0.0.1:\(httpPort)", nginx.url("/small")])
        #expect(allowed.status == 0 && String(decoding: allowed.stdout, as: UTF8.self) == "allowed\n", "\(allowed.stderr)")
        let otherPort = try await Self.curl(["-p", "-x", "http://127.0.0.1:\(httpPort)", "http://127.0.0.1:\(closed.port)/"])
        #expect(otherPort.stderr.contains("response 403"), "\(otherPort.stderr)")
        try await http.waitForStderr("403 Forbidden")
        #expect(http.stderr.contains("HTTP CONNECT request for 127.0.0.1:\(closed.port) not in --allow-destination: 403 Forbidden"), "\(http.stderr)")

        let (open, openPort) = try await Self.proxy("socks5://127.0.0.1:0")
        let (openHTTP, openHTTPPort) = try await Self.proxy("http-connect://127.0.0.1:0")
        defer { open.signal(SIGKILL); openHTTP.signal(SIGKILL) }
        let refused = try await Self.curl(["--socks5", "127.0.0.1:\(openPort)", "http://127.0.0.1:\(closed.port)/"])
        #expect(refused.status == 97 && refused.stderr.contains("(5)"), "\(refused.stderr)")
        let badGateway = try await Self.curl(["-p", "-x", "http://127.0.0.1:\(openHTTPPort)", "http://127.0.0.1:\(closed.port)/"])
        #expect(badGateway.stderr.contains("response 502"), "\(badGateway.stderr)")
        #expect(try await nginx.stop() == 0)
    }

    // MARK: Recording

    /// `--record` of a SOCKS5 tunnel holds the relayed bytes — the request and the answer — as
    /// the connection from sockctl to the destination, and none of the handshake.
    @Test func recordOfASOCKSSessionHoldsTheRelayedBytes() async throws {
        var site = Nginx.Site()
        site.file("/recorded", Array("the recorded answer\n".utf8))
        let nginx = try await Nginx.start(site)
        let scratch = try Scratch()
        let (socks, socksPort) = try await Self.proxy("socks5://127.0.0.1:0", ["--record", scratch.path("s.pcap")])
        let result = try await Self.curl(["--socks5-hostname", "127.0.0.1:\(socksPort)", "http://localhost:\(nginx.port)/recorded"])
        #expect(result.status == 0, "\(result.stderr)")
        try await socks.waitForStderr("disconnected after")
        socks.signal(SIGINT)
        #expect(try await socks.wait() == 0, "\(socks.stderr)")
        let dump = try await run(try tool("tcpdump"), ["-nn", "-r", scratch.path("s.pcap"), "-A"])
        let text = String(decoding: dump.stdout, as: UTF8.self)
        #expect(text.contains("GET /recorded HTTP/1.1") && text.contains("the recorded answer"), "\(text)")
        #expect(text.contains("127.0.0.1.\(nginx.port):"), "the destination's address: \(text)")
        #expect(!text.contains("127.0.0.1.\(socksPort)"), "the client's side of the handshake is not recorded: \(text)")
        #expect(try await nginx.stop() == 0)
    }

    // MARK: Bad input

    /// Each bad request: SOCKS5's refusal (07 for BIND and UDP ASSOCIATE, 08 for an unknown
    /// address type), a close for a wrong version, a truncated greeting and one that never ends;
    /// HTTP's 405, 400, and 431 for an oversized head (read whole by the client, not lost to a
    /// reset over the bytes it sent behind it). One log line each, and the proxy still serves.
    @Test func badRequestsGetARefusalOrACloseAndOneLine() async throws {
        let (socks, socksPort) = try await Self.proxy("socks5://127.0.0.1:0", ["--handshake-timeout", "300ms"])
        let (http, httpPort) = try await Self.proxy("http-connect://127.0.0.1:0")
        defer { socks.signal(SIGKILL); http.signal(SIGKILL) }
        let request: (UInt8, UInt8) -> [UInt8] = { command, type in [5, 1, 0, 5, command, 0, type, 127, 0, 0, 1, 0, 80] }
        #expect(try await Self.raw(socksPort, request(2, 1)) == "050005070001000000000000")
        #expect(try await Self.raw(socksPort, request(3, 1)) == "050005070001000000000000")
        #expect(try await Self.raw(socksPort, request(1, 9)) == "050005080001000000000000")
        #expect(try await Self.raw(socksPort, [4, 1, 0, 80, 127, 0, 0, 1, 0]) == "")
        #expect(try await Self.raw(socksPort, [5]) == "")
        #expect(try await Self.raw(socksPort, [5, 1], keepOpen: true) == "")
        #expect(try await Self.raw(socksPort, [5, 0]) == "")
        try await socks.waitForStderr("disconnected after", count: 7)
        for expected in [
            "SOCKS5 request: BIND to 127.0.0.1:80 not supported (only CONNECT): reply 0x07 (command not supported)",
            "SOCKS5 request: UDP ASSOCIATE to 127.0.0.1:80 not supported (only CONNECT): reply 0x07 (command not supported)",
            "SOCKS5 request: address type 0x09 not supported: reply 0x08 (address type not supported)",
            "SOCKS5 greeting: version 0x04, not 0x05",
            "client closed before its whole SOCKS5 greeting",
            "no whole SOCKS5 greeting within the handshake timeout",
            "SOCKS5 greeting: no authentication method offered",
        ] {
            #expect(socks.stderr.split(separator: "\n").filter { $0.hasSuffix(expected) }.count == 1, "\(expected): \(socks.stderr)")
        }

        func askHTTP(_ text: String) async throws -> String {
            String(decoding: try await Self.raw(httpPort, Array(text.utf8)).hexBytes, as: UTF8.self)
        }
        #expect(try await askHTTP("GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n").hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"))
        #expect(try await askHTTP("CONNECT nowhere HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(try await askHTTP("CONNECT 127.0.0.1:99999 HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        let oversized = try await askHTTP("CONNECT 127.0.0.1:80 HTTP/1.1\r\nX: " + String(repeating: "a", count: 50_000) + "\r\n\r\n")
        #expect(oversized.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(oversized)")
        try await http.waitForStderr("disconnected after", count: 4)
        #expect(http.stderr.contains("HTTP CONNECT request: method GET, only CONNECT is served: 405 Method Not Allowed"), "\(http.stderr)")
        #expect(http.stderr.contains("HTTP CONNECT request: 'nowhere' is not HOST:PORT: 400 Bad Request"), "\(http.stderr)")
        #expect(http.stderr.contains("HTTP CONNECT request: a head over 16384 bytes: 431 Request Header Fields Too Large"), "\(http.stderr)")

        // Still serving: a good request after all of them.
        var site = Nginx.Site()
        site.file("/after", Array("still here\n".utf8))
        let nginx = try await Nginx.start(site)
        let after = try await Self.curl(["--socks5", "127.0.0.1:\(socksPort)", nginx.url("/after")])
        #expect(String(decoding: after.stdout, as: UTF8.self) == "still here\n", "\(after.stderr)")
        let afterHTTP = try await Self.curl(["-p", "-x", "http://127.0.0.1:\(httpPort)", nginx.url("/after")])
        #expect(String(decoding: afterHTTP.stdout, as: UTF8.self) == "still here\n", "\(afterHTTP.stderr)")
        #expect(try await nginx.stop() == 0)
    }

    /// An UPSTREAM with a proxy server, destination rules without one: usage errors, exit 2.
    @Test func proxyServerArgumentsAreChecked() async throws {
        let withUpstream = try await run(try sockctlPath(), ["proxy", "socks5://127.0.0.1:0", "127.0.0.1:80"])
        #expect(withUpstream.status == 2 && withUpstream.stderr.contains("takes each client's destination from its request: no UPSTREAM"), "\(withUpstream.stderr)")
        let rules = try await run(try sockctlPath(), ["proxy", "127.0.0.1:0", "127.0.0.1:80", "--deny-destination", "10.0.0.0/8"])
        #expect(rules.status == 2 && rules.stderr.contains("need a socks5:// or http-connect:// LISTEN"), "\(rules.stderr)")
        let missing = try await run(try sockctlPath(), ["proxy", "127.0.0.1:0"])
        #expect(missing.status == 2 && missing.stderr == "sockctl proxy: error: missing <upstream> (expected an endpoint such as 127.0.0.1:7000), or a socks5:// or http-connect:// <listen> whose clients name their destination\n", "\(missing.stderr)")
        let pattern = try await run(try sockctlPath(), ["proxy", "socks5://127.0.0.1:0", "--allow-destination", "exa mple"])
        #expect(pattern.status == 2, "\(pattern.stderr)")
    }
}

private extension String {
    /// The bytes of a hex string (`48 54` → "HT").
    var hexBytes: [UInt8] {
        var bytes: [UInt8] = []
        var index = startIndex
        while let next = self.index(index, offsetBy: 2, limitedBy: endIndex), index != endIndex {
            if let byte = UInt8(self[index..<next], radix: 16) { bytes.append(byte) }
            index = next
        }
        return bytes
    }
}
