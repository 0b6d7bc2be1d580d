import Foundation
import SocketEngine
import TestSupport
import Testing

import Glibc

/// `sockctl proxy` between real clients and real servers (ncat, socat, sockctl's own connect,
/// send, listen and replay, tcpdump), all on loopback.
@Suite("sockctl proxy with real peers", .hangGuard)
struct ProxyInteropTests {
    static let size = 16 << 20

    // MARK: Bulk and half-close

    /// A client sends 16 MiB and ends its output; the server reads to that end and only then
    /// sends its own 16 MiB (`cat > IN; cat REPLY`). Through the proxy both arrive byte for byte:
    /// the client's FIN went up, the server could still answer, and the client got all of it.
    @Test(arguments: ["ncat", "socat"])
    func aClientThatEndsItsOutputStillGetsTheWholeReplyFromSocat(client: String) async throws {
        let scratch = try Scratch()
        let request = try await randomFile(scratch.path("request"), bytes: Self.size)
        let reply = try await randomFile(scratch.path("reply"), bytes: Self.size)
        // `-t 3600`: once the client's end has arrived, socat by default gives the other way only
        // 0.5 s more before it closes, and a loaded machine may need longer for 16 MiB.
        let server = try await Child(
            try tool("socat"),
            ["-d", "-d", "-t", "3600", "TCP-LISTEN:0,bind=127.0.0.1,reuseaddr", "SYSTEM:cat > \(scratch.path("received")); cat \(scratch.path("reply"))"],
            name: "socat-server"
        )
        defer { server.signal(SIGKILL) }
        let proxy = try await RunningProxy(to: "127.0.0.1:\(try await server.socatPort())")
        // ncat shuts its write side down at the end of stdin and reads on; socat does the same
        // and waits for the answer as long as it takes (`-t 3600`).
        let arguments = client == "ncat" ? ["127.0.0.1", "\(proxy.port)"] : ["-t", "3600", "-", "TCP:127.0.0.1:\(proxy.port)"]
        let peer = try await Child(try tool(client), arguments, stdin: .file(scratch.path("request")), name: "\(client)-client")
        #expect(try await peer.wait() == 0, "\(peer.stderr)")
        #expect(try await server.wait() == 0, "\(server.stderr)")
        // Compared as Bools: a failed == on 16 MiB values would make the test library diff them.
        let up = try Data(contentsOf: URL(fileURLWithPath: scratch.path("received"))) == request
        let down = peer.stdout == reply
        #expect(up, "the server got the client's 16 MiB intact")
        #expect(down, "\(peer.stdout.count) of \(reply.count) bytes of the reply reached the client intact")

        try await proxy.child.waitForStderr("disconnected after")
        #expect(proxy.child.stderr.contains("(\(Self.size) bytes up, \(Self.size) bytes down)\n"), "\(proxy.child.stderr)")
        #expect(try await proxy.interrupt() == 0)
        #expect(proxy.child.stderr.contains("summary: 1 client, \(Self.size) bytes up, \(Self.size) bytes down in "), "\(proxy.child.stderr)")
    }

    /// ncat as the server (it closes once its client has ended, so each direction is its own
    /// session): 16 MiB from a socat client into `ncat -l --recv-only`, then 16 MiB from
    /// `ncat -l --send-only` back to a socat client, both intact through the proxy.
    @Test func socatClientAndNcatServerMoveSixteenMebibytesEachWay() async throws {
        let scratch = try Scratch()
        let request = try await randomFile(scratch.path("request"), bytes: Self.size)
        let reply = try await randomFile(scratch.path("reply"), bytes: Self.size)

        let sink = try await Child(try tool("ncat"), ["-v", "-l", "--recv-only", "127.0.0.1", "0"], name: "ncat-sink")
        try await sink.waitForStderr("Ncat: Listening on")
        let upProxy = try await RunningProxy(to: "127.0.0.1:\(try sink.listeningTCPPort())")
        let sender = try await Child(try tool("socat"), ["-t", "3600", "-", "TCP:127.0.0.1:\(upProxy.port)"], stdin: .file(scratch.path("request")), name: "socat-sender")
        #expect(try await sender.wait() == 0, "\(sender.stderr)")
        #expect(try await sink.wait() == 0, "\(sink.stderr)")
        let up = sink.stdout == request
        #expect(up, "\(sink.stdout.count) of \(request.count) bytes reached ncat intact")
        try await upProxy.child.waitForStderr("disconnected after")
        #expect(upProxy.child.stderr.contains("(\(Self.size) bytes up, 0 bytes down)\n"), "\(upProxy.child.stderr)")
        #expect(try await upProxy.interrupt() == 0)

        let source = try await Child(try tool("ncat"), ["-v", "-l", "--send-only", "127.0.0.1", "0"], stdin: .file(scratch.path("reply")), name: "ncat-source")
        try await source.waitForStderr("Ncat: Listening on")
        let downProxy = try await RunningProxy(to: "127.0.0.1:\(try source.listeningTCPPort())")
        // `-u`: socat only reads the connection, and ends when the server's end arrives.
        let receiver = try await Child(try tool("socat"), ["-u", "TCP:127.0.0.1:\(downProxy.port)", "-"], name: "socat-receiver")
        #expect(try await receiver.wait() == 0, "\(receiver.stderr)")
        #expect(try await source.wait() == 0, "\(source.stderr)")
        let down = receiver.stdout == reply
        #expect(down, "\(receiver.stdout.count) of \(reply.count) bytes reached socat intact")
        try await downProxy.child.waitForStderr("disconnected after")
        #expect(downProxy.child.stderr.contains("(0 bytes up, \(Self.size) bytes down)\n"), "\(downProxy.child.stderr)")
        #expect(try await downProxy.interrupt() == 0)
    }

