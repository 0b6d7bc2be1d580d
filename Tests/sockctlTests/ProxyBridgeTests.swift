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

    /// WebSocket to WebSocket, each message goes on as the kind it came as: a binary message
    /// that is not UTF-8 stays binary (as text, the echo server would fail the connection with
    /// 1007), a text message stays text, empty ones too. The client is Python websockets, which
    /// gives binary messages as bytes and text as str.
    @Test func aWebSocketRelayKeepsEachMessagesKind() async throws {
        let (echo, upstream) = try await start(["listen", "ws://127.0.0.1:0/echo", "--echo", "-k"], name: "ws echo")
        defer { echo.signal(SIGKILL) }
        let (proxy, port) = try await start(["proxy", "ws://127.0.0.1:0/", "ws://127.0.0.1:\(upstream)/echo"], name: "proxy")
        defer { proxy.signal(SIGKILL) }
        let script = """
            import sys
            from websockets.sync.client import connect
            with connect(sys.argv[1], compression=None) as ws:
                for message in [b"\\xff\\x00\\x80 binary", "text \\u00e9", b"", ""]:
                    ws.send(message)
                    reply = ws.recv()
                    print(type(reply).__name__, (reply if isinstance(reply, bytes) else reply.encode()).hex())
            """
        let result = try await run(try venvTool("python"), ["-c", script, "ws://127.0.0.1:\(port)/"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "bytes ff00802062696e617279\nstr 7465787420c3a9\nbytes \nstr \n", "\(result.stderr)")
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
