import Foundation
import SocketEngine
import TestSupport
import Testing

import Glibc

/// `sockctl loadtest` and `sockctl report merge` against real servers on loopback: the numbers
/// must be what happened. Runs are bounded by --requests (or a short --duration where the run is
/// about a duration); only what does not depend on the machine's speed is asserted here. The
/// figures that do — latency against a delay, rate accuracy, a stall, 10,000 connections — are
/// measured by `make bench`, and the timing rules are checked in virtual time (LoadGenTests).
@Suite("sockctl loadtest", .hangGuard)
struct LoadTestCommandTests {
    /// A `sockctl listen` on 127.0.0.1 with a kernel-chosen port, or on a Unix socket (whose path
    /// a restarted server takes again); killed at the end of the test.
    struct Server {
        let child: Child
        let target: String

        static func start(_ arguments: [String], on endpoint: String = "127.0.0.1:0") async throws -> Server {
            let child = try await Child(try sockctlPath(), ["listen", endpoint, "-k"] + arguments, name: "listener")
            if endpoint.hasPrefix("unix:") {
                try await child.waitForStderr("listening on")
                return Server(child: child, target: endpoint)
            }
            return Server(child: child, target: "127.0.0.1:\(try await child.listeningPort())")
        }
    }

    /// The JSON report of a run.
    struct Result: @unchecked Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
        let json: [String: Any]

        func number(_ path: String) -> Double? {
            var value: Any? = json
            for key in path.split(separator: "/") { value = (value as? [String: Any])?[String(key)] }
            return (value as? NSNumber)?.doubleValue
        }

        func int(_ path: String) -> Int { Int(number(path) ?? -1) }