    // MARK: WebSocket to a line stream

    /// `ws → tcp --framing line`: every WebSocket message becomes a line for the server, and
    /// every line the server sends back (however its writes were cut) one message again — in
    /// front of socat's `cat`, which echoes in whatever chunks it read, and of sockctl's own line
    /// echo.
    @Test func webSocketMessagesCrossALineServerAndComeBackAsMessages() async throws {
        let big = String(repeating: "0123456789", count: 10_000)
        let messages = ["one", "two", #"{"x": 3, "y": [1, 2]}"#, "", big]
        let socat = try await Child(try tool("socat"), ["-d", "-d", "-t", "3600", "TCP-LISTEN:0,bind=127.0.0.1,reuseaddr,fork", "EXEC:cat"], name: "socat-echo")
        defer { socat.signal(SIGKILL) }
        let lineEcho = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line", "-k"], name: "line-echo")
        for upstream in [try await socat.socatPort(), try await lineEcho.listeningPort()] {
            let proxy = try await RunningProxy("ws://127.0.0.1:0/", to: "tcp://127.0.0.1:\(upstream)", ["--framing", "line"])
            #expect(proxy.child.stderr.contains("(ws), relaying to"), "\(proxy.child.stderr)")
            let sent = try await run(try sockctlPath(), ["send", "ws://127.0.0.1:\(proxy.port)/"] + messages + ["--responses", "\(messages.count)", "--json"])
            #expect(sent.status == 0, "via \(upstream): \(sent.stderr)")
            let report = try JSONSerialization.jsonObject(with: sent.stdout) as? [String: Any]
            let responses = (report?["responses"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
            #expect(responses == messages, "via \(upstream): \(responses.map { $0.prefix(40) })")

            // connect: each line typed is a message, each message comes back on a line.
            let client = try await Child(try sockctlPath(), ["connect", "ws://127.0.0.1:\(proxy.port)/"], stdin: .pipe, name: "ws-client")
            try client.send("first line\nsecond line\n")
            try await client.waitForStdout("first line\nsecond line\n")
            client.closeStdin()
            #expect(try await client.wait() == 0, "\(client.stderr)")
            #expect(client.stdoutText == "first line\nsecond line\n")

            try await proxy.child.waitForStderr("client 2 from ")
            #expect(try await proxy.interrupt() == 0)
            // Up: the messages as they were; down: the lines, newline included.
            let upBytes = messages.reduce(0) { $0 + $1.utf8.count } + "first line".utf8.count + "second line".utf8.count
            let downBytes = upBytes + messages.count + 2
            #expect(proxy.child.stderr.contains("summary: 2 clients, \(upBytes) bytes up, \(downBytes) bytes down"), "\(proxy.child.stderr)")
        }
        lineEcho.signal(SIGINT)
        #expect(try await lineEcho.wait() == 0)
    }

    // MARK: UDP drops, counted

    /// `drop=30%` on a UDP relay with a fixed seed: datagrams sent one at a time (the next once
    /// the last came back or the proxy reported it dropped) — the ones that never came back are
    /// exactly the drops the proxy counts, in its JSON fault events and in its summary, and the
    /// same seed drops the same datagrams again.
    @Test func udpDatagramsThatNeverCameBackAreExactlyTheDropsCounted() async throws {
        let echo = try await Child(try sockctlPath(), ["listen", "udp://127.0.0.1:0", "--echo"], name: "udp-echo")
        let echoPort = try await echo.listeningPort()
        var patterns: [[Int]] = []
        for round in 0..<2 {
            let proxy = try await RunningProxy(
                "udp://127.0.0.1:0", to: "udp://127.0.0.1:\(echoPort)",
                ["--fault", "drop=30%", "--fault-seed", "7", "--json-log", "--udp-idle-timeout", "1h"]
            )
            let client = try await Child(try tool("socat"), ["-", "UDP:127.0.0.1:\(proxy.port)"], stdin: .pipe, name: "socat-udp")
            defer { client.signal(SIGKILL) }
            var returned: [Int] = []
            var dropped = 0
            /// Sends datagram `number`; true once its echo is back, false once the proxy said it
            /// dropped it.
            func exchange(_ number: Int) async throws -> Bool {
                let token = Self.datagram(number)
                try client.send(token)
                let alreadyDropped = dropped
                let cameBack = try await firstOf(
                    { try await client.waitForStdout(token) },
                    { try await proxy.child.waitForStdout("\"fault\":\"dropped a message", count: alreadyDropped + 1) }
                ) == 0
                if cameBack { returned.append(number) } else { dropped += 1 }
                return cameBack
            }
            let count = 40
            for number in 1...count { _ = try await exchange(number) }
            // Datagrams until one comes back: its echo comes after every earlier one the proxy
            // passed on (one flow, in order), so none is still on its way.
            var sent = count
            while true {
                sent += 1
                if try await exchange(sent) { break }
            }

            #expect(try await proxy.interrupt() == 0)
            client.signal(SIGTERM)
            _ = try await client.wait()
            // Every echo once, and only those the test saw come back.
            #expect(client.stdoutText == returned.map(Self.datagram).joined(), "round \(round)")
            #expect(dropped > 0 && returned.count > count / 3, "round \(round): \(dropped) of \(sent) dropped")
            #expect(dropped == sent - returned.count)

            let events = jsonLines(proxy.child.stdoutText)
            let drops = events.filter { $0["event"] as? String == "fault" }
            #expect(drops.count == dropped, "round \(round): \(drops)")
            #expect(drops.allSatisfy { ($0["fault"] as? String)?.hasPrefix("dropped a message of 5 bytes (fault 1: drop=30%)") == true })
            let droppedUp = drops.filter { $0["direction"] as? String == "up" }.count
            let summary = events.last
            #expect(summary?["event"] as? String == "summary")
            #expect(summary?["dropped"] as? Int == dropped)
            #expect(summary?["clients"] as? Int == 1, "one flow: \(proxy.child.stderr)")
            // What went on: everything not dropped up, and back only what the client got.
            #expect(summary?["bytes_up"] as? Int == 5 * (sent - droppedUp), "round \(round)")
            #expect(summary?["bytes_down"] as? Int == 5 * returned.count, "round \(round)")
            // Every dropped datagram's bytes are accounted as discarded, not lost silently.
            #expect(summary?["discarded_bytes"] as? Int == 5 * dropped)
            #expect(proxy.child.stderr.contains(
                "summary: 1 client, \(5 * (sent - droppedUp)) bytes up, \(5 * returned.count) bytes down, \(dropped) dropped, \(5 * dropped) bytes discarded by faults in "
            ), "\(proxy.child.stderr)")
            patterns.append(returned)
        }
        #expect(patterns[0] == patterns[1], "--fault-seed 7 drops the same datagrams each run")
        echo.signal(SIGINT)
        #expect(try await echo.wait() == 0)
    }

    /// `#001;`, `#002;` …: five bytes each, none a part of another.
    static func datagram(_ number: Int) -> String {
        "#" + String(repeating: "0", count: max(0, 3 - String(number).count)) + "\(number);"
    }

    // MARK: Recording

    /// `--record`: a session through the proxy is a capture tcpdump reads, and `replay --verify`
    /// passes against the server it went to and fails against one that answers differently.
    @Test func aRecordedSessionReadsWithTcpdumpAndReplaysWithVerify() async throws {
        let scratch = try Scratch()
        let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k", "--framing", "line"], name: "echo")
        let echoPort = try await echo.listeningPort()
        let recording = scratch.path("proxied.pcap")
        let proxy = try await RunningProxy(to: "127.0.0.1:\(echoPort)", ["--record", recording])
        try "ping\nhello world\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let session = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(proxy.port)", "--framing", "line"], stdin: .file(scratch.path("input")))
        #expect(session.status == 0, "\(session.stderr)")
        #expect(String(decoding: session.stdout, as: UTF8.self) == "ping\nhello world\n")
        try await proxy.child.waitForStderr("disconnected after")
        // The file is complete once the proxy has exited.
        #expect(try await proxy.interrupt() == 0)

