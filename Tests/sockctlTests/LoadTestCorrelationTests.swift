import Foundation
import TestSupport
import Testing

import Glibc

/// `--correlate` against a real out-of-order server the tests start
/// (CorrelationPeers/out_of_order_server.py): it answers each batch of pipelined JSON requests
/// newest first, each reply later than the one before, and pushes messages nobody asked for
/// before the replies. With `--correlate json:$.id` every reply times its own request and every
/// push is unmatched; matched in order, as before, pushes pass for replies.
@Suite("sockctl --correlate", .hangGuard)
struct LoadTestCorrelationTests {
    /// The out-of-order server, listening on a port the kernel chose.
    struct Server {
        let child: Child
        let target: String

        static let script = packageRoot.appendingPathComponent("Tests/sockctlTests/CorrelationPeers/out_of_order_server.py").path

        static func start(batch: Int, push: Int, stepMilliseconds: Int = 0, gated: Bool = false) async throws -> Server {
            var arguments = [script, "--batch", "\(batch)", "--push", "\(push)", "--step-ms", "\(stepMilliseconds)"]
            if gated { arguments.append("--gate") }
            let child = try await Child(try tool("python3"), arguments, stdin: gated ? .pipe : .null, name: "out-of-order-server")
            return Server(child: child, target: "127.0.0.1:\(try await child.listeningPort())")
        }
    }

    func loadtest(_ arguments: [String], during: (@Sendable (Child) async throws -> Void)? = nil) async throws -> LoadTestCommandTests.Result {
        try await LoadTestCommandTests().loadtest(arguments, during: during)
    }