        var errors: [String: Int] { json["errors"] as? [String: Int] ?? [:] }
    }

    /// Runs `sockctl loadtest ARGUMENTS --json FILE`; `during` runs beside it (with the child).
    func loadtest(_ arguments: [String], during: (@Sendable (Child) async throws -> Void)? = nil) async throws -> Result {
        let scratch = try Scratch()
        let file = scratch.path("result.json")
        let child = try await Child(try sockctlPath(), ["loadtest"] + arguments + ["--json", file], name: "loadtest")
        if let during { try await during(child) }
        let status = try await child.wait()
        try await child.waitForEndOfStdout()
        let data = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Result(status: status, stdout: child.stdoutText, stderr: child.stderr, json: json)
    }

    /// Every message sent is answered, timed out or lost; nothing else.
    func expectAccounted(_ result: Result, sourceLocation: SourceLocation = #_sourceLocation) {
        let sent = result.int("messages/sent")
        let accounted = result.int("messages/received") + result.int("messages/timed_out") + result.int("messages/lost")
        #expect(sent > 0 && sent == accounted, "sent \(sent) != received + timed out + lost \(accounted)", sourceLocation: sourceLocation)
    }

    /// Replies that come 10 ms after each message: every one is matched and timed, none faster
    /// than the delay (what the latency is, precisely, `make bench` measures).
    @Test(arguments: ["events", "threads"])
    func latencyOfADelayedEchoIsAtLeastTheDelay(io: String) async throws {
        let server = try await Server.start(["--echo", "--framing", "line", "--delay", "10ms"])
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest([server.target, "-c", "10", "--requests", "500", "--framing", "line", "--message", "ping {{seq}}", "--io", io])
        #expect(result.status == 0, "\(result.stderr)")
        let p50 = try #require(result.number("latency/corrected/p50"))
        #expect(p50 >= 10_000, "p50 \(p50) µs, the delay is 10 ms")
        #expect(result.int("messages/sent") == 500)
        #expect(result.int("latency/corrected/count") == 500)
        expectAccounted(result)
        #expect(result.stdout.contains("latency     send to reply:"))
        #expect((result.json["config"] as? [String: Any])?["io"] as? String == io)
    }

    /// A message that already ends in its framing's delimiter is sent once, not followed by an
    /// empty message (whose echo a line server would send back as a surplus reply, taken for the
    /// next message's): 20 messages of `ping\n` are 100 bytes, each answered once.
    @Test(arguments: ["events", "threads"])
    func aMessageEndingInItsDelimiterIsOneMessage(io: String) async throws {
        let server = try await Server.start(["--echo", "--framing", "line"])
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest([server.target, "-c", "1", "--requests", "20", "--framing", "line", "--message", "ping\\n", "--io", io])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 20)
        #expect(result.int("bytes/sent") == 100, "\(result.json["bytes"] ?? "")")
        #expect(result.int("messages/received") == 20)
        expectAccounted(result)
    }

    /// A server that never answers: every message times out (counted as such, with the error
    /// kind `timeout`), and its connection is closed and reopened for the next.
    @Test(arguments: ["events", "threads"])
    func anUnansweredMessageTimesOutAndItsConnectionIsReopened(io: String) async throws {
        let server = try await Server.start(["--discard"])
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest([server.target, "-c", "2", "--requests", "4", "--framing", "line", "--reply-timeout", "200ms", "--io", io])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/timed_out") == 4, "\(result.json["messages"] ?? "")")
        #expect(result.int("messages/received") == 0)
        #expect(result.errors["timeout"] == 4, "\(result.errors)")
        #expect(result.int("connections/established") >= 4)
        #expect(result.stdout.contains("no reply within 200ms"), "\(result.stdout)")
        expectAccounted(result)
    }

    /// `--io threads` at one connection (polling for replies when a core is free): an exact
    /// count of pipelined messages, each answered once.
    @Test func oneThreadedConnectionSendsExactlyTheRequests() async throws {
        let server = try await Server.start(["--echo"])
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest(
            [server.target, "-c", "1", "--requests", "20000", "--pipeline", "4", "--framing", "line", "--message", "m {{seq}}", "--io", "threads"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 20_000)
        #expect(result.int("messages/received") == 20_000)
        #expect(result.int("bytes/sent") == result.int("bytes/received"))
        #expect(result.int("latency/corrected/count") == 20_000)
        #expect(result.stdout.contains("a thread per connection"), "\(result.stdout)")
        #expect(result.int("connections/established") == 1)
    }

    /// `--io threads` with more connections than threads: the connections share `--threads`
    /// threads (epoll), every message answered in order, each connection opened once.
    @Test func manyConnectionsShareTheThreads() async throws {
        let server = try await Server.start(["--echo", "--max-clients", "300"])
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest(
            [server.target, "-c", "40", "--threads", "2", "--requests", "20000", "--pipeline", "3", "--framing", "line", "--message", "m {{seq}} {{conn}}", "--io", "threads"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 20_000)
        #expect(result.int("messages/received") == 20_000)
        #expect(result.int("bytes/sent") == result.int("bytes/received"))
        #expect(result.int("connections/established") == 40)
        #expect(result.int("config/threads") == 2)
        #expect(result.stdout.contains("2 threads of plain system calls"), "\(result.stdout)")
    }

    /// A Unix stream socket as the target, on event loops and on threads.
    @Test(arguments: ["events", "threads"])
    func aUnixSocketTargetIsLoaded(io: String) async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo"], on: "unix:\(scratch.path("echo.sock"))")
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest([server.target, "-c", "2", "--requests", "3000", "--pipeline", "2", "--framing", "line", "--io", io])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 3000)
        #expect(result.int("messages/received") == 3000)
        #expect((result.json["config"] as? [String: Any])?["io"] as? String == io)
    }

    /// `--io auto`: threads when the run allows it, waits for replies, and either leaves a core
    /// free or opens plain connections (no TLS handshake or upgrade to wait for on a thread);
    /// event loops otherwise.
    @Test func autoUsesThreadsWhenTheRunAllowsIt() async throws {
        let server = try await Server.start(["--echo", "--max-clients", "300"])
        defer { server.child.signal(SIGKILL) }
        let webSocket = try await Server.start(["--echo", "--max-clients", "300"], on: "ws://127.0.0.1:0")
        defer { webSocket.child.signal(SIGKILL) }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        func io(_ target: String, _ arguments: [String]) async throws -> String? {
            let result = try await loadtest([target, "--requests", "200", "--framing", "line"] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            return (result.json["config"] as? [String: Any])?["io"] as? String
        }
        #expect(try await io(server.target, ["-c", "1"]) == "threads")
        #expect(try await io(server.target, ["-c", "\(cores + 2)"]) == "threads")
        #expect(try await io("ws://\(webSocket.target)/", ["-c", "1"]) == (cores > 1 ? "threads" : "events"))
        #expect(try await io("ws://\(webSocket.target)/", ["-c", "\(cores)"]) == "events")
        #expect(try await io(server.target, ["-c", "1", "--rate", "1000"]) == "events")
        // Send-only (no --framing): the event loops, which write the prepared runs with less CPU.
        let sendOnly = try await loadtest([server.target, "--requests", "200", "-c", "1"])
        #expect(sendOnly.status == 0, "\(sendOnly.stderr)")
        #expect((sendOnly.json["config"] as? [String: Any])?["io"] as? String == "events")
    }

    /// Open loop: the schedule says how many messages are due (rate × duration); each is sent
    /// or counted as unsent, and each sent one answered. (How close to the rate a run gets is
    /// `make bench`'s measurement.)
    @Test func anOpenLoopRunAccountsForEveryMessageItsRateMakesDue() async throws {
        let server = try await Server.start(["--echo"])
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest([server.target, "-c", "10", "--rate", "2000", "--duration", "1s", "--framing", "line"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/intended") == 2000)
        let sent = result.int("messages/sent")
        #expect(sent > 0 && sent + result.int("messages/unsent") == 2000, "sent \(sent), unsent \(result.int("messages/unsent"))")
        expectAccounted(result)
        #expect(result.stdout.contains("open loop"))
    }

    /// A server that goes away mid-run and comes back (on the same Unix socket path): the
    /// connections it had are lost — with the message each had in flight — and reopened; the
    /// run still sends exactly its --requests, and every message is accounted for.
    @Test(arguments: ["events", "threads"])
    func aServerThatDiesAndComesBackIsCountedNotHidden(io: String) async throws {
        let scratch = try Scratch()
        let endpoint = "unix:\(scratch.path("flaky.sock"))"
        // The first server takes each connection's first message and never answers: it dies
        // once all five have theirs in flight (its hexdump shows each as it arrives).
        let first = try await Server.start(["--discard", "--hexdump"], on: endpoint)
        let restarted = AsyncMonitor<Child?>(nil)
        defer { restarted.value?.signal(SIGKILL) }
        // No reply timeout in sight: the messages in flight are lost with their connections.
        let result = try await loadtest([endpoint, "-c", "5", "--requests", "500", "--framing", "line", "--reply-timeout", "600s", "--io", io]) { _ in
            try await first.child.waitForStderr("< received from", count: 5)
            first.child.signal(SIGKILL)
            _ = try await first.child.wait()
            let again = try await Server.start(["--echo"], on: endpoint)
            restarted.update { $0 = again.child }
        }
        #expect(result.status == 0, "\(result.stderr)")
        expectAccounted(result)
        #expect(result.int("messages/sent") == 500)
        // The five connections the first server held are lost, each with its message. A
        // reconnect can also land in the dying server's backlog before the kernel closes its
        // listening socket: it too is lost with its one message, and counted the same way.
        let lost = result.int("connections/lost")
        #expect(lost >= 5)
        #expect(result.int("messages/lost") == lost)
        #expect(result.int("messages/received") == 500 - lost)
        #expect(result.int("connections/established") >= 5 + lost)
        #expect((result.errors["closed-by-peer"] ?? 0) + (result.errors["reset"] ?? 0) == lost, "\(result.errors)")
    }

    @Test(arguments: ["events", "threads"])
    func aViolatedThresholdFailsTheRunAndSaysWhich(io: String) async throws {
        let server = try await Server.start(["--echo"])
        defer { server.child.signal(SIGKILL) }
        let failing = try await loadtest([server.target, "-c", "2", "--requests", "200", "--framing", "line", "--io", io, "--threshold", "p99<1us", "--threshold", "errors<1%"])
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("threshold p99<1us violated"))
        #expect(!failing.stderr.contains("errors<1% violated"))
        #expect(failing.stdout.contains("p99<1us VIOLATED"))
        let passing = try await loadtest([server.target, "-c", "2", "--requests", "200", "--framing", "line", "--io", io, "--threshold", "p99<3600s", "--threshold", "errors<1%", "--threshold", "rate>0"])
        #expect(passing.status == 0, "\(passing.stderr)")
        #expect(passing.stdout.contains("p99<3600s passed"))
        #expect(passing.int("messages/sent") == 200)
        #expect(passing.int("messages/received") == 200)
        let results = passing.json["thresholds"] as? [[String: Any]] ?? []
        #expect(results.count == 3 && results.allSatisfy { $0["passed"] as? Bool == true })
    }

    @Test(arguments: ["events", "threads"])
    func aTargetNobodyListensOnFailsWithTheReason(io: String) async throws {
        let closed = try ClosedPort()
        let result = try await loadtest(["127.0.0.1:\(closed.port)", "-c", "3", "--requests", "30", "--framing", "line", "--io", io])
        #expect(result.status == 1)
        #expect(result.stderr.contains("only 0 of 3 connections could be opened"), "\(result.stderr)")
        #expect(result.errors["refused"] ?? 0 >= 3)
        #expect(result.int("messages/sent") == 0)
        withExtendedLifetime(closed) {}
    }

    /// Three runs at once, merged: counters and histograms are the sums of the parts.
    @Test func reportMergeAddsThreeRunsExactly() async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo", "--max-clients", "100"])
        defer { server.child.signal(SIGKILL) }
        let runs = try await withThrowingTaskGroup(of: Result.self) { group in
            for _ in 0..<3 {
                group.addTask { try await loadtest([server.target, "-c", "4", "--requests", "800", "--framing", "line", "--message", "m{{seq}}"]) }
            }
            var all: [Result] = []
            for try await result in group { all.append(result) }
            return all
        }
        for run in runs { #expect(run.status == 0, "\(run.stderr)") }
        var files: [String] = []
        for (index, run) in runs.enumerated() {
            let path = scratch.path("part-\(index).json")
            try JSONSerialization.data(withJSONObject: run.json).write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        let merged = try await run(try sockctlPath(), ["report", "merge"] + files + ["--json", scratch.path("merged.json"), "--threshold", "errors<1"])
        #expect(merged.status == 0, "\(merged.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("merged.json")))) as? [String: Any])
        let combined = Result(status: 0, stdout: "", stderr: "", json: json)
        #expect(combined.int("hosts") == 3)
        for key in ["messages/sent", "messages/received", "bytes/sent", "bytes/received", "connections/established", "connections/peak_open"] {
            #expect(combined.int(key) == runs.map { $0.int(key) }.reduce(0, +), "\(key)")
        }
        #expect(combined.int("latency/corrected/count") == runs.map { $0.int("latency/corrected/count") }.reduce(0, +))
        #expect(String(decoding: merged.stdout, as: UTF8.self).contains("(3 runs merged)"))
        // A merge of one report is that report.
        let single = try await run(try sockctlPath(), ["report", "merge", files[0], "--json", "-"])
        let again = try #require(try JSONSerialization.jsonObject(with: single.stdout) as? [String: Any])
        let once = Result(status: 0, stdout: "", stderr: "", json: again)
        for key in ["latency/corrected/p50", "latency/corrected/p99", "latency/corrected/max", "latency/uncorrected/p99.9"] {
            #expect(once.number(key) == runs[0].number(key), "\(key)")
        }
        // Not a result file: one line, exit 1.
        try Data("{}".utf8).write(to: URL(fileURLWithPath: scratch.path("empty.json")))
        let bad = try await run(try sockctlPath(), ["report", "merge", scratch.path("empty.json")])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("not a sockctl load-test result"))
    }

    /// The histogram in the JSON is HdrHistogram's standard encoding: the reference Python
    /// implementation decodes it to the same counts and percentiles.
    @Test func theHistogramDecodesWithTheReferenceImplementation() async throws {
        let python = packageRoot.appendingPathComponent(".venv-test/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw HarnessError("\(python) is missing: `make test` creates it (pip install hdrhistogram)")
        }
        let server = try await Server.start(["--echo", "--delay", "2ms"])
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest([server.target, "-c", "8", "--requests", "2000", "--framing", "line"])
        #expect(result.status == 0, "\(result.stderr)")
        let histograms = try #require(result.json["histograms"] as? [String: Any])
        let encoded = try #require(histograms["corrected"] as? String)
        let script = """
            import sys
            from hdrh.histogram import HdrHistogram
            h = HdrHistogram.decode(sys.argv[1])
            print(h.get_total_count(), h.get_value_at_percentile(50), h.get_value_at_percentile(99), h.get_max_value())
            """
        let decoded = try await run(python, ["-c", script, encoded])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let fields = String(decoding: decoded.stdout, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        try #require(fields.count == 4)
        #expect(Int(fields[0]) == 2000)
        // Same bucket: within HdrHistogram's 3-significant-digit resolution.
        for (value, ours) in [(fields[1], result.number("latency/corrected/p50")), (fields[2], result.number("latency/corrected/p99")), (fields[3], result.number("latency/corrected/max"))] {
            let mine = try #require(ours) * 1000
            #expect(abs(value - mine) <= mine * 0.002 + 1, "reference \(value) ns, ours \(mine) ns")
        }
    }

    /// Over UDP every message is a datagram and every datagram that comes back a reply; the
    /// ones that do not are timed out or lost, never hidden.
    @Test func udpMessagesAreDatagrams() async throws {
        let child = try await Child(try sockctlPath(), ["listen", "udp://127.0.0.1:0", "--echo"], name: "udp-listener")
        defer { child.signal(SIGKILL) }
        let port = try await child.listeningPort()
        let result = try await loadtest(["udp://127.0.0.1:\(port)", "-c", "2", "--requests", "1000", "--framing", "raw", "--message", "dgram {{seq}}"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 1000)
        #expect(result.int("messages/received") > 0)
        expectAccounted(result)
    }

    /// `--stages 1s:1000,1s:0`: a ramp up to 1,000/s and back down over the same connections
    /// schedules 500 + 500 messages.
    @Test func stagesRampTheRateOverTheSameConnections() async throws {
        let server = try await Server.start(["--echo"])
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest([server.target, "-c", "4", "--stages", "1s:1000,1s:0", "--framing", "line"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/intended") == 1000)
        #expect(result.int("messages/sent") + result.int("messages/unsent") == 1000)
        #expect(result.int("connections/established") == 4)
        expectAccounted(result)
        #expect(result.stdout.contains("open loop, stages 1s:1000,1s:0"))
    }

    /// Replies longer than --max-frame: each closes its connection and counts as a framing
    /// error; the messages on it are lost, not hidden.
    @Test(arguments: ["events", "threads"])
    func oversizedRepliesAreFramingErrors(io: String) async throws {
        let server = try await Server.start(["--echo"])
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest(
            [server.target, "-c", "2", "--requests", "20", "--framing", "line", "--max-frame", "8", "--io", io, "--message", "a message longer than eight bytes"])
        #expect((result.errors["framing"] ?? 0) >= 2, "\(result.errors)")
        #expect(result.int("messages/received") == 0)
        expectAccounted(result)
        #expect(result.stdout.contains("framing: "))
    }

    /// Out of file descriptors (EMFILE): counted as `fd-exhausted`, apart from what the server
    /// did, with the fix in a warning; the run fails since the connections were not opened.
    @Test(arguments: ["events", "threads"])
    func runningOutOfDescriptorsIsCountedAndExplained(io: String) async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo", "--max-clients", "1000"])
        defer { server.child.signal(SIGKILL) }
        let json = scratch.path("emfile.json")
        let result = try await run(
            try tool("prlimit"),
            ["--nofile=60:60", try sockctlPath(), "loadtest", server.target, "-c", "200", "--requests", "400", "--framing", "line", "--io", io, "--json", json])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the file-descriptor limit is 60"), "\(result.stderr)")
        #expect(result.stderr.contains("ulimit -n"))
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any] ?? [:]
        #expect(((report["errors"] as? [String: Int])?["fd-exhausted"] ?? 0) > 0, "\(String(describing: report["errors"]))")
    }

    /// `--source` binds every load connection, on the event loops and on threads: the server
    /// (which admits only that address) sees it; a bracketed IPv6 address with a port is read as
    /// one (the load test once resolved `::1]:0`).
    @Test(arguments: [("127.0.0.5", "127.0.0.1:0", "127.0.0.5/32", "127.0.0.5:"), ("[::1]:0", "[::1]:0", "::1", "[::1]:")], ["events", "threads"])
    func loadConnectionsBindTheSourceAddress(source: (flag: String, listen: String, allow: String, seen: String), io: String) async throws {
        let child = try await Child(try sockctlPath(), ["listen", source.listen, "-k", "-v", "--echo", "--allow", source.allow], name: "listener")
        defer { child.signal(SIGKILL) }
        let port = try await child.listeningPort()
        let host = source.listen.hasPrefix("[") ? "[::1]" : "127.0.0.1"
        let result = try await loadtest([
            "\(host):\(port)", "--source", source.flag, "-c", "2", "--requests", "20", "--framing", "line", "--message", "ping {{seq}}", "--io", io,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/received") == 20)
        try await child.waitForStderr("connected from \(source.seen)", count: 2)
        #expect(!child.stderr.contains("refused"), "\(child.stderr)")
    }

    @Test(arguments: [
        (["--duration", "1s", "--requests", "10"], "--duration or --requests, not both"),
        (["--rate", "0"], "--rate must be a positive number"),
        (["--threshold", "p98<5ms"], "unknown metric 'p98'"),
        (["--stages", "10s"], "invalid stage '10s'"),
        (["-c", "0"], "--connections must be a whole number"),
        (["--pipeline", "4"], "--pipeline needs --framing"),
        (["--warmup", "1s", "--requests", "5"], "--warmup and --requests exclude each other"),
        (["--interface", "nosuch0", "--requests", "5"], "unknown interface 'nosuch0'"),
        (["--io", "fast"], "invalid --io 'fast' (expected one of auto, events or threads)"),
        (["--io", "threads", "--framing", "line", "--rate", "100"], "--io threads: it runs closed loop only"),
    ] as [([String], String)])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) async throws {
        let result = try await run(try sockctlPath(), ["loadtest", "127.0.0.1:9"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