        let decoded = try await run(try tool("tcpdump"), ["-n", "-r", recording])
        #expect(decoded.status == 0, "tcpdump: \(decoded.stderr)")
        let lines = String(decoding: decoded.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.first?.contains("> 127.0.0.1.\(proxy.port): Flags [S], seq ") == true, "\(lines)")
        // The 17 bytes each way, in however many segments the reads made of them.
        func payload(_ sent: (Substring) -> Bool) -> Int {
            lines.filter(sent).compactMap { line in line.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
        }
        #expect(payload { $0.contains("> 127.0.0.1.\(proxy.port): Flags [P.]") } == 17, "\(lines)")
        #expect(payload { $0.contains("127.0.0.1.\(proxy.port) > ") && $0.contains("Flags [P.]") } == 17, "\(lines)")
        #expect(lines.filter { $0.contains("Flags [F.]") }.count == 2, "\(lines)")

        let same = try await run(try sockctlPath(), ["replay", recording, "127.0.0.1:\(echoPort)", "--verify", "--framing", "line", "--topspeed"])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(same.stderr.contains("verify: 2 frames expected, 2 matched, 0 mismatched"), "\(same.stderr)")

        try "ping\n".write(toFile: scratch.path("reply"), atomically: true, encoding: .utf8)
        let other = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--framing", "line", "--respond", scratch.path("reply")], name: "other")
        let otherPort = try await other.listeningPort()
        let differ = try await run(try sockctlPath(), ["replay", recording, "127.0.0.1:\(otherPort)", "--verify", "--framing", "line", "--topspeed"])
        #expect(differ.status == 1, "\(differ.stderr)")
        #expect(String(decoding: differ.stdout, as: UTF8.self).hasPrefix("mismatch in frame 2: differs at byte 0\n"), "\(String(decoding: differ.stdout, as: UTF8.self))")
        #expect(differ.stderr.contains("1 matched, 1 mismatched"), "\(differ.stderr)")
        for server in [echo, other] {
            server.signal(SIGINT)
            #expect(try await server.wait() == 0)
        }
    }

