import Foundation
import TestSupport
import Testing

import Glibc

/// The PROXY protocol against haproxy both ways: `listen --accept-proxy-protocol` behind
/// haproxy's `send-proxy` / `send-proxy-v2` logs and records the client's own address, and
/// `proxy --send-proxy-protocol` in front of haproxy's `accept-proxy` gives it the client's
/// address (over TLS too: the header goes before the handshake). A client without a header is
/// refused with the reason.
@Suite("PROXY protocol with haproxy", .hangGuard)
struct ProxyProtocolTests {
    static let defaults = """
        defaults
          timeout connect 5s
          timeout client 60s
          timeout server 60s

        """

    /// ncat from `source` (its own port, which the test picked) through `port`: sends `text`,
    /// ends its output and reads until the server closes. Returns what came back and the source port.
    func ncat(from source: String, to port: Int, _ text: String, scratch: Scratch) async throws -> (reply: String, sourcePort: Int) {
        let input = scratch.path("input-\(UUID().uuidString.prefix(6))")
        try Data(text.utf8).write(to: URL(fileURLWithPath: input))
        for _ in 0..<5 {
            guard let sourcePort = PortBlock.suggestedPort() else { continue }
            let client = try await Child(try tool("ncat"), ["-s", source, "-p", "\(sourcePort)", "127.0.0.1", "\(port)"],
                                         stdin: .file(input), name: "ncat")
            let status = try await client.wait()
            if status == 0 { return (client.stdoutText, sourcePort) }
            guard client.stderr.contains("Address already in use") else { throw HarnessError("ncat: \(client.stderr)") }
        }
        throw HarnessError("ncat found no free source port")
    }

