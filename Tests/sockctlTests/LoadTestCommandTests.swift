import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `sockctl loadtest` and `sockctl report merge` against real servers on loopback: the numbers
/// must be what happened. Each run is bounded by --duration or --requests.
@Suite("sockctl loadtest", .serialized)
struct LoadTestCommandTests {
    /// A `sockctl listen` on 127.0.0.1 with a kernel-chosen port; killed at the end of the test.
    struct Server {
        let child: Child
        let port: Int

        static func start(_ arguments: [String], scratch: Scratch, port: Int = 0) async throws -> Server {
            let child = try Child(try sockctlPath(), ["listen", "127.0.0.1:\(port)", "-k"] + arguments, scratch: scratch, name: "listener")
            return Server(child: child, port: try await child.listeningPort())
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
    }

    func loadtest(_ arguments: [String], scratch: Scratch, timeout: Duration = .seconds(120), during: (() async throws -> Void)? = nil) async throws -> Result {
        let file = scratch.path("result-\(UUID().uuidString.prefix(6)).json")
        let child = try Child(try sockctlPath(), ["loadtest"] + arguments + ["--json", file], scratch: scratch, name: "loadtest")
        if let during { try await during() }
        let status = try await child.wait(timeout: timeout)
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

    @Test(arguments: ["events", "threads"])
    func latencyOfADelayedEchoIsTheDelay(io: String) async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo", "--framing", "line", "--delay", "10ms"], scratch: scratch)
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest(["127.0.0.1:\(server.port)", "-c", "10", "--duration", "3s", "--framing", "line", "--message", "ping {{seq}}", "--io", io], scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let p50 = try #require(result.number("latency/corrected/p50"))
        #expect(p50 >= 10_000 && p50 <= 12_000, "p50 \(p50) µs, expected 10-12 ms")
        #expect(result.int("latency/corrected/count") == result.int("messages/received"))
        expectAccounted(result)
        #expect(result.stdout.contains("latency     send to reply:"))
        #expect((result.json["config"] as? [String: Any])?["io"] as? String == io)
    }

    /// A reply later than --timeout: the message times out (counted as such, with the error
    /// kind `timeout`) and its connection is closed and reopened.
    @Test(arguments: ["events", "threads"])
    func aLateReplyTimesOutAndItsConnectionIsReopened(io: String) async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo", "--framing", "line", "--delay", "600ms"], scratch: scratch)
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest(
            ["127.0.0.1:\(server.port)", "-c", "2", "--duration", "2s", "--framing", "line", "--timeout", "200ms", "--io", io], scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/timed_out") >= 4, "\(result.json["messages"] ?? "")")
        #expect(result.int("messages/received") == 0)
        #expect((result.json["errors"] as? [String: Int])?["timeout"] ?? 0 >= 4)
        #expect(result.int("connections/lost") >= 4)
        #expect(result.int("connections/established") >= 6)
        #expect(result.stdout.contains("no reply within 200ms"), "\(result.stdout)")
        expectAccounted(result)
    }

    /// `--io threads` at one connection (polling for replies when a core is free): an exact
    /// count of pipelined messages, each answered once.
    @Test func oneThreadedConnectionSendsExactlyTheRequests() async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo"], scratch: scratch)
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest(
            ["127.0.0.1:\(server.port)", "-c", "1", "--requests", "20000", "--pipeline", "4", "--framing", "line", "--message", "m {{seq}}", "--io", "threads"],
            scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 20_000)
        #expect(result.int("messages/received") == 20_000)
        #expect(result.int("bytes/sent") == result.int("bytes/received"))
        #expect(result.int("latency/corrected/count") == 20_000)
        #expect(result.stdout.contains("a thread per connection"), "\(result.stdout)")
        #expect(result.int("connections/established") == 1)
    }

    /// A Unix stream socket as the target, on event loops and on threads.
    @Test(arguments: ["events", "threads"])
    func aUnixSocketTargetIsLoaded(io: String) async throws {
        let scratch = try Scratch()
        let path = scratch.path("echo-\(io).sock")
        let listener = try Child(try sockctlPath(), ["listen", "unix:\(path)", "--echo", "-k"], scratch: scratch, name: "listener")
        defer { listener.signal(SIGKILL) }
        _ = try await listener.waitForStderr("listening on")
        let result = try await loadtest(["unix:\(path)", "-c", "2", "--requests", "3000", "--pipeline", "2", "--framing", "line", "--io", io], scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 3000)
        #expect(result.int("messages/received") == 3000)
        #expect((result.json["config"] as? [String: Any])?["io"] as? String == io)
    }

