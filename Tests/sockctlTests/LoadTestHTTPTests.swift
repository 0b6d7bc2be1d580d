import Foundation
import NIOCore
import SocketEngine
import TestSupport
import Testing

import Glibc

/// `sockctl loadtest http://…` against a real nginx on loopback (issue 29), on the event loops
/// and on the thread path where it runs (closed loop, plain http): every response counted by
/// status, bodies of any length and encoding cut right, the server's closes reopened, https
/// with the test CA, labels per URL, an open loop. What nginx will not send (a cut body,
/// conflicting lengths, an unasked 101) comes from a scripted server. Only what does not depend
/// on the machine's speed is asserted (memory is bounded, never time).
@Suite("sockctl loadtest http", .hangGuard)
struct LoadTestHTTPTests {
    typealias Result = LoadTestCommandTests.Result

    /// Runs `sockctl loadtest ARGUMENTS --json FILE`.
    func loadtest(_ arguments: [String]) async throws -> Result {
        let scratch = try Scratch()
        let file = scratch.path("result.json")
        let child = try await Child(try sockctlPath(), ["loadtest"] + arguments + ["--json", file], name: "loadtest")
        let status = try await child.wait()
        try await child.waitForEndOfStdout()
        let data = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Result(status: status, stdout: child.stdoutText, stderr: child.stderr, json: json)
    }

    func statuses(_ result: Result) -> [String: Int] {
        (result.json["http"] as? [String: Any])?["statuses"] as? [String: Int] ?? [:]
    }

    func expectAccounted(_ result: Result, sourceLocation: SourceLocation = #_sourceLocation) {
        let sent = result.int("messages/sent")
        let accounted = result.int("messages/received") + result.int("messages/timed_out") + result.int("messages/lost")
        #expect(sent > 0 && sent == accounted, "sent \(sent) != received + timed out + lost \(accounted)", sourceLocation: sourceLocation)
    }

    static let page = Array(String(repeating: "sockctl loads nginx. ", count: 12).utf8)

