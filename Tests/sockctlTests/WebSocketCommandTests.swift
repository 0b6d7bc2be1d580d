import Foundation
import TestSupport
import Testing

import Glibc

/// `sockctl connect|send|listen ws://…` against each other and against hand-made frames.
@Suite(.hangGuard) struct WebSocketCommandTests {
    /// Starts `sockctl listen ENDPOINT ARGS…` and returns it with its port.
    static func listener(_ endpoint: String = "ws://127.0.0.1:0/chat", _ arguments: [String] = ["--echo", "-k", "-v"]) async throws -> (Child, Int) {
        let child = try await Child(try sockctlPath(), ["listen", endpoint] + arguments, name: "listen")
        return (child, try await child.listeningPort())
    }

    @Test func connectSendsEachLineAsAMessageAndPrintsEachMessageOnALine() async throws {
        let scratch = try Scratch()
        let (listener, port) = try await Self.listener()
        try "first line\nsecond\n\u{00E9}t\u{00E9}\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let client = try await run(try sockctlPath(), ["connect", "ws://127.0.0.1:\(port)/chat", "-v"], stdin: .file(scratch.path("input")))
        #expect(client.status == 0, "\(client.stderr)")
        #expect(String(decoding: client.stdout, as: UTF8.self) == "first line\nsecond\n\u{00E9}t\u{00E9}\n")
        // End of input is this side's close frame, answered by the server.
        #expect(client.stderr.contains("close sent: 1000 (normal)"))
        #expect(client.stderr.contains("close received: 1000 (normal)"))
        try await listener.waitForStderr("disconnected")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("client 1 connected from 127.0.0.1:"))
        #expect(listener.stderr.contains("(GET /chat, Origin: (none), permessage-deflate)"))
        #expect(listener.stderr.contains("summary: 1 client, 21 bytes in, 21 bytes out"), "\(listener.stderr)")
    }

    /// Text input: an empty line is an empty message (not dropped). Binary input has no
    /// lines: the bytes go unchanged, CR, LF and NUL included, in messages as read (64 KiB
    /// at most).
    @Test func emptyLinesAreMessagesAndBinaryInputIsSentAsIs() async throws {
        let scratch = try Scratch()
        // Print mode: each message received is printed on a line of its own.
        let (listener, port) = try await Self.listener("ws://127.0.0.1:0/raw", ["-k"])
        defer { listener.signal(SIGKILL) }
        try "a\n\nb\n".write(toFile: scratch.path("text"), atomically: true, encoding: .utf8)
        let text = try await run(try sockctlPath(), ["connect", "ws://127.0.0.1:\(port)/raw", "--send-only"], stdin: .file(scratch.path("text")))
        #expect(text.status == 0, "\(text.stderr)")
        // The last message read means every earlier one was (stderr's disconnect line can be
        // read before stdout's bytes: two pipes, two reader threads).
        try await listener.waitForStdout("b\n")
        #expect(listener.stdoutText == "a\n\nb\n")
        var payload = [UInt8]()
        for index in 0..<300_000 { payload.append(UInt8(truncatingIfNeeded: index &* 7919 >> 3)) }
        try Data(payload).write(to: URL(fileURLWithPath: scratch.path("binary")))
        let (echo, echoPort) = try await Self.listener("ws://127.0.0.1:0/raw", ["--echo", "-k"])
        defer { echo.signal(SIGKILL) }
        let binary = try await run(try sockctlPath(), ["connect", "ws://127.0.0.1:\(echoPort)/raw", "--binary", "-v"], stdin: .file(scratch.path("binary")))
        #expect(binary.status == 0, "\(binary.stderr)")
        // Sent as messages of 64 KiB (what websocat accepts by default) and the rest; the binary
        // messages echoed are printed byte for byte, nothing added (a newline ends text
        // messages only), so the file comes back identical.
        #expect(binary.stdout == Data(payload), "\(binary.stdout.count) bytes back for \(payload.count)")
        let three = try await run(try sockctlPath(), ["connect", "ws://127.0.0.1:\(echoPort)/raw", "--binary"], stdin: .file(try Self.file("\u{0}\u{1}\u{2}", in: scratch)))
        #expect(three.stdout == Data([0, 1, 2]), "\(Array(three.stdout))")
    }

    @Test func framingCutsInputIntoMessagesAndSendCountsResponses() async throws {
        let scratch = try Scratch()
        let (listener, port) = try await Self.listener()
        // length:2 frames on stdin: "ab" and "cde"; each is one message.
        try Data([0, 2, 0x61, 0x62, 0, 3, 0x63, 0x64, 0x65]).write(to: URL(fileURLWithPath: scratch.path("framed")))
        let framed = try await run(try sockctlPath(), ["connect", "ws://127.0.0.1:\(port)/chat", "--framing", "length:2", "--binary"], stdin: .file(scratch.path("framed")))
        #expect(framed.status == 0, "\(framed.stderr)")
        // The echoes come back written in the same framing: stdin and stdout speak length:2.
        #expect(framed.stdout == Data([0, 2, 0x61, 0x62, 0, 3, 0x63, 0x64, 0x65]), "\(Array(framed.stdout))")
        let sent = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/chat?x=1", "one", "two", "--responses", "2", "--json"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let json = try JSONSerialization.jsonObject(with: sent.stdout) as? [String: Any]
        #expect(json?["responses_received"] as? Int == 2)
        #expect((json?["responses"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["one", "two"])
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    @Test func wrongPathsPlainHTTPAndForeignOriginsAreRefused() async throws {
        let scratch = try Scratch()
        let (listener, port) = try await Self.listener("ws://127.0.0.1:0/chat", ["--echo", "-k", "--allow-origin", "http://app.example"])
        let wrongPath = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/other", "x"])
        #expect(wrongPath.status == 1)
        #expect(wrongPath.stderr.contains("the server answered 404 Not Found"), "\(wrongPath.stderr)")
        let noOrigin = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/chat", "x"])
        #expect(noOrigin.stderr.contains("the server answered 403 Forbidden"), "\(noOrigin.stderr)")
        let foreign = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/chat", "x", "--origin", "https://evil.example"])
        #expect(foreign.stderr.contains("the server answered 403 Forbidden"))
        let allowed = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/chat", "ok", "--origin", "http://app.example"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(String(decoding: allowed.stdout, as: UTF8.self) == "ok\n")
        let plain = try await run(try tool("ncat"), ["127.0.0.1", "\(port)"], stdin: .file(try Self.file("GET /chat HTTP/1.1\r\nHost: x\r\n\r\n", in: scratch)))
        #expect(String(decoding: plain.stdout, as: UTF8.self).hasPrefix("HTTP/1.1 426 Upgrade Required"))
        try await listener.waitForStderr("426")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        let log = listener.stderr
        #expect(log.contains("HTTP 404 Not Found: no WebSocket at '/other'"))
        #expect(log.contains("HTTP 403 Forbidden: origin '(none)' is not allowed"))
        #expect(log.contains("HTTP 403 Forbidden: origin 'https://evil.example' is not allowed"))
        #expect(log.contains("(GET /chat, Origin: http://app.example, permessage-deflate)"), "the admitted client's Origin is logged")
        #expect(log.contains("4 refused"))
    }

    static func file(_ text: String, in scratch: Scratch) throws -> String {
        let path = scratch.path("file-\(UUID().uuidString.prefix(6))")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func closeCodesAndReasonsAreSentAndShown() async throws {
        let (listener, port) = try await Self.listener()
        let sent = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/chat", "x", "--close-code", "4001", "--close-reason", "bye now", "-v"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stderr.contains("close sent: 4001 'bye now'"))
        #expect(sent.stderr.contains("close received: 1000 (normal)"))
        try await listener.waitForStderr("disconnected")
        #expect(listener.stderr.contains("close received: 4001 'bye now'"))
        #expect(listener.stderr.contains("the peer closed the WebSocket with 4001 'bye now'"))
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    @Test func subprotocolsAreNegotiatedAndPingsAnswered() async throws {
        let (listener, port) = try await Self.listener("ws://127.0.0.1:0/", ["--echo", "-k", "--subprotocol", "v2", "--subprotocol", "v1"])
        let client = try await Child(
            try sockctlPath(),
            ["connect", "ws://127.0.0.1:\(port)/", "--subprotocol", "v1", "--subprotocol", "v2", "--ping-interval", "100ms", "--recv-only", "-v"], name: "client"
        )
        try await client.waitForStderr("pong received after")
        #expect(client.stderr.contains("WebSocket open (GET /, Origin: (none), subprotocol v1, permessage-deflate)"))
        client.signal(SIGINT)
        _ = try await client.wait()
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    @Test func aMessageOverMaxMessageClosesWith1009() async throws {
        let (listener, port) = try await Self.listener("ws://127.0.0.1:0/", ["--echo", "-k", "--max-message", "1KiB", "-v"])
        let big = String(repeating: "x", count: 2048)
        let sent = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/", big])
        #expect(sent.status == 1)
        #expect(sent.stderr.contains("the peer closed the WebSocket with 1009 (message too big)"), "\(sent.stderr)")
        try await listener.waitForStderr("disconnected")
        #expect(listener.stderr.contains("closing with 1009 (message too big)"))
        // The listener is still serving.
        let small = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/", "small"])
        #expect(String(decoding: small.stdout, as: UTF8.self) == "small\n")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    @Test func aMaskedFrameFromTheServerFailsTheClient() async throws {
        // A "server" that answers the handshake properly, then sends a masked text frame.
        let script = """
            import socket, base64, hashlib, sys
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
            print(s.getsockname()[1], flush=True)
            c, _ = s.accept(); request = b""
            while b"\\r\\n\\r\\n" not in request: request += c.recv(4096)
            key = [l.split(b":", 1)[1].strip() for l in request.split(b"\\r\\n") if l.lower().startswith(b"sec-websocket-key:")][0]
            accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
            c.sendall(b"HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: " + accept + b"\\r\\n\\r\\n")
            c.sendall(bytes([0x81, 0x82, 1, 2, 3, 4, ord("h") ^ 1, ord("i") ^ 2]))
            data = b""
            while True:
                chunk = c.recv(4096)
                if not chunk: break
                data += chunk
            print(hex(data[0]), data[1] >> 7, (data[6] ^ data[2]) * 256 + (data[7] ^ data[3]) if len(data) >= 8 else None)
            """
        let server = try await Child(try tool("python3"), ["-c", script], name: "python-server")
        let port = try #require(Int(try await server.waitForStdout("\n").prefix { $0.isNumber }))
        let client = try await run(try sockctlPath(), ["connect", "ws://127.0.0.1:\(port)/", "--recv-only"])
        #expect(client.status == 1)
        #expect(client.stderr.contains("masked frame from the server: closed with 1002 (protocol error)"), "\(client.stderr)")
        #expect(try await server.wait() == 0)
        // The client's close frame (0x88), masked, carrying 1002.
        #expect(server.stdoutText == "\(port)\n0x88 1 1002\n", "\(server.stdoutText) \(server.stderr)")
    }

    /// A server that says all it has to say at once — its 101, a message and its close frame in
    /// one write — then ends its side (FIN): the message and the close are still read (the FIN
    /// arrives with the upgrade answer, and must not make the bytes behind it disappear). Five
    /// connections, since how the bytes and the FIN fall into reads varies.
    @Test func aMessageAndCloseThatComeWithTheUpgradeAnswerAreRead() async throws {
        let script = """
            import socket, base64, hashlib
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(5)
            print(s.getsockname()[1], flush=True)
            for _ in range(5):
                c, _ = s.accept(); request = b""
                while b"\\r\\n\\r\\n" not in request: request += c.recv(4096)
                key = [l.split(b":", 1)[1].strip() for l in request.split(b"\\r\\n") if l.lower().startswith(b"sec-websocket-key:")][0]
                accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
                c.sendall(b"HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: " + accept
                          + b"\\r\\n\\r\\n" + bytes([0x81, 5]) + b"hello" + bytes([0x88, 2, 0x03, 0xE8]))
                c.shutdown(socket.SHUT_WR)
                while c.recv(4096): pass
                c.close()
            """
        let server = try await Child(try tool("python3"), ["-c", script], name: "python-server")
        let port = try #require(Int(try await server.waitForStdout("\n").prefix { $0.isNumber }))
        for _ in 0..<5 {
            let client = try await run(try sockctlPath(), ["connect", "ws://127.0.0.1:\(port)/", "--recv-only"])
            #expect(client.status == 0, "\(client.stderr)")
            #expect(String(decoding: client.stdout, as: UTF8.self) == "hello\n", "\(client.stderr)")
        }
        #expect(try await server.wait() == 0)
    }

    @Test func wrongSecWebSocketAcceptFailsTheHandshake() async throws {
        let scratch = try Scratch()
        let reply = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n"
        let server = try await Child(try tool("ncat"), ["-v", "-l", "127.0.0.1", "0"], stdin: .file(try Self.file(reply, in: scratch)), name: "ncat")
        try await server.waitForStderr("Ncat: Listening on")
        let port = try server.listeningTCPPort()
        let client = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/", "x"])
        #expect(client.status == 1)
        #expect(client.stderr.contains("Sec-WebSocket-Accept is missing or does not match the key sent"), "\(client.stderr)")
        server.signal(SIGTERM)
    }

    /// A server that closes without answering, or answers something that is not HTTP, fails
    /// the handshake at once and says which (once this waited for the connect timeout: with a
    /// timeout of 10 minutes here, that would be the suite's time limit).
    @Test(arguments: [
        ("", "the connection closed before the server answered"),
        ("HTTP/1.1 101 Switch", "the connection closed in the middle of the server's answer"),
        ("SSH-2.0-OpenSSH_9.2\r\n", "the answer is not HTTP"),
    ])
    func serversThatDoNotAnswerWithAnUpgradeFailAtOnce(reply: String, message: String) async throws {
        let scratch = try Scratch()
        let server = try await Child(try tool("ncat"), ["-v", "-l", "127.0.0.1", "0"], stdin: .file(try Self.file(reply, in: scratch)), name: "ncat")
        defer { server.signal(SIGKILL) }
        try await server.waitForStderr("Ncat: Listening on")
        let port = try server.listeningTCPPort()
        let client = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/", "x", "--connect-timeout", "600s", "--timeout", "600s"])
        #expect(client.status == 1)
        #expect(client.stderr.contains(message), "\(client.stderr)")
    }

    /// wss:// = WebSocket inside TLS, both ends sockctl: verified against the test CA, the
    /// TLS details shown with -v, messages echoed; plain ws:// to it is refused by the server.
    @Test func wssBetweenListenAndConnect() async throws {
        let scratch = try Scratch()
        let dir = try await TestCertificates.shared.directory()
        let (listener, port) = try await Self.listener("wss://127.0.0.1:0/secure", ["--echo", "-k", "-v", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key"])
        defer { listener.signal(SIGKILL) }
        try "over tls\nsecond\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let client = try await run(try sockctlPath(), ["connect", "wss://127.0.0.1:\(port)/secure", "--cafile", "\(dir)/ca.pem", "-v"], stdin: .file(scratch.path("input")))
        #expect(client.status == 0, "\(client.stderr)")
        #expect(String(decoding: client.stdout, as: UTF8.self) == "over tls\nsecond\n")
        #expect(client.stderr.contains("TLS: TLSv1.3, TLS_"), "\(client.stderr)")
        #expect(client.stderr.contains("verified (chain and host name)"), "\(client.stderr)")
        // In the order they happen: TCP, TLS, then the upgrade.
        let order = ["connected to 127.0.0.1:\(port)", "TLS: TLSv1.3", "WebSocket open (GET /secure, Origin: (none), permessage-deflate)"].map { client.stderr.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil } && order == order.sorted { ($0 ?? client.stderr.startIndex) < ($1 ?? client.stderr.startIndex) }, "\(client.stderr)")
        #expect(client.stderr.contains("close received: 1000 (normal)"), "\(client.stderr)")
        let unverified = try await run(try sockctlPath(), ["send", "wss://127.0.0.1:\(port)/secure", "x"])
        #expect(unverified.status == 1)
        #expect(unverified.stderr.contains("unknown CA"), "\(unverified.stderr)")
        let plain = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/secure", "x"])
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("WebSocket handshake with 127.0.0.1:\(port) failed"), "\(plain.stderr)")
        try await listener.waitForStderr("the peer does not speak TLS")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("(wss)"), "\(listener.stderr)")
    }

    /// loadtest over ws:// (on event loops and on threads) and wss://: each message is one
    /// WebSocket message and each echoed message one reply (`{{seq}}` makes them distinct, and
    /// the server sees exactly what was sent); wss:// reports TLS handshakes apart; a refused
    /// upgrade is a `websocket` error on either I/O path.
    @Test func loadtestOverWebSocketMatchesEachMessage() async throws {
        let scratch = try Scratch()
        let dir = try await TestCertificates.shared.directory()
        let (plain, plainPort) = try await Self.listener("ws://127.0.0.1:0/load", ["--echo", "-k"])
        defer { plain.signal(SIGKILL) }
        let (secure, securePort) = try await Self.listener("wss://127.0.0.1:0/load", ["--echo", "-k", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key"])
        defer { secure.signal(SIGKILL) }
        let plainTarget = "ws://127.0.0.1:\(plainPort)/load"
        let secureTarget = "wss://127.0.0.1:\(securePort)/load"
        for (target, extra) in [
            (plainTarget, ["--io", "events"]), (plainTarget, ["--io", "threads"]),
            (secureTarget, ["--io", "events", "--cafile", "\(dir)/ca.pem"]), (secureTarget, ["--io", "threads", "--cafile", "\(dir)/ca.pem"]),
        ] {
            let json = scratch.path("ws.json")
            let result = try await run(try sockctlPath(), ["loadtest", target, "-c", "4", "--requests", "400", "--pipeline", "3", "--framing", "raw",
                                                           "--message", "msg {{seq}} on {{conn}}", "--json", json] + extra)
            #expect(result.status == 0, "\(target): \(result.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
            let messages = try #require(report["messages"] as? [String: Int])
            #expect(messages["sent"] == 400 && messages["received"] == 400 && messages["lost"] == 0 && messages["timed_out"] == 0, "\(messages)")
            #expect((report["errors"] as? [String: Int])?.isEmpty == true, "\(String(describing: report["errors"]))")
            let secure = target.hasPrefix("wss")
            #expect(report["transport"] as? String == (secure ? "wss" : "ws"))
            #expect((report["config"] as? [String: Any])?["io"] as? String == extra[1], "\(String(describing: report["config"]))")
            if !secure {
                #expect(report["tls_handshake"] == nil || report["tls_handshake"] is NSNull)
            } else {
                #expect((report["tls_handshake"] as? [String: Any])?["count"] as? Int == 4)
            }
        }
        // The echo server saw the messages unchanged (no delimiter added): twice 400 of 8-12 bytes.
        plain.signal(SIGINT)
        #expect(try await plain.wait() == 0)
        let bytes = 2 * (1...400).reduce(0) { total, seq in total + "msg \(seq) on \((seq - 1) % 4 + 1)".utf8.count }
        #expect(plain.stderr.contains("\(bytes) bytes in, \(bytes) bytes out"), "\(plain.stderr)")

        for io in ["events", "threads"] {
            let refused = try await run(try sockctlPath(), ["loadtest", "ws://127.0.0.1:\(securePort)/load", "-c", "2", "--duration", "1s", "--framing", "raw",
                                                            "--io", io, "--json", scratch.path("refused.json")])
            #expect(refused.status == 1)
            let errors = (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("refused.json")))) as? [String: Any])?["errors"] as? [String: Int] ?? [:]
            #expect((errors["websocket"] ?? 0) >= 2, "\(io): \(errors)")
        }
        // On threads too, a certificate the client cannot verify is a `tls` error, not a trap.
        let unverified = try await run(try sockctlPath(), ["loadtest", secureTarget, "--io", "threads", "-c", "1", "--duration", "1s", "--framing", "raw",
                                                           "--json", scratch.path("unverified.json")])
        #expect(unverified.status == 1)
        let tlsErrors = (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("unverified.json")))) as? [String: Any])?["errors"] as? [String: Int] ?? [:]
        #expect((tlsErrors["tls"] ?? 0) >= 1, "\(tlsErrors)")
    }

    /// Hostile frames on an upgraded connection: each ends that connection with the right
    /// close code; the listener keeps serving (no trap, no hang).
    @Test(arguments: [
        // 'G' 'E' reads as a frame with RSV1 set and 69 bytes of payload: given those bytes, 1002.
        ("garbage after the handshake", Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8) + [UInt8](repeating: 0x78, count: 100), UInt16(1002)),
        ("a 2^63 length field", [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4], UInt16(1009)),
        ("a 2^62 length field", [0x82, 0xFF, 0x40, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4], UInt16(1009)),
        ("a fragmented ping", RawWebSocket.frame(opcode: 9, fin: false, payload: [1]), UInt16(1002)),
        ("a 126-byte ping", RawWebSocket.frame(opcode: 9, payload: [UInt8](repeating: 7, count: 126)), UInt16(1002)),
        ("invalid UTF-8", RawWebSocket.frame(opcode: 1, payload: [0x61, 0xED, 0xA0, 0x80]), UInt16(1007)),
        ("invalid UTF-8 in a first fragment", RawWebSocket.frame(opcode: 1, fin: false, payload: [0xC0, 0x80]), UInt16(1007)),
        ("an unmasked frame", [0x81, 0x02, 0x68, 0x69], UInt16(1002)),
        ("RSV bits", [0xC1, 0x80, 1, 2, 3, 4], UInt16(1002)),
        ("a reserved opcode", RawWebSocket.frame(opcode: 3, payload: []), UInt16(1002)),
        ("a continuation with nothing to continue", RawWebSocket.frame(opcode: 0, payload: [0x61]), UInt16(1002)),
        ("a 1-byte close payload", RawWebSocket.frame(opcode: 8, payload: [0x03]), UInt16(1002)),
        ("close code 1005", RawWebSocket.frame(opcode: 8, payload: [0x03, 0xED]), UInt16(1002)),
        ("a close reason that is not UTF-8", RawWebSocket.frame(opcode: 8, payload: [0x03, 0xE8, 0xFF]), UInt16(1007)),
    ] as [(String, [UInt8], UInt16)])
    func hostileFramesCloseWithTheRightCode(what: String, bytes: [UInt8], expected: UInt16) async throws {
        let (listener, port) = try await Self.listener("ws://127.0.0.1:0/", ["--echo", "-k", "-v"])
        let outcome = await onOwnThread { () -> Result<(UInt16?, String, Bool), RawWebSocket.Failure> in
            do {
                let socket = try RawWebSocket(port: port)
                try socket.send(bytes)
                let close = try socket.readClose()
                return .success((close.code, close.reason, close.closedAfter))
            } catch let failure as RawWebSocket.Failure {
                return .failure(failure)
            } catch {
                return .failure(RawWebSocket.Failure(description: "\(error)"))
            }
        }
        switch outcome {
        case .success(let (code, reason, closedAfter)):
            #expect(code == expected, "\(what): closed with \(code.map(String.init) ?? "no code") '\(reason)'")
            #expect(closedAfter, "\(what): the server closes the TCP connection after the close handshake")
        case .failure(let failure):
            Issue.record("\(what): \(failure)")
        }
        try await listener.waitForStderr("disconnected")
        // Still serving, and no trap.
        let after = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(port)/", "still here"])
        #expect(String(decoding: after.stdout, as: UTF8.self) == "still here\n", "\(what): \(after.stderr)")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0, "\(what): \(listener.stderr)")
    }

    /// A ping between the fragments of a message is answered there, and the message arrives whole.
    @Test func aPingBetweenFragmentsIsAnsweredThereAndTheMessageArrivesWhole() async throws {
        let (listener, port) = try await Self.listener("ws://127.0.0.1:0/", ["--echo", "-k"])
        let frames = await onOwnThread { () -> [String] in
            guard let socket = try? RawWebSocket(port: port) else { return ["no connection"] }
            var seen: [String] = []
            try? socket.send(RawWebSocket.frame(opcode: 1, fin: false, payload: Array("Hel".utf8)))
            try? socket.send(RawWebSocket.frame(opcode: 9, payload: Array("ping!".utf8)))
            try? socket.send(RawWebSocket.frame(opcode: 0, payload: Array("lo".utf8)))
            for _ in 0..<2 {
                guard let frame = try? socket.readFrame() else { break }
                seen.append("\(frame.opcode):\(String(decoding: frame.payload, as: UTF8.self))")
            }
            return seen
        }
        #expect(frames == ["10:ping!", "1:Hello"])
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }
}