    /// One connection, four requests in flight, 40 in all: ten batches, each answered newest
    /// first 0, 20, 40 and 60 ms after it was complete, after one push. Every request is
    /// answered by its own reply (none timed out or lost), the ten pushes are unmatched, and the
    /// latencies are at least what the server made each request wait: a quarter of them at
    /// least 0, 20, 40 and 60 ms, so p50 ≥ 20 ms and p90 ≥ 60 ms.
    @Test(arguments: ["events", "threads"])
    func outOfOrderRepliesAndPushesAreMatchedByKey(io: String) async throws {
        let server = try await Server.start(batch: 4, push: 1, stepMilliseconds: 20)
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest([
            server.target, "-c", "1", "--requests", "40", "--pipeline", "4", "--framing", "line", "--reply-timeout", "600s",
            "--message", #"{"id":{{seq}},"op":"get"}"#, "--correlate", "json:$.id", "--label", "json:$.op", "--io", io,
            "--threshold", "unmatched<=10", "--threshold", "unmatched<25%",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 40)
        #expect(result.int("messages/received") == 40)
        #expect(result.int("messages/timed_out") == 0 && result.int("messages/lost") == 0)
        #expect(result.int("messages/unmatched") == 10, "one push per batch")
        #expect(result.int("latency/corrected/count") == 40)
        let p50 = try #require(result.number("latency/corrected/p50"))
        let p90 = try #require(result.number("latency/corrected/p90"))
        #expect(p50 >= 20_000 && p90 >= 60_000, "p50 \(p50) µs, p90 \(p90) µs")
        #expect(result.stdout.contains("10 unmatched replies (by json:$.id)"), "\(result.stdout)")
        #expect(result.stdout.contains("unmatched<=10 passed (10)"), "\(result.stdout)")
        let config = result.json["config"] as? [String: Any] ?? [:]
        #expect(config["correlate"] as? String == "json:$.id" && config["io"] as? String == io)
        let labels = (result.json["labels"] as? [String: Any])?["values"] as? [[String: Any]] ?? []
        #expect(labels.count == 1)
        #expect(labels.first?["label"] as? String == "get")
        #expect(labels.first?["sent"] as? Int == 40 && labels.first?["received"] as? Int == 40)
        #expect((labels.first?["latency"] as? [String: Any])?["count"] as? Int == 40)
        #expect(result.stdout.contains("labels      by json:$.op, corrected latency:"))
    }

    /// The server pushes four messages after the four requests and answers none of them (its
    /// replies wait for a line on its stdin that never comes). Matched in order, as without
    /// `--correlate`, the four pushes are taken for the four replies: the run reports every
    /// request answered while the server answered none. With `--correlate` the pushes are
    /// unmatched, the run waits for the real replies, and each request gets its own.
    @Test func pushesPassForRepliesUnlessCorrelated() async throws {
        let silent = try await Server.start(batch: 4, push: 4, gated: true)
        defer { silent.child.signal(SIGKILL) }
        let old = try await loadtest([
            silent.target, "-c", "1", "--requests", "4", "--pipeline", "4", "--framing", "line", "--message", #"{"id":{{seq}}}"#, "--reply-timeout", "600s",
        ])
        #expect(old.status == 0, "\(old.stderr)")
        #expect(old.int("messages/received") == 4, "the pushes taken for replies")
        #expect(old.int("messages/timed_out") == 0 && old.int("messages/lost") == 0)
        #expect(old.json["messages"].flatMap { ($0 as? [String: Any])?["unmatched"] } == nil)
        try await silent.child.waitForStderr("batch 1: pushed 4")
        #expect(!silent.child.stderr.contains("replied"), "the server answered nothing")

        let gated = try await Server.start(batch: 4, push: 4, gated: true)
        defer { gated.child.signal(SIGKILL) }
        let correlated = try await loadtest([
            gated.target, "-c", "1", "--requests", "4", "--pipeline", "4", "--framing", "line", "--message", #"{"id":{{seq}}}"#, "--reply-timeout", "600s",
            "--correlate", "json:$.id",
        ]) { _ in
            try await gated.child.waitForStderr("batch 1: pushed 4")
            try gated.child.send("reply now\n")
        }
        #expect(correlated.status == 0, "\(correlated.stderr)")
        #expect(gated.child.stderr.contains("batch 1: replied 4"))
        #expect(correlated.int("messages/received") == 4)
        #expect(correlated.int("messages/unmatched") == 4)
        #expect(correlated.int("messages/timed_out") == 0 && correlated.int("messages/lost") == 0)
    }

    /// Open loop against an echo server: every reply echoes its message's key, so every message
    /// sent is answered by its own reply (latency from its due time) and none is unmatched.
    @Test func anOpenLoopRunMatchesEveryEchoedReplyByKey() async throws {
        let server = try await LoadTestCommandTests.Server.start(["--echo", "--framing", "line"])
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest([
            server.target, "-c", "4", "--rate", "1000", "--duration", "1s", "--framing", "line", "--reply-timeout", "600s",
            "--message", #"{"op":"get","id":"c{{conn}}-{{seq}}"}"#, "--correlate", "json:$.id",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/intended") == 1000)
        let sent = result.int("messages/sent")
        #expect(sent > 0 && sent + result.int("messages/unsent") == 1000)
        #expect(result.int("messages/received") == sent)
        #expect(result.int("messages/unmatched") == 0)
        #expect(result.int("latency/corrected/count") == sent)
        #expect(result.stdout.contains("open loop at 1,000/s"))
    }

    /// Over ws:// each WebSocket message is a reply whose key is read from its payload.
    @Test func webSocketRepliesAreMatchedByKey() async throws {
        let child = try await Child(try sockctlPath(), ["listen", "ws://127.0.0.1:0/", "--echo", "-k"], name: "ws-listener")
        defer { child.signal(SIGKILL) }
        let port = try await child.listeningPort()
        let result = try await loadtest([
            "ws://127.0.0.1:\(port)/", "-c", "2", "--requests", "400", "--pipeline", "4", "--framing", "raw", "--reply-timeout", "600s",
            "--message", #"{"id":{{seq}}}"#, "--correlate", "json:$.id",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 400)
        #expect(result.int("messages/received") == 400)
        #expect(result.int("messages/unmatched") == 0)
    }

    /// `report merge` adds the unmatched replies and the label sections of correlated runs.
    @Test func reportMergeAddsUnmatchedAndLabels() async throws {
        let scratch = try Scratch()
        let server = try await Server.start(batch: 2, push: 1)
        defer { server.child.signal(SIGKILL) }
        var files: [String] = []
        for (index, op) in ["get", "put"].enumerated() {
            let run = try await loadtest([
                server.target, "-c", "1", "--requests", "8", "--pipeline", "2", "--framing", "line", "--reply-timeout", "600s",
                "--message", #"{"id":{{seq}},"op":"\#(op)"}"#, "--correlate", "json:$.id", "--label", "json:$.op",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.int("messages/unmatched") == 4)
            let path = scratch.path("part-\(index).json")
            try JSONSerialization.data(withJSONObject: run.json).write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        let merged = try await run(try sockctlPath(), ["report", "merge"] + files + ["--json", "-", "--threshold", "unmatched<9"])
        #expect(merged.status == 0, "\(merged.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: merged.stdout) as? [String: Any])
        let report = LoadTestCommandTests.Result(status: 0, stdout: "", stderr: "", json: json)
        #expect(report.int("messages/unmatched") == 8)
        let values = (json["labels"] as? [String: Any])?["values"] as? [[String: Any]] ?? []
        #expect(Set(values.compactMap { $0["label"] as? String }) == ["get", "put"])
        #expect(values.allSatisfy { $0["sent"] as? Int == 8 && ($0["latency"] as? [String: Any])?["count"] as? Int == 8 })
    }

    /// `send --correlate`: two requests answered newest first after a push. Each reply is
    /// printed in the order of the requests, the push is unmatched; without `--correlate` the
    /// first two responses — the push and the reply to the second request — are taken.
    @Test func sendPairsEachRequestWithItsOwnReply() async throws {
        let server = try await Server.start(batch: 2, push: 1)
        defer { server.child.signal(SIGKILL) }
        let requests = [#"{"id":1,"op":"get"}"#, #"{"id":2,"op":"put"}"#]
        let printed = try await run(try sockctlPath(), ["send", server.target, "--framing", "line", "--correlate", "json:$.id"] + requests)
        #expect(printed.status == 0, "\(printed.stderr)")
        let lines = String(decoding: printed.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines == [#"{"id": 1, "delay_ms": 0}"#, #"{"id": 2, "delay_ms": 0}"#], "\(lines)")

        let json = try await run(try sockctlPath(), ["send", server.target, "--framing", "line", "--correlate", "json:$.id", "--json", "-v"] + requests)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let replies = object["replies"] as? [[String: Any]] ?? []
        #expect(replies.compactMap { $0["key"] as? String } == ["1", "2"])
        #expect(replies.allSatisfy { ($0["ms"] as? Double ?? -1) >= 0 })
        #expect(object["unmatched"] as? Int == 1)
        #expect(object["responses_received"] as? Int == 3)
        #expect(object["responses_expected"] as? Int == 2)
        #expect(json.stderr.contains("replies by key: 1 in "), "\(json.stderr)")
        #expect(json.stderr.contains("; 1 unmatched"))

        let inOrder = try await run(try sockctlPath(), ["send", server.target, "--framing", "line", "--responses", "2"] + requests)
        #expect(inOrder.status == 0, "\(inOrder.stderr)")
        #expect(String(decoding: inOrder.stdout, as: UTF8.self).split(separator: "\n") == [#"{"push": 0}"#, #"{"id": 2, "delay_ms": 0}"#])
    }

    /// A reply that never comes: `send` fails after --timeout and names the keys still waiting.
    @Test func sendNamesTheKeysWithoutAReply() async throws {
        let server = try await Server.start(batch: 3, push: 0)
        defer { server.child.signal(SIGKILL) }
        let result = try await run(try sockctlPath(), [
            "send", server.target, "--framing", "line", "--correlate", "json:$.id", "--timeout", "300ms", #"{"id":"a"}"#, #"{"id":"b"}"#,
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("timed out after 300ms waiting for the replies with key 'a', 'b' (0 of 2 answered)"), "\(result.stderr)")
    }
}