    @Test(arguments: ["events", "threads"])
    func aContentLengthFileIsAnsweredEveryTime(io: String) async throws {
        var site = Nginx.Site()
        site.file("/file", Self.page)
        let nginx = try await Nginx.start(site)
        let result = try await loadtest([nginx.url("/file"), "-c", "4", "--requests", "400", "--io", io])
        _ = try await nginx.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 400 && result.int("messages/received") == 400)
        #expect(statuses(result) == ["200": 400])
        #expect(result.errors.isEmpty)
        #expect(result.json["transport"] as? String == "http")
        #expect(result.stdout.contains("responses   200: 400 (2xx 100%)"), "\(result.stdout)")
    }

    /// gzip on and `Accept-Encoding: gzip`: nginx answers chunked (it does not know the length).
    @Test(arguments: ["events", "threads"])
    func chunkedResponsesAreCut(io: String) async throws {
        var site = Nginx.Site()
        let page = Array(repeating: Self.page, count: 32).flatMap { $0 }
        site.gzipDirectory("/gz/", files: ["page": page])
        let nginx = try await Nginx.start(site)
        let result = try await loadtest([nginx.url("/gz/page"), "-H", "Accept-Encoding: gzip", "-c", "2", "--requests", "200", "--io", io])
        _ = try await nginx.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(statuses(result) == ["200": 200])
        #expect(result.errors.isEmpty)
        // Compressed (so chunked): fewer bytes came back than 200 pages.
        #expect(result.int("bytes/received") < 200 * page.count / 4)
    }

    /// Paths /item/1…/item/1000, those ending in 5 answered 503: exactly 100 of them.
    @Test(arguments: ["events", "threads"])
    func statusesAreCountedAndAThresholdOnThemFails(io: String) async throws {
        var site = Nginx.Site()
        site.serviceUnavailableForPathsEndingIn5()
        let nginx = try await Nginx.start(site)
        let result = try await loadtest([nginx.url("/item/{{seq}}"), "-c", "4", "--requests", "1000", "--io", io, "--threshold", "status5xx<5%"])
        _ = try await nginx.stop()
        #expect(result.status == 1, "\(result.stderr)")
        #expect(statuses(result)["503"] == 100)
        #expect(statuses(result).values.reduce(0, +) == 1000)
        #expect(result.stderr.contains("threshold status5xx<5% violated"), "\(result.stderr)")
        #expect(result.stdout.contains("status5xx<5% VIOLATED (10.000%)"))
    }

    @Test(arguments: ["events", "threads"])
    func pipelinedRequestsAreAnsweredInOrder(io: String) async throws {
        var site = Nginx.Site()
        site.file("/file", Self.page)
        let nginx = try await Nginx.start(site)
        let result = try await loadtest([nginx.url("/file"), "-c", "2", "--pipeline", "8", "--requests", "800", "--io", io])
        _ = try await nginx.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("config/pipeline") == 8)
        #expect(statuses(result) == ["200": 800])
        #expect(result.errors.isEmpty)
    }

    /// keepalive_requests 10: nginx closes every connection after its 10th answer; each close
    /// is counted and the connection reopened, no error, nothing lost, even pipelined.
    @Test(arguments: [("events", "1"), ("threads", "1"), ("events", "4")])
    func serverClosesAreReopenedAndCounted(io: String, pipeline: String) async throws {
        var site = Nginx.Site()
        site.file("/file", Self.page)
        site.keepaliveRequests = 10
        let nginx = try await Nginx.start(site)
        let result = try await loadtest([nginx.url("/file"), "-c", "2", "--requests", "400", "--pipeline", pipeline, "--io", io])
        _ = try await nginx.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/received") == 400 && result.int("messages/sent") == 400)
        expectAccounted(result)
        #expect(result.errors.isEmpty)
        #expect(result.int("connections/lost") == 0)
        let closes = result.int("http/serverCloses")
        #expect(closes >= 40 - 2 && closes <= 40, "\(closes) server closes")
    }

    /// A 100 MB body, four times over two connections: read and dropped as it comes.
    @Test(arguments: ["events", "threads"])
    func aHundredMegabyteBodyKeepsMemoryBounded(io: String) async throws {
        var site = Nginx.Site()
        site.sparseFile("/big", size: 100_000_000)
        let nginx = try await Nginx.start(site)
        let result = try await loadtest([nginx.url("/big"), "-c", "2", "--requests", "4", "--io", io, "--max-frame", "1G", "--reply-timeout", "1h"])
        _ = try await nginx.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(statuses(result) == ["200": 4])
        #expect(result.int("bytes/received") > 400_000_000)
        let peak = result.int("peak_rss_bytes")
        #expect(peak > 0 && peak < 128 << 20, "peak RSS \(peak) bytes")
    }

    @Test func httpsRidesTheTLSOptions() async throws {
        var site = Nginx.Site()
        site.file("/file", Self.page)
        site.tls = true
        let nginx = try await Nginx.start(site)
        let ca = try await TestCertificates.shared.directory() + "/ca.pem"
        let result = try await loadtest([nginx.url("/file"), "-c", "2", "--requests", "100", "--cafile", ca])
        let refused = try await loadtest([nginx.url("/file"), "-c", "1", "--requests", "1"])
        _ = try await nginx.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.json["transport"] as? String == "https")
        #expect(statuses(result) == ["200": 100])
        #expect(result.int("tls_handshake/count") == 2)
        #expect(refused.status == 1)
        #expect(refused.errors["tls"] != nil, "\(refused.stderr)")
    }

    /// Two URLs: reported per path by default; --label http:method too.
    @Test func severalTargetsAreReportedPerPath() async throws {
        var site = Nginx.Site()
        site.file("/a", Self.page)
        site.file("/b", Array("b".utf8))
        let nginx = try await Nginx.start(site)
        let result = try await loadtest([nginx.url("/a"), nginx.url("/b"), "-c", "2", "--requests", "100"])
        let labelled = try await loadtest([nginx.url("/a"), nginx.url("/b"), "-c", "2", "--requests", "100", "--label", "http:path"])
        _ = try await nginx.stop()
        for result in [result, labelled] {
            #expect(result.status == 0, "\(result.stderr)")
            let values = ((result.json["labels"] as? [String: Any])?["values"] as? [[String: Any]]) ?? []
            let byName = Dictionary(uniqueKeysWithValues: values.compactMap { value in (value["label"] as? String).map { ($0, value["received"] as? Int ?? -1) } })
            #expect(byName == ["/a": 50, "/b": 50], "\(result.json["labels"] ?? "none")")
            #expect(result.json["config"].flatMap { ($0 as? [String: Any])?["label"] as? String } == "http:path")
        }
    }

    /// Open loop against a server that answers each request after 10 ms: p50 is at least the delay.
    @Test func anOpenLoopIsTimedFromEachRequestsDueTime() async throws {
        let server = try await Self.scripted { connection in
            try await Self.eachRequest(connection) {
                try await Task.sleep(for: .milliseconds(10))
                try await connection.write(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
                return true
            }
        }
        defer { Task { await server.stop() } }
        let result = try await loadtest(["http://127.0.0.1:\(server.port)/", "-c", "4", "--rate", "200", "--duration", "1s"])
        #expect(result.status == 0, "\(result.stderr)")
        let p50 = try #require(result.number("latency/corrected/p50"))
        #expect(p50 >= 10_000, "p50 \(p50) µs, the delay is 10 ms")
        #expect(statuses(result)["200"] == result.int("messages/received"))
    }

    /// What nginx will not send: each is an `http` error (its connection reopened), never a trap.
    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "the connection ended inside a body"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello", "Content-Length"),
        ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n", "switched protocols (101)"),
    ])
    func brokenResponsesAreHTTPErrors(answer: String, message: String) async throws {
        let server = try await Self.scripted { connection in
            try await Self.eachRequest(connection) {
                try await connection.write(ByteBuffer(string: answer))
                return false
            }
        }
        defer { Task { await server.stop() } }
        for io in ["events", "threads"] {
            let result = try await loadtest(["http://127.0.0.1:\(server.port)/", "-c", "1", "--requests", "3", "--io", io])
            #expect(result.int("errors/http") >= 1, "\(io): \(result.errors) \(result.stderr)")
            let example = (result.json["error_examples"] as? [String: String])?["http"] ?? ""
            #expect(example.contains(message), "\(io): \(example)")
            #expect(result.int("messages/received") == 0)
            expectAccounted(result)
        }
    }

    @Test func badHTTPUsageIsRefused() async throws {
        let framed = try await run(try sockctlPath(), ["loadtest", "http://127.0.0.1:1/", "--framing", "line", "--requests", "1"])
        #expect(framed.status == 2)
        #expect(framed.stderr.contains("framed as HTTP"), "\(framed.stderr)")
        let correlated = try await run(try sockctlPath(), ["loadtest", "http://127.0.0.1:1/", "--correlate", "json:$.id", "--requests", "1"])
        #expect(correlated.status == 2)
        #expect(correlated.stderr.contains("--correlate does not apply to HTTP targets"), "\(correlated.stderr)")
    }

    // MARK: A scripted server

    /// A loopback server whose connections `handle` serves with canned bytes.
    static func scripted(_ handle: @escaping @Sendable (Connection) async throws -> Void) async throws -> TestServer {
        try await TestServer.start(handle: handle)
    }

    /// Calls `answer` for each request head (bodiless requests) the client sends, until it
    /// returns false (the connection is then closed) or the client closes.
    static func eachRequest(_ connection: Connection, _ answer: () async throws -> Bool) async throws {
        var text = ""
        while true {
            while let range = text.range(of: "\r\n\r\n") {
                text.removeSubrange(..<range.upperBound)
                guard try await answer() else { return }
            }
            guard let bytes = try await connection.read(.available) else { return }
            text += String(buffer: bytes)
        }
    }
}