    // MARK: A reconnecting client against faults

    /// `reset-after=3msg`: every connection is reset after three heartbeats; the client reconnects
    /// after its first backoff step (1 s) each time. Counted on the proxy's side (the third
    /// client), in order, and no sooner than three heartbeats plus the backoff, twice. (So many
    /// misses are allowed that only the resets end a connection, however slow the echoes.)
    @Test func aHeartbeatingClientReconnectsAfterEachResetTheProxyInjects() async throws {
        let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k"], name: "echo")
        let proxy = try await RunningProxy(to: "127.0.0.1:\(try await echo.listeningPort())", ["--framing", "line", "--fault", "reset-after=3msg,dir=up"])
        let clock = ContinuousClock()
        let started = clock.now
        let client = try await Child(
            try sockctlPath(),
            ["connect", "127.0.0.1:\(proxy.port)", "--reconnect", "--heartbeat", "ping\\n", "--heartbeat-interval", "100ms", "--heartbeat-misses", "1000", "-v"],
            stdin: .pipe, name: "client"
        )
        try await proxy.child.waitForStderr("client 3 connected from")
        #expect(clock.now - started >= (Duration.milliseconds(300) + .seconds(1)) * 2)
        client.signal(SIGTERM)
        _ = try await client.wait()

        // Both resets are logged (a client's disconnect line may come after the next client's
        // connect: the proxy logs it once both its sides are closed).
        try await proxy.child.waitForStderr(": reset by fault 1: reset-after=3msg,dir=up\n", count: 2)
        let log = proxy.child.stderr
        #expect(appearInOrder(["client 1 connected from", "client 2 connected from", "client 3 connected from"], in: log), "\(log)")
        for number in 1...2 {
            let line = log.split(separator: "\n").first { $0.contains("client \(number) from ") }
            // Three heartbeats went up, whole, before the reset; what came back varies.
            #expect(line?.contains("(15 bytes up, ") == true, "\(log)")
            #expect(line?.hasSuffix(": reset by fault 1: reset-after=3msg,dir=up") == true, "\(log)")
        }
        // Each reset is one the client saw and recovered from with its first backoff step.
        let said = client.stderr
        #expect(appearInOrder(["connection lost:", "connection reset by peer", "reconnecting in 1s (attempt 1 of 5)",
                               "connection lost:", "reconnecting in 1s (attempt 1 of 5)"], in: said), "\(said)")
        #expect(!said.contains("attempt 2 of"), "each reconnect succeeded at once: \(said)")
        #expect(try await proxy.interrupt() == 0)
        #expect(proxy.child.stderr.range(of: #"summary: [0-9]+ clients, .*, [0-9]+ resets in "#, options: .regularExpression) != nil, "\(proxy.child.stderr)")
        echo.signal(SIGINT)
        #expect(try await echo.wait() == 0)
    }

    /// `timeout`: nothing gets through, so the heartbeats go unanswered; the client declares the
    /// peer dead after its three misses (and says so), reconnects after 1 s, and the proxy sees
    /// the second client — not before three intervals and the backoff.
    @Test func aHeartbeatingClientDeclaresTheProxiedPeerDeadAndReconnects() async throws {
        let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k"], name: "echo")
        let proxy = try await RunningProxy(to: "127.0.0.1:\(try await echo.listeningPort())", ["--fault", "timeout"])
        let clock = ContinuousClock()
        let started = clock.now
        let client = try await Child(
            try sockctlPath(),
            ["connect", "127.0.0.1:\(proxy.port)", "--reconnect", "--heartbeat", "ping\\n", "--heartbeat-interval", "200ms", "--heartbeat-misses", "3"],
            stdin: .pipe, name: "client"
        )
        try await client.waitForStderr("peer unresponsive: nothing received for ")
        #expect(clock.now - started >= .milliseconds(600))
        try await proxy.child.waitForStderr("client 2 connected from")
        #expect(clock.now - started >= .milliseconds(1600))
        client.signal(SIGTERM)
        _ = try await client.wait()

        let said = client.stderr
        #expect(appearInOrder(["peer unresponsive: nothing received for ", "reconnecting in 1s (attempt 1 of 5)"], in: said), "\(said)")
        // The silence it measured is at least its three intervals.
        let silence = said.split(separator: "\n").first { $0.contains("nothing received for ") }
            .flatMap { try? Duration(parsing: String($0.split(separator: " ").last ?? "")) }
        #expect(silence.map { $0 >= .milliseconds(600) } == true, "\(said)")
        #expect(!client.stdoutText.contains("ping"), "nothing came back through the timeout")

        // The first client's heartbeats were swallowed: none was forwarded.
        try await proxy.child.waitForStderr("client 1 from ")
        let log = proxy.child.stderr
        #expect(appearInOrder(["client 1 connected from", "client 2 connected from"], in: log), "\(log)")
        let line = log.split(separator: "\n").first { $0.contains("client 1 from ") }
        #expect(line?.hasSuffix("(0 bytes up, 0 bytes down)") == true, "\(log)")
        #expect(try await proxy.interrupt() == 0)
        echo.signal(SIGINT)
        #expect(try await echo.wait() == 0)
    }
}

