import Foundation
import TestSupport
import Testing

import Glibc

/// `proxy` between endpoint kinds of different shapes: with `--framing line`, a line on a byte
/// stream is one WebSocket message or one datagram on the other side, and back. Real `sockctl
/// listen` servers of each kind answer; the client is `sockctl send`.
@Suite("Proxy bridges", .hangGuard)
struct ProxyBridgeTests {
    /// A child started with `arguments` and the port it printed once bound.
    func start(_ arguments: [String], name: String) async throws -> (Child, Int) {
        let child = try await Child(try sockctlPath(), arguments, stdin: .pipe, name: name)
        return (child, try await child.listeningPort())
    }

    func send(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try await run(try sockctlPath(), ["send"] + arguments)
        return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
    }

    @Test func linesBecomeMessagesOfAWebSocketUpstreamAndBack() async throws {
        let (echo, upstream) = try await start(["listen", "ws://127.0.0.1:0/echo", "--echo", "-k"], name: "ws echo")
        defer { echo.signal(SIGKILL) }
        let (proxy, port) = try await start(["proxy", "127.0.0.1:0", "ws://127.0.0.1:\(upstream)/echo", "--framing", "line"], name: "proxy")
        defer { proxy.signal(SIGKILL) }
        let result = try await send(["127.0.0.1:\(port)", "--framing", "line", "--responses", "2", "first message", #"{"second":2}"#])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "first message\n{\"second\":2}\n")
        // Two messages of 13 and 12 bytes went up; the lines were 14 and 13 bytes.
        try await proxy.waitForStderr("(27 bytes up, 25 bytes down)")
    }

    @Test func aSecureWebSocketListenerIsRelayedToALineServer() async throws {
        let dir = try await TestCertificates.shared.directory()
        let (echo, upstream) = try await start(["listen", "127.0.0.1:0", "--echo", "-k", "--framing", "line"], name: "line echo")
        defer { echo.signal(SIGKILL) }
        let (proxy, port) = try await start(
            ["proxy", "wss://127.0.0.1:0/", "127.0.0.1:\(upstream)", "--framing", "line", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key"],
            name: "proxy")
        defer { proxy.signal(SIGKILL) }
        let result = try await send(["wss://127.0.0.1:\(port)/", "--cafile", "\(dir)/ca.pem", "--responses", "2", "over", "wss"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "over\nwss\n")
    }

    @Test func datagramsBecomeLinesOfAStreamUpstreamAndBack() async throws {
        let (echo, upstream) = try await start(["listen", "127.0.0.1:0", "--echo", "-k", "--framing", "line"], name: "line echo")
        defer { echo.signal(SIGKILL) }
        let (proxy, port) = try await start(["proxy", "udp://127.0.0.1:0", "127.0.0.1:\(upstream)", "--framing", "line"], name: "proxy")
        defer { proxy.signal(SIGKILL) }
        let result = try await send(["udp://127.0.0.1:\(port)", "--responses", "2", "ping", "pong"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "ping\npong\n")
        try await proxy.waitForStderr("client 1 connected from 127.0.0.1:")
    }

    @Test func linesBecomeDatagramsOfAUDPUpstreamAndBack() async throws {
        let (echo, upstream) = try await start(["listen", "udp://127.0.0.1:0", "--echo", "-v"], name: "udp echo")
        defer { echo.signal(SIGKILL) }
        let (proxy, port) = try await start(["proxy", "127.0.0.1:0", "udp://127.0.0.1:\(upstream)", "--framing", "line"], name: "proxy")
        defer { proxy.signal(SIGKILL) }
        let result = try await send(["127.0.0.1:\(port)", "--framing", "line", "--responses", "2", "one datagram", "another"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "one datagram\nanother\n")
        // Each datagram the UDP echo server got is one message: its log names the sender twice.
        try await echo.waitForStderr("datagram from 127.0.0.1:", count: 2)
    }
}