    /// `--io auto`: a thread per connection when the run allows it and leaves a core free;
    /// event loops otherwise.
    @Test func autoUsesThreadsOnlyWithACoreToSpare() async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo", "--max-clients", "300"], scratch: scratch)
        defer { server.child.signal(SIGKILL) }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let target = "127.0.0.1:\(server.port)"
        func io(_ arguments: [String]) async throws -> String? {
            let result = try await loadtest([target, "--requests", "200", "--framing", "line"] + arguments, scratch: scratch)
            #expect(result.status == 0, "\(result.stderr)")
            return (result.json["config"] as? [String: Any])?["io"] as? String
        }
        #expect(try await io(["-c", "1"]) == (cores > 1 ? "threads" : "events"))
        #expect(try await io(["-c", "\(cores)"]) == "events")
        #expect(try await io(["-c", "1", "--rate", "1000"]) == "events")
    }

    @Test func rateTimesDurationMessagesAreSent() async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo"], scratch: scratch)
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest(["127.0.0.1:\(server.port)", "-c", "10", "--rate", "2000", "--duration", "5s", "--framing", "line"], scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/intended") == 10_000)
        let sent = result.int("messages/sent")
        #expect(sent >= 9_900 && sent <= 10_100, "sent \(sent), expected 10,000 ± 1%")
        #expect(result.int("messages/received") == sent)
        #expect(result.int("messages/unsent") == 10_000 - sent)
        expectAccounted(result)
        let offered = try #require(result.number("throughput/offered_per_second"))
        #expect(abs(offered - 2000) < 20)
    }

