import Foundation
import TestSupport

/// README: "loadtest — load you can trust, for CI" and its live metrics.
///
/// A load test that runs for minutes is started, let run until its server has a message
/// (`--hexdump` on the server says when), and stopped with SIGINT: the report and `--json` are
/// written, marked interrupted, with exit status 130.
extension ReadmeRunners {
    static let loadTest: [ReadmeRunner] = [
        ReadmeRunner("sockctl loadtest 127.0.0.1:7000 -c 100 --duration 30s --framing line --message 'ping {{seq}}'") { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "line", "--hexdump")
            run.replace("127.0.0.1:7000", with: server.address)
            try await interruptedLoad(run, server)
            try run.expectStdout(contains: "100 requested")
        },
        ReadmeRunner(#"sockctl loadtest 127.0.0.1:7000 --rate 5000 --duration 1m --warmup 10s --framing crlf --message '{"id":{{seq}},"op":"get","key":"user:{{conn}}"}' --threshold 'p99<50ms' --threshold 'errors<0.1%' --json result.json"#) { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "crlf", "--hexdump")
            run.replace("127.0.0.1:7000", with: server.address)
            try await interruptedLoad(run, server)
            try run.expect(try run.json("result.json")["interrupted"] as? Bool == true, "result.json is not marked interrupted")
        },
        ReadmeRunner("sockctl loadtest 127.0.0.1:7000 --stages 30s:1000,2m:1000,30s:0 --framing length:4 --message-file req.bin") { run in
            try run.write("req.bin", bytes: Array("GET user:1".utf8))
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "length:4", "--hexdump")
            run.replace("127.0.0.1:7000", with: server.address)
            try await interruptedLoad(run, server)
        },
        ReadmeRunner("sockctl loadtest udp://127.0.0.1:5353 --rate 1000 --duration 10s --framing raw") { run in
            let server = try await run.listen("udp://127.0.0.1:0", "--echo", "-v")
            run.replace("127.0.0.1:5353", with: server.address)
            try await interruptedLoad(run, server, sign: "datagram from")
        },
        ReadmeRunner("sockctl loadtest wss://localhost:8443/echo -c 50 --duration 30s --framing raw --cafile ca.pem") { run in
            try await run.certificate("ca.pem")
            let server = try await run.tlsServer(scheme: "wss", path: "/echo", "--echo", "-k", "--hexdump")
            run.replace("localhost:8443", with: "localhost:\(server.port)")
            try await interruptedLoad(run, server)
            try run.expectStdout(contains: "50 requested")
        },
        ReadmeRunner(#"sockctl loadtest 127.0.0.1:7000 --framing line --pipeline 8 --message '{"id":{{seq}},"op":"get"}' --correlate 'json:$.id' --label 'json:$.op' --threshold 'unmatched<1%'"#) { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "line", "--hexdump")
            run.replace("127.0.0.1:7000", with: server.address)
            try await interruptedLoad(run, server)
            try run.expectStdout(contains: "by json:$.op")
        },
        // The README's run stopped its server for 500 ms; the shown lines hold with any figures.
        ReadmeRunner("sockctl loadtest 127.0.0.1:17401 -c 10 --rate 1000 --pipeline 1 --duration 5s --framing line --message 'ping {{seq}}'") { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "line")
            run.replace("127.0.0.1:17401", with: server.address)
            try await run.runToEnd(0)
            try run.expectShownOutput(.allNumbers)
        },
        ReadmeRunner(#"sockctl loadtest 127.0.0.1:7000 -c 3 --requests 3000 --pipeline 4 --framing line --message '{"id":{{seq}},"op":"get","shard":{{conn}}}' --correlate 'json:$.id' --label 'json:$.shard' --threshold 'unmatched<30%'"#) { run in
            let server = try await run.outOfOrderServer(["--batch", "4", "--push", "1", "--step-ms", "5"])
            run.replace("127.0.0.1:7000", with: server.address)
            // A machine busy with other tests can hold a Python reply past the default 5 s wait,
            // which would turn into timeouts and replaced connections the README run did not have.
            run.add("--reply-timeout", "10m")
            try await run.runToEnd(0)
            try run.expectShownOutput(.allNumbers)
        },
        ReadmeRunner("sockctl loadtest 127.0.0.1:7000 --rate 500 --duration 1h --framing line --metrics-listen 9464 --metrics-linger 30s --json soak.json") { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "line")
            run.replace("127.0.0.1:7000", with: server.address)
            run.replace("--metrics-listen 9464", with: "--metrics-listen 0")
            try await run.start()
            try await run.waitForStderr("/metrics\n")
            guard let url = run.stderr.firstMatch(of: #/metrics on (http://127\.0\.0\.1:\d+/metrics)/#).map({ String($0.1) }) else {
                throw ExampleFailure("no 'metrics on http://127.0.0.1:PORT/metrics' line")
            }
            let scrape = try await HTTPResponse.fetch(url)
            try run.expect(scrape.status == 200 && scrape.body.contains("sockctl_loadtest_messages_sent_total"), "the scrape of \(url) has no sockctl_loadtest_messages_sent_total: \(scrape.status) \(scrape.body.prefix(300))")
            // A signal ends the run and the wait for a scrape.
            try await run.interrupt(expecting: 130)
            try run.expect(try run.json("soak.json")["interrupted"] as? Bool == true, "soak.json is not marked interrupted")
        },
    ]

    /// The load test started, stopped with SIGINT once `server` has a message (it says `sign`
    /// on stderr: `--hexdump`'s line, or `-v`'s for a UDP listener).
    static func interruptedLoad(_ run: ExampleRun, _ server: ExampleServer, sign: String = "received from") async throws {
        try await run.start()
        try await run.whileRunning("its server had a message") { try await server.child.waitForStderr(sign) }
        try await run.interrupt(expecting: 130)
        try run.expectStdout(contains: "interrupted stopped before its end")
    }
}

