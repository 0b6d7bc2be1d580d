import Foundation
import TestSupport
import Testing

import Glibc

/// The permessage-deflate peers (websockets 17.4, which compresses by default, recording the RSV1
/// bit of every frame it receives before inflating it).
let webSocketDeflatePeerScript = packageRoot.appendingPathComponent("Tests/sockctlTests/WebSocketPeers/ws_deflate_peer.py").path

/// Compressed WebSocket (RFC 7692) between sockctl and Python websockets, both ways: messages
/// round trip compressed (RSV1 on the wire, as the peer saw it), `--no-compression` sends them
/// plain, a compression bomb is refused with 1009, and `proxy --print-messages` prints the
/// inflated messages.
@Suite(.hangGuard) struct WebSocketCompressionInteropTests {
    static func jsonLines(_ text: String) -> [[String: Any]] { WebSocketInteropTests.jsonLines(text) }

    static func deflateServer(_ arguments: [String] = ["server"]) async throws -> (Child, Int) {
        let server = try await Child(try venvTool("python"), [webSocketDeflatePeerScript] + arguments, name: "websockets-deflate")
        return (server, try await WebSocketInteropTests.serverPort(server))
    }

    /// The server's report on the one client that left.
    static func report(_ server: Child, count: Int = 1) async throws -> [String: Any] {
        try await server.waitForStdout("\"closed\"", count: count)
        return try #require(jsonLines(server.stdoutText).filter { $0["closed"] != nil }.last)
    }

    @Test func sockctlClientCompressesUnlessToldNot() async throws {
        let (server, port) = try await Self.deflateServer()
        defer { server.signal(SIGKILL) }
        let text = String(repeating: "compressible text, ", count: 40)
        let lines = "\(text)\n\(text)\nshort\n"
        // Stdin ends (and our close frame goes) only once the echoes are in: websockets stops
        // echoing once it has a close frame.
        func connect(_ flags: [String]) async throws -> Child {
            let child = try await Child(try sockctlPath(), ["connect", "ws://127.0.0.1:\(port)/", "-v"] + flags, stdin: .pipe, name: "connect")
            try child.send(lines)
            try await child.waitForStdout("short\n")
            child.closeStdin()
            #expect(try await child.wait() == 0, "\(child.stderr)")
            return child
        }
        let compressed = try await connect([])
        #expect(compressed.stdoutText == lines, "the echoes, inflated")
        #expect(compressed.stderr.contains("permessage-deflate"), "\(compressed.stderr)")
        let first = try await Self.report(server)
        #expect((first["extensions"] as? String)?.hasPrefix("permessage-deflate") == true, "\(first)")
        #expect(first["rsv1"] as? [Bool] == [true, true, true], "every message compressed: \(first)")
        #expect(first["closed"] as? Int == 1000)

        let plain = try await connect(["--no-compression"])
        #expect(plain.stdoutText == lines)
        #expect(!plain.stderr.contains("permessage-deflate"))
        let second = try await Self.report(server, count: 2)
        #expect(second["extensions"] is NSNull, "nothing offered, nothing compressed: \(second)")
    }

    @Test func websocketsClientAgainstSockctlListenCompressed() async throws {
        for (listenFlags, clientFlags, compressed) in [([String](), [String](), true), ([], ["no-context-takeover"], true), (["--no-compression"], [], false)] {
            let listener = try await Child(try sockctlPath(), ["listen", "ws://127.0.0.1:0/", "--echo", "-k", "-v"] + listenFlags, name: "listen")
            let port = try await listener.listeningPort()
            let client = try await run(try venvTool("python"), [webSocketDeflatePeerScript, "client", "ws://127.0.0.1:\(port)/"] + clientFlags)
            #expect(client.status == 0, "\(client.stderr)")
            let events = Self.jsonLines(String(decoding: client.stdout, as: UTF8.self))
            #expect(events.compactMap { $0["echo"] as? Bool } == [true, true, true, true], "\(events)")
            let summary = try #require(events.last)
            if compressed {
                let agreed = try #require(summary["extensions"] as? String)
                #expect(agreed.hasPrefix("permessage-deflate"))
                if !clientFlags.isEmpty {
                    #expect(agreed.contains("server_no_context_takeover") && agreed.contains("client_no_context_takeover"), "\(agreed)")
                }
                #expect(summary["rsv1"] as? [Bool] == [true, true, true, true], "sockctl's echoes compressed: \(summary)")
            } else {
                #expect(summary["extensions"] is NSNull, "declined: \(summary)")
                #expect(summary["rsv1"] as? [Bool] == [], "no extension, nothing recorded: \(summary)")
            }
            try await listener.waitForStderr("disconnected")
            listener.signal(SIGINT)
            #expect(try await listener.wait() == 0)
        }
    }

    @Test func aCompressionBombIsRefusedWith1009() async throws {
        // 64 MiB of zeros: some 64 KiB on the wire, far past --max-message 1MiB once inflated.
        let (server, port) = try await Self.deflateServer(["bomb", "\(64 << 20)"])
        defer { server.signal(SIGKILL) }
        let result = try await run(try sockctlPath(), ["connect", "ws://127.0.0.1:\(port)/", "--recv-only", "--max-message", "1MiB"])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("compressed message inflates beyond the limit of 1048576 bytes: closed with 1009"), "\(result.stderr)")
        let report = try await Self.report(server)
        #expect(report["closed"] as? Int == 1009, "\(report)")
    }

    @Test func proxyPrintsTheInflatedMessages() async throws {
        let (server, port) = try await Self.deflateServer()
        defer { server.signal(SIGKILL) }
        let proxy = try await Child(try sockctlPath(), ["proxy", "ws://127.0.0.1:0/", "ws://127.0.0.1:\(port)/", "--print-messages"], name: "proxy")
        let proxyPort = try await proxy.listeningPort()
        // Text only: the relay sends every message with one type (text unless --binary).
        let client = try await run(try venvTool("python"), [webSocketDeflatePeerScript, "client", "ws://127.0.0.1:\(proxyPort)/", "text-only"])
        #expect(client.status == 0, "\(client.stderr)")
        let events = Self.jsonLines(String(decoding: client.stdout, as: UTF8.self))
        #expect(events.compactMap { $0["echo"] as? Bool } == [true, true, true, true], "\(events)")
        #expect((events.last?["rsv1"] as? [Bool]) == [true, true, true, true], "the proxy compresses towards the client")
        let upstream = try await Self.report(server)
        #expect(upstream["rsv1"] as? [Bool] == [true, true, true, true], "and towards the server: \(upstream)")
        try await proxy.waitForStdout("héllo wörld", count: 2)
        proxy.signal(SIGINT)
        _ = try await proxy.wait()
        #expect(proxy.stdoutText.contains("compress me, compress me"), "\(proxy.stdoutText)")
    }
}
