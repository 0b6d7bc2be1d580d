import Foundation
import TestSupport
import Testing

import Glibc

/// `proxy` terminating TLS towards its clients and originating it towards the upstream, with
/// certificates made at test time by `scripts/make-test-certs.sh` and `openssl s_server` as the
/// real TLS server.
@Suite("Proxy TLS", .hangGuard)
struct ProxyTLSTests {
    func certs() async throws -> String { try await TestCertificates.shared.directory() }

    /// A child started with `arguments`, and the port it printed once bound.
    func start(_ arguments: [String], name: String) async throws -> (Child, Int) {
        let child = try await Child(try sockctlPath(), arguments, stdin: .pipe, name: name)
        return (child, try await child.listeningPort())
    }

    @Test func tlsClientsAreTerminatedAndRelayedToAPlainServer() async throws {
        let dir = try await certs()
        let (echo, upstream) = try await start(["listen", "127.0.0.1:0", "--echo", "-k"], name: "echo")
        defer { echo.signal(SIGKILL) }
        let (proxy, port) = try await start(
            ["proxy", "tls://127.0.0.1:0", "127.0.0.1:\(upstream)", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key"], name: "proxy")
        defer { proxy.signal(SIGKILL) }
        let result = try await run(try sockctlPath(), ["send", "tls://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem", "--framing", "line", "over tls"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "over tls\n")
        try await proxy.waitForStderr("(9 bytes up, 9 bytes down)")
    }

    @Test func aTLSUpstreamIsVerifiedWithTheGivenCA() async throws {
        let dir = try await certs()
        let (server, upstream) = try await openSSLServer("server")
        defer { server.signal(SIGKILL) }
        let (proxy, port) = try await start(
            ["proxy", "127.0.0.1:0", "tls://127.0.0.1:\(upstream)", "--upstream-cafile", "\(dir)/ca.pem", "-v"], name: "proxy")
        defer { proxy.signal(SIGKILL) }
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--responses", "0", "plain in, TLS out"])
        #expect(result.status == 0, "\(result.stderr)")
        // The real TLS server decrypted what the plain client sent through the proxy.
        try await server.waitForStdout("plain in, TLS out")
        try await proxy.waitForStderr("upstream connected to 127.0.0.1:\(upstream)")
    }

    @Test func anUnverifiedUpstreamClosesTheClientAndSaysWhy() async throws {
        let (server, upstream) = try await openSSLServer("selfsigned")
        defer { server.signal(SIGKILL) }
        let (proxy, port) = try await start(["proxy", "127.0.0.1:0", "tls://127.0.0.1:\(upstream)"], name: "proxy")
        defer { proxy.signal(SIGKILL) }
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "line", "hello"])
        #expect(result.status == 1, "the client's connection is closed without an answer: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let log = try await proxy.waitForStderr("disconnected after")
        #expect(log.contains("self-signed certificate (subject CN=localhost)"), "\(log)")
    }

    @Test func upstreamInsecureRelaysToASelfSignedServerAndTheSummaryCountsIt() async throws {
        let (server, upstream) = try await openSSLServer("selfsigned")
        defer { server.signal(SIGKILL) }
        let (proxy, port) = try await start(["proxy", "127.0.0.1:0", "tls://127.0.0.1:\(upstream)", "--upstream-insecure"], name: "proxy")
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--responses", "0", "trusted anyway"])
        #expect(result.status == 0, "\(result.stderr)")
        try await server.waitForStdout("trusted anyway")
        try await proxy.waitForStderr("disconnected after")
        proxy.signal(SIGINT)
        #expect(try await proxy.wait() == 0)
        #expect(proxy.stderr.contains("summary: 1 client, 14 bytes up, 0 bytes down"), "\(proxy.stderr)")
    }
}