/// README: "Real traffic as load" (`loadtest --from-pcap`).
extension ReadmeRunners {
    static let loadTestFromPcap: [ReadmeRunner] = [
        ReadmeRunner("sockctl listen 7000 --echo -k --framing line --record prod.pcap") { run in
            run.replace("7000", with: "0")
            try await run.start()
            let port = try await run.listeningPort()
            let reply = try await run.sockctl(["send", "127.0.0.1:\(port)", "--framing", "line", "ping 1", "ping 2", "--responses", "2"])
            try run.expect(reply.stdout == "ping 1\nping 2\n", "the client got '\(reply.stdout)'")
            try await run.interrupt(expecting: 0)
            try run.expectFile("prod.pcap")
            let streams = try await run.sockctl(["replay", "prod.pcap", "--list"])
            try run.expect(streams.stdout.contains("     1  tcp "), "prod.pcap holds no TCP stream: \(streams.stdout)")
        },
        ReadmeRunner("sockctl loadtest staging:7000 --from-pcap prod.pcap --framing line --verify-sample 10%") { run in
            try await run.recordLineSessions("prod.pcap", streams: 10, messages: 3)
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "line")
            run.replace("staging:7000", with: server.address)
            try await run.runToEnd(0)
            try run.expectStdout(contains: "0 mismatched")
        },
        ReadmeRunner("sockctl loadtest staging:7000 --from-pcap prod.pcap --streams 1,3,5-9 --scale 4 --speed 2") { run in
            try await run.recordLineSessions("prod.pcap", streams: 10, messages: 3)
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "line")
            run.replace("staging:7000", with: server.address)
            try await run.runToEnd(0)
            try run.expectStdout(contains: "7 streams of prod.pcap × 4 = 28 connections")
        },
        ReadmeRunner("sockctl loadtest staging:7000 --from-pcap prod.pcap --topspeed --loop --duration 5m --threshold 'p99<20ms'") { run in
            try await run.recordLineSessions("prod.pcap", streams: 10, messages: 3)
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "line", "--hexdump")
            run.replace("staging:7000", with: server.address)
            try await interruptedLoad(run, server)
        },
        ReadmeRunner("sockctl loadtest 127.0.0.1:7000 --from-pcap sessions.pcap --framing line --scale 2 --verify-sample 10% --threshold 'p99<100ms'") { run in
            try await run.recordLineSessions("sessions.pcap", streams: 50, messages: 3)
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "line")
            run.replace("127.0.0.1:7000", with: server.address)
            // The threshold is on this machine's latency: either way the shown lines hold.
            try await run.runToEnd(0, 1)
            try run.expectShownOutput(.allNumbers)
        },
        // A new build of the server that answers PONG where the recording has the echo.
        ReadmeRunner("sockctl loadtest 127.0.0.1:7001 --from-pcap sessions.pcap --framing line --streams 1-5 --topspeed --verify-sample 100%") { run in
            try await run.recordLineSessions("sessions.pcap", streams: 50, messages: 3)
            try run.write("pong.txt", "PONG")
            let server = try await run.listen("127.0.0.1:0", "--framing", "line", "--respond", "pong.txt", "-k")
            run.replace("127.0.0.1:7001", with: server.address)
            try await run.runToEnd(1)
            try run.expectShownOutput(.allNumbers)
        },
    ]
}