// MARK: - Helpers shared by the proxy suites

/// `sockctl proxy` as the tests run it: bound to port 0, its port read from the `listening on`
/// line it prints once bound.
struct RunningProxy: Sendable {
    let child: Child
    let port: Int

    init(_ listen: String = "127.0.0.1:0", to upstream: String, _ options: [String] = [], name: String = "proxy") async throws {
        child = try await Child(try sockctlPath(), ["proxy", listen, upstream] + options, name: name)
        port = try await child.listeningPort()
    }

    /// Ctrl-C, as a user stops it; its exit status once it has exited and said all it had to.
    func interrupt() async throws -> Int32 {
        child.signal(SIGINT)
        return try await child.wait()
    }
}

/// The JSON objects of a `--json-log` or `--json` output, one per line.
func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

/// Whether each of `fragments` occurs in `text` after the one before it.
func appearInOrder(_ fragments: [String], in text: String) -> Bool {
    var rest = text[...]
    for fragment in fragments {
        guard let found = rest.range(of: fragment) else { return false }
        rest = rest[found.upperBound...]
    }
    return true
}

/// Which of two awaited events happened first: 0 or 1. The other wait is cancelled; a wait
/// that fails (its stream ended without the event) fails this one.
func firstOf(
    _ first: @escaping @Sendable () async throws -> Void, _ second: @escaping @Sendable () async throws -> Void
) async throws -> Int {
    try await withThrowingTaskGroup(of: Int.self) { group in
        group.addTask { try await first(); return 0 }
        group.addTask { try await second(); return 1 }
        guard let winner = try await group.next() else { throw HarnessError("no event") }
        group.cancelAll()
        return winner
    }
}
