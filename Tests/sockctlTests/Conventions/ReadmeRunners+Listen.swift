import Foundation
import TestSupport

/// README: "listen — a server in one line", "WebSocket — ws://".
extension ReadmeRunners {
    static let listen: [ReadmeRunner] = [
        ReadmeRunner("sockctl listen 7000") { run in
            run.replace("7000", with: "0")
            try await run.start()
            let port = try await run.listeningPort()
            try run.expectStderr(contains: "listening on 127.0.0.1:\(port), [::1]:\(port) (tcp)")
            try await run.sockctl(["send", "127.0.0.1:\(port)", "hello from a client", "--responses", "0"])
            try await run.waitForStdout("hello from a client")
            // Like nc -l: one client, then it ends.
            try await run.expectExit(0)
        },
        ReadmeRunner("sockctl listen 7000 --echo --keep-open") { run in
            run.replace("7000", with: "0")
            try await run.start()
            let port = try await run.listeningPort()
            for client in ["127.0.0.1", "[::1]"] {
                let reply = try await run.sockctl(["send", "\(client):\(port)", "echo \(client)"])
                try run.expect(reply.stdout.hasPrefix("echo \(client)"), "client \(client) got '\(reply.stdout)'")
            }
            try await run.interrupt(expecting: 0)
            try run.expectStderr(contains: "summary: 2 clients")
        },
        ReadmeRunner("sockctl listen :7000 --framing crlf --respond reply.json --delay 10ms") { run in
            try run.write("reply.json", #"{"ok":true}"#)
            run.replace(":7000", with: ":0")
            try await run.start()
            let port = try await run.listeningPort()
            let reply = try await run.sockctl(["send", "127.0.0.1:\(port)", "--framing", "crlf", #"{"op":"get"}"#])
            try run.expect(reply.stdout == "{\"ok\":true}\n", "the client got '\(reply.stdout)', not reply.json")
            try await run.expectExit(0)
        },
        // Loopback stands for the private network: 0.0.0.0 → 127.0.0.1, 10.0.0.0/8 → 127.0.0.0/8.
        ReadmeRunner("sockctl listen 0.0.0.0:6969 --broadcast --framing line --allow 10.0.0.0/8") { run in
            run.replace("0.0.0.0:6969", with: "127.0.0.1:0")
            run.replace("10.0.0.0/8", with: "127.0.0.0/8")
            try await run.start()
            let port = try await run.listeningPort()
            let listener = try await run.background(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--recv-only"], name: "chat client")
            try await run.waitForStderr("client 1 connected")
            try await run.sockctl(["send", "127.0.0.1:\(port)", "--framing", "line", "hello, everyone", "--responses", "0"])
            try await run.whileRunning("the other client had the message") { try await listener.waitForStdout("hello, everyone\n") }
            try await run.interrupt(expecting: 0)
        },
        ReadmeRunner("sockctl listen udp://:5353 --echo") { run in
            run.replace("udp://:5353", with: "udp://:0")
            try await run.start()
            let port = try await run.listeningPort()
            let reply = try await run.sockctl(["send", "udp://127.0.0.1:\(port)", "a datagram"])
            try run.expect(reply.stdout.hasPrefix("a datagram"), "the client got '\(reply.stdout)'")
            try await run.interrupt(expecting: 0)
        },
        ReadmeRunner("sockctl listen unix:/tmp/app.sock --discard -k") { run in
            run.replace("/tmp/app.sock", with: run.path("app.sock"))
            try await run.start()
            try await run.waitForStderr("listening on")
            try await run.sockctl(["send", "unix:\(run.path("app.sock"))", "ten bytes!", "--responses", "0"])
            try await run.waitForStderr("disconnected")
            try await run.interrupt(expecting: 0)
            try run.expectStderr(contains: "summary: 1 client, 10 bytes in")
        },
        ReadmeRunner("sockctl listen -u -p 5353 --echo") { run in
            run.replace("-p 5353", with: "-p 0")
            try await run.start()
            let port = try await run.listeningPort()
            try run.expectStderr(contains: "(udp)")
            let reply = try await run.sockctl(["send", "udp://127.0.0.1:\(port)", "ncat's -l -u -p"])
            try run.expect(reply.stdout.hasPrefix("ncat's -l -u -p"), "the client got '\(reply.stdout)'")
            try await run.interrupt(expecting: 0)
        },
    ]

    static let webSocket: [ReadmeRunner] = [
        ReadmeRunner("sockctl connect ws://127.0.0.1:8080/chat -v") { run in
            let server = try await run.listen("ws://127.0.0.1:0/chat", "--echo", "-k")
            run.replace("127.0.0.1:8080", with: server.address)
            try await run.start()
            try run.type("a text message\n")
            try await run.waitForStdout("a text message\n")
            // End of input sends a close frame; the session ends when the server answers it.
            try run.endInput()
            try await run.expectExit(0)
            try run.expectStderr(contains: "close received: 1000 (normal)")
        },
        ReadmeRunner("sockctl connect ws://[::1]:8080/feed --binary --framing length:4") { run in
            let server = try await run.listen("ws://[::1]:0/feed", "--echo", "-k")
            run.replace("[::1]:8080", with: "[::1]:\(server.port)")
            try await run.start()
            try run.type(bytes: [0, 0, 0, 5] + Array("bytes".utf8))
            try await run.waitForStdout("bytes")
            try run.endInput()
            try await run.expectExit(0)
            try run.expect(Array(run.stdout.utf8) == [0, 0, 0, 5] + Array("bytes".utf8), "it printed \(Array(run.stdout.utf8)), not the framed message")
        },
        ReadmeRunner("sockctl connect ws://h:8080/ --subprotocol v2.chat --origin https://app.example --header 'Authorization: Bearer T'") { run in
            let server = try await run.listen("ws://127.0.0.1:0/", "--subprotocol", "v2.chat", "--echo", "-k")
            run.replace("h:8080", with: server.address)
            try await run.start()
            try run.type("with a subprotocol\n")
            try await run.waitForStdout("with a subprotocol\n")
            try run.endInput()
            try await run.expectExit(0)
            try run.expect(server.child.stderr.contains("Origin: https://app.example"), "the server did not log the Origin: \(server.child.stderr)")
        },
        ReadmeRunner(#"sockctl send ws://127.0.0.1:8080/echo '{"op":"ping"}' --json"#) { run in
            let server = try await run.listen("ws://127.0.0.1:0/echo", "--echo", "-k")
            run.replace("127.0.0.1:8080", with: server.address)
            try await run.runToEnd(0)
            let json = try run.json()
            try run.expect(json["ok"] as? Bool == true, "not ok: \(json)")
            try run.expect((json["responses"] as? [[String: Any]])?.first?["text"] as? String == #"{"op":"ping"}"#, "no echo: \(json)")
        },
        ReadmeRunner("sockctl listen ws://127.0.0.1:8080/chat --echo -k") { run in
            run.replace("127.0.0.1:8080", with: "127.0.0.1:0")
            try await run.start()
            let port = try await run.listeningPort()
            let reply = try await run.sockctl(["send", "ws://127.0.0.1:\(port)/chat", "text as text"])
            try run.expect(reply.stdout.hasPrefix("text as text"), "the client got '\(reply.stdout)'")
            try await run.interrupt(expecting: 0)
        },
        ReadmeRunner("sockctl listen ws://:8080/chat --broadcast --allow-origin http://localhost:3000") { run in
            run.replace("ws://:8080", with: "ws://:0")
            try await run.start()
            let port = try await run.listeningPort()
            let origin = ["--origin", "http://localhost:3000"]
            let listener = try await run.background(try sockctlPath(), ["connect", "ws://127.0.0.1:\(port)/chat", "--recv-only"] + origin, name: "chat client")
            try await run.waitForStderr("client 1 connected")
            try await run.sockctl(["send", "ws://127.0.0.1:\(port)/chat", "hello, everyone", "--responses", "0"] + origin)
            try await run.whileRunning("the other client had the message") { try await listener.waitForStdout("hello, everyone\n") }
            // A client without the Origin is refused with 403, as README shows.
            try await run.sockctl(["send", "ws://127.0.0.1:\(port)/chat", "let me in"], status: 1)
            try await run.waitForStderr("HTTP 403 Forbidden: origin '(none)' is not allowed")
            try await run.interrupt(expecting: 0)
        },
        // The fuzzing server of Autobahn is a listener that sends a message and expects it back.
        ReadmeRunner("sockctl connect 'ws://127.0.0.1:9001/runCase?case=1&agent=sockctl' --echo-messages") { run in
            let server = try await run.background(try sockctlPath(), ["listen", "ws://127.0.0.1:0/runCase"], stdin: .pipe, name: "server")
            let port = try await server.listeningPort()
            run.replace("127.0.0.1:9001", with: "127.0.0.1:\(port)")
            try await run.start()
            try await run.whileRunning("it connected") { try await server.waitForStderr("client 1 connected") }
            try server.send("case 1 says hello\n")
            try await run.whileRunning("it sent the message back") { try await server.waitForStdout("case 1 says hello\n") }
            try await run.interrupt(expecting: 130)
        },
    ]
}
