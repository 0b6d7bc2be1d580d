import Foundation
import TestSupport

/// README: "Endpoints", "TLS", "connect — an interactive client".
extension ReadmeRunners {
    static let tour: [ReadmeRunner] = [
        ReadmeRunner("sockctl connect localhost:99999") { run in
            try await run.runToEnd(2)
            try run.expectShownOutput()
        },
    ]

    static let tls: [ReadmeRunner] = [
        // The system store does not hold the test CA: the runner adds it.
        ReadmeRunner("sockctl connect tls://example.com:443 -v") { run in
            let server = try await run.tlsServer("--echo", "-k")
            run.replace("example.com:443", with: "localhost:\(server.port)")
            run.add("--cafile", try await run.certificates() + "/ca.pem")
            try await run.start()
            try run.type("hello over TLS\n")
            try await run.waitForStdout("hello over TLS\n")
            // stderr is a pipe of its own: its line is waited for, not assumed read by now.
            try await run.waitForStderr("verified (chain and host name)")
            try await run.interrupt(expecting: 130)
        },
        ReadmeRunner(#"sockctl send tls://127.0.0.1:8443 --cafile dev-ca.pem --framing crlf '{"op":"ping"}' --json"#) { run in
            let server = try await run.tlsServer("--echo", "-k")
            try await run.certificate("ca.pem", as: "dev-ca.pem")
            run.replace("127.0.0.1:8443", with: server.address)
            try await run.runToEnd(0)
            let json = try run.json()
            try run.expect(json["ok"] as? Bool == true, "not ok: \(json)")
            let responses = json["responses"] as? [[String: Any]]
            try run.expect(responses?.first?["text"] as? String == #"{"op":"ping"}"#, "the response is not the echo: \(json)")
            try run.expect((json["timings_ms"] as? [String: Any])?["tls"] is Double, "no TLS handshake time: \(json)")
        },
        ReadmeRunner("sockctl send tls://127.0.0.1:8443 --cafile dev-ca.pem --keylog keys.log hello") { run in
            let server = try await run.tlsServer("--echo", "-k")
            try await run.certificate("ca.pem", as: "dev-ca.pem")
            run.replace("127.0.0.1:8443", with: server.address)
            try await run.runToEnd(0)
            try run.expectFile("keys.log")
            let text = try String(contentsOfFile: run.path("keys.log"), encoding: .utf8)
            try run.expect(text.contains("CLIENT_TRAFFIC_SECRET_0 ") && text.contains("SERVER_TRAFFIC_SECRET_0 "), "no TLS 1.3 secrets: \(text)")
        },
        // api.internal is the test certificate's localhost, and the README's pin that of its key.
        ReadmeRunner("sockctl send tls://10.0.0.5:8443 --servername api.internal --pin 'sha256//x3HECQHGxOLnXvB2hfgUZMKf9VOTu3URwcxdG+Ou9pk=' hi") { run in
            let server = try await run.tlsServer("--echo", "-k")
            run.replace("10.0.0.5:8443", with: server.address)
            run.replace("--servername api.internal", with: "--servername localhost")
            run.replace("sha256//x3HECQHGxOLnXvB2hfgUZMKf9VOTu3URwcxdG+Ou9pk=", with: try await run.pin(of: "server.pem"))
            run.add("--cafile", try await run.certificates() + "/ca.pem")
            try await run.runToEnd(0)
            try run.expect(run.stdout.hasPrefix("hi"), "the reply is not the echo")
        },
        ReadmeRunner("sockctl connect tls://127.0.0.1:8443 --cert client.pem --key client.key") { run in
            let directory = try await run.certificates()
            let server = try await run.tlsServer("--echo", "-k", "--client-ca", "\(directory)/ca.pem")
            try await run.certificate("client.pem")
            try await run.certificate("client.key")
            run.replace("127.0.0.1:8443", with: server.address)
            run.add("--cafile", "\(directory)/ca.pem")
            try await run.start()
            try run.type("mutual\n")
            try await run.waitForStdout("mutual\n")
            try await run.interrupt(expecting: 130)
        },
        ReadmeRunner("sockctl listen tls://127.0.0.1:8443 --cert server.pem --key server.key --echo --client-ca ca.pem") { run in
            for file in ["server.pem", "server.key", "ca.pem", "client.pem", "client.key"] { try await run.certificate(file) }
            run.replace("127.0.0.1:8443", with: "127.0.0.1:0")
            try await run.start()
            let port = try await run.listeningPort()
            let reply = try await run.sockctl(["send", "tls://127.0.0.1:\(port)", "--cafile", "ca.pem", "--cert", "client.pem", "--key", "client.key", "echo me"])
            try run.expect(reply.stdout.hasPrefix("echo me"), "the client got '\(reply.stdout)', not its echo")
            // Without --keep-open: one client, then it ends.
            try await run.expectExit(0)
        },
    ]

    static let connect: [ReadmeRunner] = [
        ReadmeRunner("sockctl connect example.com:80 --crlf") { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k")
            run.replace("example.com:80", with: server.address)
            try await run.start()
            try run.type("GET / HTTP/1.0\n\n")
            try await run.waitForStdout("GET / HTTP/1.0\r\n\r\n")
            try await run.interrupt(expecting: 130)
        },
        ReadmeRunner(#"echo '{"op":"ping"}' | sockctl connect 127.0.0.1:7000 --framing crlf"#) { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "--framing", "crlf")
            run.replace("127.0.0.1:7000", with: server.address)
            try await run.runToEnd(0)
            try run.expect(run.stdout == "{\"op\":\"ping\"}\n", "it printed '\(run.stdout)', not the echoed message")
        },
        ReadmeRunner("sockctl connect 127.0.0.1:7000 --framing length:4") { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "length:4")
            run.replace("127.0.0.1:7000", with: server.address)
            try await run.start()
            try run.type("a length-prefixed message\n")
            try await run.waitForStdout("a length-prefixed message\n")
            try await run.interrupt(expecting: 130)
        },
        ReadmeRunner("sockctl connect [::1]:9000 -v --hexdump") { run in
            let server = try await run.listen("[::1]:0", "--echo", "-k")
            run.replace("[::1]:9000", with: "[::1]:\(server.port)")
            try await run.start()
            try run.type("{\"id\":7}\n")
            try await run.waitForStdout("{\"id\":7}\n")
            try await run.waitForStderr("< received from [::1]:\(server.port), 9 bytes")
            try run.expectStderr(contains: "> sent to [::1]:\(server.port), 9 bytes\n\t0x0000:  7b22 6964 223a 377d 0a")
            try await run.interrupt(expecting: 130)
        },
        ReadmeRunner("sockctl connect udp://127.0.0.1:5353") { run in
            let server = try await run.listen("udp://127.0.0.1:0", "--echo")
            run.replace("127.0.0.1:5353", with: server.address)
            try await run.start()
            try run.type("a datagram\n")
            try await run.waitForStdout("a datagram\n")
            try await run.interrupt(expecting: 130)
        },
        ReadmeRunner("sockctl connect unix:/run/app.sock") { run in
            try await run.listen("unix:\(run.path("app.sock"))", "--echo", "-k")
            run.replace("/run/app.sock", with: run.path("app.sock"))
            try await run.start()
            try run.type("over a Unix socket\n")
            try await run.waitForStdout("over a Unix socket\n")
            try await run.interrupt(expecting: 130)
        },
        ReadmeRunner("sockctl connect 127.0.0.1 7000") { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k")
            run.replace("127.0.0.1 7000", with: "127.0.0.1 \(server.port)")
            try await run.start()
            try run.type("two words, as nc\n")
            try await run.waitForStdout("two words, as nc\n")
            try await run.interrupt(expecting: 130)
        },
        // Three consecutive ports held by the test (the first listening, the others bound and
        // refusing), read back as README's 7000-7002 in what it prints.
        ReadmeRunner("sockctl connect -z 127.0.0.1 7000-7002") { run in
            let block = try PortBlock(count: 3, open: [0])
            run.replace("7000-7002", with: block.range)
            for offset in 0..<3 { run.showAs("127.0.0.1 \(block[offset])", "127.0.0.1 \(7000 + offset)") }
            run.showAs("1 open (\(block[0]))", "1 open (7000)")
            try await run.runToEnd(0)
            try run.expectShownOutput()
            try run.expect(run.stdout.isEmpty, "it printed on stdout: '\(run.stdout)'")
            withExtendedLifetime(block) {}
        },
        // sockctl's own --resolve maps the name; the server listens on 127.0.0.1 only, so ::1 refuses.
        ReadmeRunner("sockctl connect dual.test:7000 --resolve dual.test:::1,127.0.0.1 -v") { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k")
            run.replace("dual.test:7000", with: "dual.test:\(server.port)")
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
        ReadmeRunner(#"sockctl connect 10.0.0.5:6969 --framing crlf --reconnect --heartbeat '{"op":"ping"}' --heartbeat-interval 5s --heartbeat-misses 3"#) { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "crlf")
            run.replace("10.0.0.5:6969", with: server.address)
            try await run.start()
            try run.type("{\"op\":\"hello\"}\n")
            try await run.waitForStdout("{\"op\":\"hello\"}\n")
            try await run.interrupt(expecting: 130)
        },
    ]
}