    @Test(arguments: ["send-proxy", "send-proxy-v2"])
    func listenLogsAndRecordsTheClientAddressHAProxyCarries(send: String) async throws {
        let scratch = try Scratch()
        let listen = try await Child(
            try sockctlPath(),
            ["listen", "127.0.0.1:0", "--accept-proxy-protocol", "--echo", "-k", "--record", scratch.path("clients.pcap")], name: "listen")
        let listenPort = try await listen.listeningPort()
        let haproxy = try await HAProxy.start(ports: 1) { ports in
            Self.defaults + """
                frontend front
                  mode tcp
                  bind 127.0.0.1:\(ports[0])
                  default_backend back
                backend back
                  mode tcp
                  server s 127.0.0.1:\(listenPort) \(send)

                """
        }
        let (reply, sourcePort) = try await ncat(from: "127.0.0.2", to: haproxy.ports[0], "hello\n", scratch: scratch)
        #expect(reply == "hello\n")
        try await listen.waitForStderr("disconnected after")
        // The address haproxy's connection came from is 127.0.0.1; the carried one is the client's.
        #expect(listen.stderr.contains("client 1 connected from 127.0.0.2:\(sourcePort)\n"), "\(listen.stderr)")
        listen.signal(SIGINT)
        #expect(try await listen.wait() == 0, "\(listen.stderr)")
        try await haproxy.stop()
        let printed = try await run(try sockctlPath(), ["capture", "-r", scratch.path("clients.pcap"), "-n"])
        #expect(String(decoding: printed.stdout, as: UTF8.self).contains("IP 127.0.0.2.\(sourcePort) > 127.0.0.1.\(haproxy.ports[0]): Flags [S]"),
                "\(String(decoding: printed.stdout, as: UTF8.self))")
    }

    @Test(arguments: ["v1", "v2"])
    func proxyGivesHAProxyTheClientsAddress(version: String) async throws {
        let certificates = try await TestCertificates.shared.directory()
        let scratch = try Scratch()
        // haproxy wants the certificate and its key in one file.
        let pem = try Data(contentsOf: URL(fileURLWithPath: "\(certificates)/server.pem")) + Data(contentsOf: URL(fileURLWithPath: "\(certificates)/server.key"))
        try pem.write(to: URL(fileURLWithPath: scratch.path("haproxy.pem")))
        let haproxy = try await HAProxy.start(ports: 2) { ports in
            Self.defaults + """
                frontend plain
                  mode http
                  bind 127.0.0.1:\(ports[0]) accept-proxy
                  http-request return status 200 content-type text/plain lf-string "%[src]:%[src_port]\\n"
                frontend secured
                  mode http
                  bind 127.0.0.1:\(ports[1]) accept-proxy ssl crt \(scratch.path("haproxy.pem"))
                  http-request return status 200 content-type text/plain lf-string "%[src]:%[src_port] %[ssl_fc]\\n"

                """
        }
        let plain = try await RunningProxy(to: "127.0.0.1:\(haproxy.ports[0])", ["--send-proxy-protocol", version])
        let secured = try await RunningProxy(to: "tls://127.0.0.1:\(haproxy.ports[1])", ["--send-proxy-protocol", version, "--upstream-insecure"], name: "tls-proxy")
        // haproxy's answer (`%[ssl_fc]` is 1 on its TLS frontend), then curl's own port: the same address.
        for (proxy, tls) in [(plain, ""), (secured, " 1")] {
            let result = try await run(try tool("curl"), ["-sS", "--interface", "127.0.0.5", "-w", "%{local_port}", "http://127.0.0.1:\(proxy.port)/"])
            let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(lines.count == 2 && lines[0] == "127.0.0.5:\(lines[1])\(tls)", "\(lines)")
            #expect(try await proxy.interrupt() == 0, "\(proxy.child.stderr)")
        }
        try await haproxy.stop()
    }

    @Test func aClientWithoutAValidHeaderIsRefusedWithTheReason() async throws {
        let scratch = try Scratch()
        let listen = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--accept-proxy-protocol", "--echo", "-k"], name: "listen")
        let port = try await listen.listeningPort()
        let (first, _) = try await ncat(from: "127.0.0.1", to: port, "GET / HTTP/1.1\r\n\r\n", scratch: scratch)
        #expect(first.isEmpty)
        try await listen.waitForStderr("refused")
        let (second, _) = try await ncat(from: "127.0.0.1", to: port, "PROXY TCP4 192.0.2 198.51.100.1 40001 443\r\nhello\n", scratch: scratch)
        #expect(second.isEmpty)
        try await listen.waitForStderr("refused", count: 2)
        listen.signal(SIGINT)
        #expect(try await listen.wait() == 0)
        let refusals = listen.stderr.split(separator: "\n").filter { $0.hasPrefix("sockctl listen: refused") }.map { $0.replacing(/127\.0\.0\.1:\d+/, with: "ADDR") }
        #expect(refusals == [
            "sockctl listen: refused ADDR: malformed PROXY protocol header: the connection does not begin with one",
            "sockctl listen: refused ADDR: malformed PROXY protocol header: v1 line with source address '192.0.2'",
        ], "\(listen.stderr)")
        #expect(!listen.stderr.contains("connected from"), "\(listen.stderr)")
    }

    @Test func acceptingOrSendingItNeedsAStreamEndpoint() async throws {
        let listen = try await run(try sockctlPath(), ["listen", "udp://127.0.0.1:0", "--accept-proxy-protocol"])
        #expect(listen.status == 2)
        #expect(listen.stderr.contains("--accept-proxy-protocol needs a stream endpoint"), "\(listen.stderr)")
        let proxy = try await run(try sockctlPath(), ["proxy", "127.0.0.1:0", "udp://127.0.0.1:9", "--send-proxy-protocol", "v2"])
        #expect(proxy.status == 2)
        #expect(proxy.stderr.contains("--send-proxy-protocol needs a stream upstream"), "\(proxy.stderr)")
        let version = try await run(try sockctlPath(), ["proxy", "127.0.0.1:0", "127.0.0.1:9", "--send-proxy-protocol", "v3"])
        #expect(version.status == 2)
        #expect(version.stderr.contains("v1 or v2"), "\(version.stderr)")
    }
}