    /// Open loop, one message in flight per connection: a server that stops for 500 ms makes
    /// the messages due meanwhile late, and the corrected percentiles say so; the uncorrected
    /// ones (from the actual send) hide most of it — which is why both are shown.
    @Test func aStallShowsInTheCorrectedPercentiles() async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo"], scratch: scratch)
        defer {
            server.child.signal(SIGCONT)
            server.child.signal(SIGKILL)
        }
        let result = try await loadtest(
            ["127.0.0.1:\(server.port)", "-c", "10", "--rate", "1000", "--pipeline", "1", "--duration", "5s", "--framing", "line"],
            scratch: scratch
        ) {
            try await Task.sleep(for: .milliseconds(2500))
            server.child.signal(SIGSTOP)
            try await Task.sleep(for: .milliseconds(500))
            server.child.signal(SIGCONT)
        }
        #expect(result.status == 0, "\(result.stderr)")
        let corrected = try #require(result.number("latency/corrected/p99"))
        let uncorrected = try #require(result.number("latency/uncorrected/p99"))
        let correctedMax = try #require(result.number("latency/corrected/max"))
        #expect(corrected >= 200_000, "corrected p99 \(corrected) µs should show the 500 ms stall")
        #expect(correctedMax >= 400_000, "corrected max \(correctedMax) µs")
        #expect(uncorrected < corrected / 2, "uncorrected p99 \(uncorrected) µs vs corrected \(corrected) µs")
        expectAccounted(result)
    }

    /// A server killed mid-run and started again: connections are lost and reopened, the
    /// refusals meanwhile are counted, and every message is still accounted for.
    @Test(arguments: ["events", "threads"])
    func aServerThatDiesAndComesBackIsCountedNotHidden(io: String) async throws {
        let scratch = try Scratch()
        let first = try await Server.start(["--echo"], scratch: scratch)
        let port = first.port
        let restarted = Mutex<Server?>(nil)
        defer { restarted.withLock { $0?.child.signal(SIGKILL) } }
        let result = try await loadtest(
            ["127.0.0.1:\(port)", "-c", "5", "--duration", "4s", "--framing", "line", "--timeout", "1s", "--io", io], scratch: scratch
        ) {
            try await Task.sleep(for: .milliseconds(1200))
            first.child.signal(SIGKILL)
            try await Task.sleep(for: .milliseconds(1000))
            let again = try await Server.start(["--echo"], scratch: scratch, port: port)
            restarted.withLock { $0 = again }
        }
        #expect(result.status == 0, "\(result.stderr)")
        expectAccounted(result)
        #expect(result.int("connections/lost") >= 5)
        let errors = result.json["errors"] as? [String: Int] ?? [:]
        #expect((errors["closed-by-peer"] ?? 0) + (errors["reset"] ?? 0) >= 5, "\(errors)")
        #expect((errors["refused"] ?? 0) >= 1, "\(errors)")
        #expect(result.int("connections/established") > 5)
        #expect(result.stdout.contains("refused"))
    }

    /// --requests is the total across reconnections: a connection that replaces a lost one
    /// goes on with its slot's share instead of starting it again.
    @Test(arguments: ["events", "threads"])
    func requestsCountAcrossAReconnect(io: String) async throws {
        let scratch = try Scratch()
        let first = try await Server.start(["--echo", "--framing", "line", "--delay", "1ms"], scratch: scratch)
        let port = first.port
        let restarted = Mutex<Server?>(nil)
        defer { restarted.withLock { $0?.child.signal(SIGKILL) } }
        let result = try await loadtest(
            ["127.0.0.1:\(port)", "-c", "2", "--requests", "6000", "--framing", "line", "--timeout", "1s", "--io", io], scratch: scratch
        ) {
            try await Task.sleep(for: .milliseconds(1000))
            first.child.signal(SIGKILL)
            try await Task.sleep(for: .milliseconds(300))
            let again = try await Server.start(["--echo", "--framing", "line", "--delay", "1ms"], scratch: scratch, port: port)
            restarted.withLock { $0 = again }
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("connections/lost") >= 2, "\(result.json["connections"] ?? "")")
        #expect(result.int("messages/sent") == 6000)
        #expect(result.int("messages/received") >= 5000)
        expectAccounted(result)
    }

    @Test(arguments: ["events", "threads"])
    func aViolatedThresholdFailsTheRunAndSaysWhich(io: String) async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo"], scratch: scratch)
        defer { server.child.signal(SIGKILL) }
        let target = "127.0.0.1:\(server.port)"
        let failing = try await loadtest([target, "-c", "2", "--requests", "200", "--framing", "line", "--io", io, "--threshold", "p99<1us", "--threshold", "errors<1%"], scratch: scratch)
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("threshold p99<1us violated"))
        #expect(!failing.stderr.contains("errors<1% violated"))
        #expect(failing.stdout.contains("p99<1us VIOLATED"))
        let passing = try await loadtest([target, "-c", "2", "--requests", "200", "--framing", "line", "--io", io, "--threshold", "p99<5s", "--threshold", "errors<1%", "--threshold", "rate>1"], scratch: scratch)
        #expect(passing.status == 0, "\(passing.stderr)")
        #expect(passing.stdout.contains("p99<5s passed"))
        #expect(passing.int("messages/sent") == 200)
        #expect(passing.int("messages/received") == 200)
        let results = passing.json["thresholds"] as? [[String: Any]] ?? []
        #expect(results.count == 3 && results.allSatisfy { $0["passed"] as? Bool == true })
    }

    @Test(arguments: ["events", "threads"])
    func aTargetNobodyListensOnFailsWithTheReason(io: String) async throws {
        let scratch = try Scratch()
        let port = try freePort()
        let result = try await loadtest(["127.0.0.1:\(port)", "-c", "3", "--duration", "2s", "--framing", "line", "--io", io], scratch: scratch, timeout: .seconds(30))
        #expect(result.status == 1)
        #expect(result.stderr.contains("only 0 of 3 connections could be opened"), "\(result.stderr)")
        #expect((result.json["errors"] as? [String: Int])?["refused"] ?? 0 >= 3)
        #expect(result.int("messages/sent") == 0)
    }

    /// Three runs at once, merged: counters and histograms are the sums of the parts.
    @Test func reportMergeAddsThreeRunsExactly() async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo", "--max-clients", "100"], scratch: scratch)
        defer { server.child.signal(SIGKILL) }
        let runs = try await withThrowingTaskGroup(of: Result.self) { group in
            for _ in 0..<3 {
                group.addTask { try await loadtest(["127.0.0.1:\(server.port)", "-c", "4", "--duration", "2s", "--framing", "line", "--message", "m{{seq}}"], scratch: scratch) }
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
        let merged = try await run(try sockctlPath(), ["report", "merge"] + files + ["--json", scratch.path("merged.json"), "--threshold", "errors<1"], scratch: scratch)
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
        let single = try await run(try sockctlPath(), ["report", "merge", files[0], "--json", "-"], scratch: scratch)
        let again = try #require(try JSONSerialization.jsonObject(with: single.stdout) as? [String: Any])
        let once = Result(status: 0, stdout: "", stderr: "", json: again)
        for key in ["latency/corrected/p50", "latency/corrected/p99", "latency/corrected/max", "latency/uncorrected/p99.9"] {
            #expect(once.number(key) == runs[0].number(key), "\(key)")
        }
        // Not a result file: one line, exit 1.
        try Data("{}".utf8).write(to: URL(fileURLWithPath: scratch.path("empty.json")))
        let bad = try await run(try sockctlPath(), ["report", "merge", scratch.path("empty.json")], scratch: scratch)
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
        let scratch = try Scratch()
        let server = try await Server.start(["--echo", "--delay", "2ms"], scratch: scratch)
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest(["127.0.0.1:\(server.port)", "-c", "8", "--requests", "2000", "--framing", "line"], scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let histograms = try #require(result.json["histograms"] as? [String: Any])
        let encoded = try #require(histograms["corrected"] as? String)
        let script = """
            import sys
            from hdrh.histogram import HdrHistogram
            h = HdrHistogram.decode(sys.argv[1])
            print(h.get_total_count(), h.get_value_at_percentile(50), h.get_value_at_percentile(99), h.get_max_value())
            """
        let decoded = try await run(python, ["-c", script, encoded], scratch: scratch)
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

    @Test func udpMessagesAreDatagrams() async throws {
        let scratch = try Scratch()
        let child = try Child(try sockctlPath(), ["listen", "udp://127.0.0.1:0", "--echo"], scratch: scratch, name: "udp-listener")
        defer { child.signal(SIGKILL) }
        let port = try await child.listeningPort()
        let result = try await loadtest(["udp://127.0.0.1:\(port)", "-c", "2", "--rate", "500", "--duration", "2s", "--framing", "raw", "--message", "dgram {{seq}}"], scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 1000)
        #expect(result.int("messages/received") >= 990)
        expectAccounted(result)
    }

    /// `--stages 1s:1000,1s:0`: a ramp up to 1,000/s and back down over the same connections
    /// schedules 500 + 500 messages.
    @Test func stagesRampTheRateOverTheSameConnections() async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo"], scratch: scratch)
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest(["127.0.0.1:\(server.port)", "-c", "4", "--stages", "1s:1000,1s:0", "--framing", "line"], scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/intended") == 1000)
        #expect(result.int("messages/sent") >= 990)
        #expect(result.int("connections/established") == 4)
        expectAccounted(result)
        #expect(result.stdout.contains("open loop, stages 1s:1000,1s:0"))
    }

    /// Replies longer than --max-frame: each closes its connection and counts as a framing
    /// error; the messages on it are lost, not hidden.
    @Test(arguments: ["events", "threads"])
    func oversizedRepliesAreFramingErrors(io: String) async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo"], scratch: scratch)
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest(
            ["127.0.0.1:\(server.port)", "-c", "2", "--duration", "2s", "--framing", "line", "--max-frame", "8", "--io", io, "--message", "a message longer than eight bytes"],
            scratch: scratch)
        let errors = result.json["errors"] as? [String: Int] ?? [:]
        #expect((errors["framing"] ?? 0) >= 2, "\(errors)")
        #expect(result.int("messages/received") == 0)
        expectAccounted(result)
        #expect(result.stdout.contains("framing: "))
    }

    /// Out of file descriptors (EMFILE): counted as `fd-exhausted`, apart from what the server
    /// did, with the fix in a warning; the run fails since the connections were not opened.
    @Test(arguments: ["events", "threads"])
    func runningOutOfDescriptorsIsCountedAndExplained(io: String) async throws {
        let scratch = try Scratch()
        let server = try await Server.start(["--echo", "--max-clients", "1000"], scratch: scratch)
        defer { server.child.signal(SIGKILL) }
        let json = scratch.path("emfile.json")
        let result = try await run(
            try tool("prlimit"),
            ["--nofile=60:60", try sockctlPath(), "loadtest", "127.0.0.1:\(server.port)", "-c", "200", "--requests", "400", "--framing", "line", "--io", io, "--json", json],
            scratch: scratch)
        #expect(result.status == 1)
        #expect(result.stderr.contains("the file-descriptor limit is 60"), "\(result.stderr)")
        #expect(result.stderr.contains("ulimit -n"))
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any] ?? [:]
        #expect(((report["errors"] as? [String: Int])?["fd-exhausted"] ?? 0) > 0, "\(String(describing: report["errors"]))")
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
        (["--io", "fast"], "--io must be auto, events or threads, not 'fast'"),
        (["--io", "threads", "--framing", "line", "--rate", "100"], "--io threads: it runs closed loop only"),
        (["--io", "threads", "--requests", "5"], "--io threads: it needs --framing"),
    ] as [([String], String)])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) async throws {
        let scratch = try Scratch()
        let result = try await run(try sockctlPath(), ["loadtest", "127.0.0.1:9"] + arguments, scratch: scratch)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
