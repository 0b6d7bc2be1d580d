import Foundation
import TestSupport

/// README: "proxy — see, record and break what crosses the wire".
extension ReadmeRunners {
    static let proxy: [ReadmeRunner] = [
        // The PROXY protocol: a v1 header written by hand stands for the proxy in front.
        ReadmeRunner("sockctl listen 7000 --accept-proxy-protocol --echo -k") { run in
            run.replace("7000", with: "127.0.0.1:0")
            try await run.start()
            let port = try await run.listeningPort()
            let reply = try await run.sockctl(["send", "127.0.0.1:\(port)", "PROXY TCP4 192.0.2.7 198.51.100.1 40001 443\r\nping"])
            try run.expect(reply.stdout.contains("ping") && !reply.stdout.contains("PROXY"), "the client got '\(reply.stdout)'")
            try await run.waitForStderr("disconnected")
            try await run.interrupt(expecting: 0)
            try run.expect(run.stderr.contains("client 1 connected from 192.0.2.7:40001\n"), "the carried address was not logged")
        },
        ReadmeRunner("sockctl proxy :8443 tls://10.0.0.5:443 --send-proxy-protocol v2") { run in
            let upstream = try await run.tlsServer("--accept-proxy-protocol", "--echo", "-k")
            run.replace(":8443", with: ":0")
            run.replace("10.0.0.5:443", with: "localhost:\(upstream.port)")
            run.add("--upstream-cafile", try await run.certificates() + "/ca.pem")
            try await run.start()
            let port = try await run.listeningPort()
            let reply = try await run.sockctl(["send", "127.0.0.1:\(port)", "--source", "127.0.0.7", "through"])
            try run.expect(reply.stdout.contains("through"), "the client got '\(reply.stdout)'")
            _ = try await upstream.child.waitForStderr("connected from 127.0.0.7:")
            try await run.interrupt(expecting: 0)
        },
        ReadmeRunner("sockctl proxy :8000 127.0.0.1:7000 --hexdump") { run in
            _ = try await relayed(run, "through the proxy")
            try run.expect((run.stdout + run.stderr).contains( "\t0x0000:  7468 726f 7567 6820 7468 6520 7072 6f78  through.the.prox"), "no hexdump of the message")
        },
        ReadmeRunner("sockctl proxy :8000 tls://api.example.com:443 --framing crlf --print-messages") { run in
            let upstream = try await run.tlsServer("--echo", "-k")
            run.replace(":8000", with: ":0")
            run.replace("api.example.com:443", with: "localhost:\(upstream.port)")
            run.add("--upstream-cafile", try await run.certificates() + "/ca.pem")
            try await run.start()
            let port = try await run.listeningPort()
            let reply = try await run.sockctl(["send", "127.0.0.1:\(port)", "--framing", "crlf", #"{"op":"ping","id":7}"#])
            try run.expect(reply.stdout == "{\"op\":\"ping\",\"id\":7}\n", "the client got '\(reply.stdout)'")
            try await run.interrupt(expecting: 0)
            try run.expect((run.stdout + run.stderr).contains("\"op\": \"ping\""), "no message pretty-printed")
        },
        ReadmeRunner("sockctl proxy ws://:8080/ 127.0.0.1:7000 --framing line") { run in
            let upstream = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "line")
            run.replace("ws://:8080/", with: "ws://:0/")
            run.replace("127.0.0.1:7000", with: upstream.address)
            try await run.start()
            let port = try await run.listeningPort()
            let reply = try await run.sockctl(["send", "ws://127.0.0.1:\(port)/", "a WebSocket message"])
            try run.expect(reply.stdout == "a WebSocket message\n", "the client got '\(reply.stdout)'")
            try await run.interrupt(expecting: 0)
        },
        // Up to twenty datagrams in one go: with 10 % dropped each way, one comes back.
        ReadmeRunner("sockctl proxy udp://:5353 udp://127.0.0.1:53 --fault drop=10%") { run in
            let upstream = try await run.listen("udp://127.0.0.1:0", "--echo")
            run.replace("udp://:5353", with: "udp://:0")
            run.replace("udp://127.0.0.1:53", with: "udp://\(upstream.address)")
            try await run.start()
            let port = try await run.listeningPort()
            let client = try await run.background(try sockctlPath(), ["connect", "udp://127.0.0.1:\(port)", "--framing", "line"], stdin: .pipe, name: "udp client")
            try client.send((1...20).map { "datagram \($0)\n" }.joined())
            try await run.whileRunning("a datagram came back") { try await client.waitForStdout("datagram ") }
            try await run.interrupt(expecting: 0)
        },
        ReadmeRunner("sockctl proxy :8000 127.0.0.1:7000 --record session.pcap") { run in
            _ = try await relayed(run, "recorded")
            try run.expectFile("session.pcap")
        },
        ReadmeRunner("sockctl proxy :8000 127.0.0.1:7000 --json | jq .") { run in
            _ = try await relayed(run, "logged")
            // jq read every line as JSON (else the run fails); the summary is the last object.
            let objects = run.stdout.split(separator: "\n")
            try run.expect(objects.count >= 2, "not one object per event: '\(run.stdout)'")
            try run.expect(objects.contains { $0.contains(#""event":"message","client":1"#) && $0.contains(#""text":"logged""#) }, "no message event for the relayed message")
            try run.expect(objects.last?.contains(#""event":"summary""#) == true, "the last object is not the summary: \(objects.last ?? "")")
        },
        // A HEAD and a GET through the proxy to listen http://: each shown as HTTP, the HEAD's
        // answer without a body (the GET would wait behind it otherwise).
        ReadmeRunner("sockctl proxy :8000 http://127.0.0.1:8080 --print-messages") { run in
            try run.write("hello.txt", "hello world\n")
            let upstream = try await run.listen("http://127.0.0.1:0", "--respond", "hello.txt", "-k")
            run.replace(":8000", with: ":0")
            run.replace("127.0.0.1:8080", with: upstream.address)
            try await run.start()
            let port = try await run.listeningPort()
            try await run.sockctl(["send", "http://127.0.0.1:\(port)/hello", "-X", "HEAD"])
            let reply = try await run.sockctl(["send", "http://127.0.0.1:\(port)/hello"])
            try run.expect(reply.stdout == "hello world\n", "the client got '\(reply.stdout)' through the proxy")
            try await run.interrupt(expecting: 0)
            try run.expectStdout(contains: "client 1 > HEAD /hello HTTP/1.1\n  Host: 127.0.0.1:\(port)\n")
            try run.expectStdout(contains: "client 1 < HTTP/1.1 200 OK\n")
            try run.expectStdout(contains: "  Content-Length: 12\n\n  hello world\\n\n")
        },
        ReadmeRunner("sockctl proxy :8000 127.0.0.1:7000 --control unix:/tmp/proxy.ctl &") { run in
            run.replace("/tmp/proxy.ctl", with: run.path("proxy.ctl"))
            _ = try await relayed(run, "controlled") { run in
                let answer = try await run.sockctl(["send", "unix:\(run.path("proxy.ctl"))", "list", "--framing", "line"])
                try run.expect(answer.stdout.hasPrefix("ok"), "the control socket answered '\(answer.stdout)'")
            }
        },
        ReadmeRunner("sockctl send unix:/tmp/proxy.ctl 'add stall=10s,every=30s,dir=down' list --framing line --responses 2") { run in
            try await run.proxyWithControl("proxy.ctl")
            run.replace("/tmp/proxy.ctl", with: run.path("proxy.ctl"))
            try await run.runToEnd(0)
            try run.expect(run.stdout.hasPrefix("ok") && run.stdout.split(separator: "\n").count == 2, "not two answers: '\(run.stdout)'")
        },
        ReadmeRunner("sockctl proxy :8000 127.0.0.1:7000 --framing line --control unix:/tmp/flaky.ctl -v &") { run in
            run.replace("/tmp/flaky.ctl", with: run.path("flaky.ctl"))
            _ = try await relayed(run, "flaky", framing: "line")
            try await run.waitForStderr("client 1 connected")
        },
        ReadmeRunner(#"sockctl connect 127.0.0.1:8000 --framing line --reconnect 10 --heartbeat '{"op":"ping"}\n' --heartbeat-interval 1s --heartbeat-misses 3 -v"#) { run in
            let proxy = try await run.proxyWithControl("flaky.ctl")
            run.replace("127.0.0.1:8000", with: proxy.address)
            try await run.start()
            // The first heartbeat, through the proxy and the echo, is the peer's sign of life.
            try await run.waitForStdout("{\"op\":\"ping\"}\n")
            try await run.interrupt(expecting: 130)
        },
        ReadmeRunner("sockctl send unix:/tmp/flaky.ctl 'add reset-after=20msg' --framing line") { run in
            try await run.proxyWithControl("flaky.ctl")
            run.replace("/tmp/flaky.ctl", with: run.path("flaky.ctl"))
            try await run.runToEnd(0)
            try run.expect(run.stdout.hasPrefix("ok"), "the control socket answered '\(run.stdout)'")
        },
        ReadmeRunner("sockctl send unix:/tmp/flaky.ctl 'clear' 'add timeout' --framing line --responses 2") { run in
            try await run.proxyWithControl("flaky.ctl")
            run.replace("/tmp/flaky.ctl", with: run.path("flaky.ctl"))
            try await run.runToEnd(0)
            try run.expect(run.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("ok") }, "not two 'ok' answers: '\(run.stdout)'")
        },
        ReadmeRunner("sockctl send unix:/tmp/flaky.ctl 'clear' 'add latency=800ms,jitter=400ms' --framing line --responses 2") { run in
            try await run.proxyWithControl("flaky.ctl")
            run.replace("/tmp/flaky.ctl", with: run.path("flaky.ctl"))
            try await run.runToEnd(0)
            try run.expect(run.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("ok") }, "not two 'ok' answers: '\(run.stdout)'")
        },
    ]

    /// `api.pcap` as README's HTTP replay says it was made: `listen http:// --respond hello.txt -k
    /// --record api.pcap` (with `recordedHeaders`) asked for a page by `send`, then stopped with
    /// Ctrl-C; returns the server started again (with `headers`) for the replay to verify against.
    static func recordHTTP(_ run: ExampleRun, headers: [String], recordedHeaders: [String] = []) async throws -> ExampleServer {
        try run.write("hello.txt", "hello world\n")
        let recorded = try await run.listen(["http://127.0.0.1:0", "--respond", "hello.txt", "-k", "--record", "api.pcap"] + recordedHeaders)
        try await run.sockctl(["send", "http://\(recorded.address)/hello"])
        recorded.child.signal(SIGINT)
        let status = try await recorded.child.wait()
        try run.expect(status == 0, "the recording listen exited with \(status)")
        return try await run.listen(["http://127.0.0.1:0", "--respond", "hello.txt", "-k"] + headers)
    }

    /// A proxy example `sockctl proxy :8000 127.0.0.1:7000 …` started in front of an echo
    /// server, a message relayed both ways (and `more` done), then Ctrl-C.
    static func relayed(_ run: ExampleRun, _ message: String, framing: String? = nil, more: (ExampleRun) async throws -> Void = { _ in }) async throws -> ExampleServer {
        let upstream = try await run.listen(["127.0.0.1:0", "--echo", "-k"] + (framing.map { ["--framing", $0] } ?? []))
        run.replace(":8000", with: ":0")
        run.replace("127.0.0.1:7000", with: upstream.address)
        try await run.start()
        let port = try await run.listeningPort()
        let reply = try await run.sockctl(["send", "127.0.0.1:\(port)", message] + (framing.map { ["--framing", $0] } ?? []))
        try run.expect(reply.stdout.hasPrefix(message), "the client got '\(reply.stdout)' through the proxy, not its echo")
        try await more(run)
        try await run.interrupt(expecting: 0)
        return upstream
    }
}

/// README: "record and replay — regression tests from a real session".
extension ReadmeRunners {
    static let recordAndReplay: [ReadmeRunner] = [
        ReadmeRunner(#"printf '{"op":"login","user":"ann"}\n{"op":"ping","ts":1700000000}\n' | sockctl connect 127.0.0.1:7700 --framing crlf --record demo.pcap -v"#) { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "--framing", "crlf")
            run.replace("127.0.0.1:7700", with: server.address)
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
        ReadmeRunner("sockctl replay demo.pcap --list") { run in
            try await run.recordDemo("demo.pcap")
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
        ReadmeRunner("sockctl replay demo.pcap 127.0.0.1:7700 --framing crlf --verify") { run in
            try await run.recordDemo("demo.pcap")
            let server = try await run.listen("127.0.0.1:0", "--echo", "--framing", "crlf")
            run.replace("127.0.0.1:7700", with: server.address)
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
        // A new build of the server that answers differently.
        ReadmeRunner("sockctl replay demo.pcap 127.0.0.1:7701 --framing crlf --verify") { run in
            try await run.recordDemo("demo.pcap")
            try run.write("pong.json", #"{"op":"pong","ts":1799999999}"#)
            let server = try await run.listen("127.0.0.1:0", "--framing", "crlf", "--respond", "pong.json")
            run.replace("127.0.0.1:7701", with: server.address)
            try await run.runToEnd(1)
            // The replay stops at the first mismatch: the second answer may or may not be in by then.
            try run.expectShownOutput(ShownOutput.Rules(varyingPhrases: [#"received \d+ bytes"#]))
        },
        ReadmeRunner("sockctl replay api.pcap http://127.0.0.1:8080/ --verify") { run in
            let server = try await recordHTTP(run, headers: [])
            run.replace("127.0.0.1:8080", with: server.address)
            try await run.runToEnd(0)
            try run.expect(run.stderr.contains("verify: 1 frame expected, 1 matched, 0 mismatched"), "the answer did not match")
        },
        ReadmeRunner(#"sockctl replay api.pcap http://127.0.0.1:8080/ --verify --ignore '(?im)^set-cookie:[^\r\n]*\r?\n'"#) { run in
            let server = try await recordHTTP(run, headers: ["-H", "Set-Cookie: id=2"], recordedHeaders: ["-H", "Set-Cookie: id=1"])
            // Without the pattern, the cookie differs.
            let plain = try await run.sockctl(["replay", "api.pcap", "http://\(server.address)/", "--verify"], status: 1)
            try run.expect(plain.stderr.contains("differ from the recording"), "the cookies did not differ: \(plain.stderr)")
            run.replace("127.0.0.1:8080", with: server.address)
            try await run.runToEnd(0)
            try run.expect(run.stderr.contains("verify: 1 frame expected, 1 matched, 0 mismatched"), "the answer did not match")
        },
        ReadmeRunner("sockctl replay demo.pcap --list --json") { run in
            try await run.recordDemo("demo.pcap")
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
    ]
}
