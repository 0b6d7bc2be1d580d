import Foundation
import NIOCore
import SocketEngine
import TestSupport
import Testing

import Glibc

/// `listen http://`, the test server, with curl (and a raw socket where curl hides the wire) as
/// the client. Every wait is for an event: the listening line, a log line, an exit.
@Suite(.hangGuard)
struct ListenHTTPTests {
    /// A listener on a free loopback port with `arguments`; its port.
    static func listen(_ arguments: [String]) async throws -> (Child, Int) {
        let listener = try await Child(try sockctlPath(), ["listen", "http://127.0.0.1:0"] + arguments, name: "listen")
        return (listener, try await listener.listeningPort())
    }

    /// Bytes of every value, CR, LF and NUL among them: a body that must come back byte for byte.
    static func binaryFile(_ scratch: Scratch, size: Int = 3000) throws -> (String, Data) {
        let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256) })
        let path = scratch.path("body.bin")
        try data.write(to: URL(fileURLWithPath: path))
        return (path, data)
    }

    /// Writes `request` on a raw connection and reads until the server closes.
    static func rawExchange(_ port: Int, _ request: String) async throws -> String {
        let connection = try await Connector(endpoint: try Endpoint(parsing: "127.0.0.1:\(port)"), options: .patient).connect().0
        try await connection.write(ByteBuffer(string: request))
        var answer = ""
        while let chunk = try await connection.read(.available) { answer += String(buffer: chunk) }
        await connection.close()
        return answer
    }

    @Test func respondServesTheFileByteExactAndHEADGetsItsLengthOnly() async throws {
        let scratch = try Scratch()
        let (file, data) = try Self.binaryFile(scratch)
        let (listener, port) = try await Self.listen(["--respond", file, "-k"])
        let got = try await run(try tool("curl"), ["-s", "http://127.0.0.1:\(port)/x"])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(got.stdout == data)
        // Two HEADs on one connection: a body after the first would break the second.
        let heads = try await run(try tool("curl"), ["-s", "-I", "http://127.0.0.1:\(port)/a", "http://127.0.0.1:\(port)/b"])
        #expect(heads.status == 0, "\(heads.stderr)")
        let text = String(decoding: heads.stdout, as: UTF8.self)
        #expect(text.components(separatedBy: "HTTP/1.1 200 OK\r\n").count == 3, "\(text)")
        #expect(text.components(separatedBy: "Content-Length: 3000\r\n").count == 3, "\(text)")
        #expect(text.contains("Date: "))
        #expect(!text.contains("\u{0}"))
        _ = try await listener.waitForStderr("HEAD /b -> 200 (3000 bytes)")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.range(of: #"127\.0\.0\.1:\d+ GET /x -> 200 \(3000 bytes\)"#, options: .regularExpression) != nil, "\(listener.stderr)")
        #expect(listener.stderr.contains("3 requests (3 2xx)"), "\(listener.stderr)")
    }

    @Test func theLogLineIsQuietWithQ() async throws {
        let (listener, port) = try await Self.listen(["-k", "-q", "--echo"])
        let got = try await run(try tool("curl"), ["-s", "http://127.0.0.1:\(port)/quiet"])
        #expect(got.status == 0)
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(!listener.stderr.contains("GET /quiet"))
        #expect(listener.stderr.contains("1 request (1 2xx)"), "\(listener.stderr)")
    }

    @Test func statusAndHeadersAreSeenByCurl() async throws {
        let (listener, port) = try await Self.listen(["--status", "503", "-H", "Retry-After: 1", "-k"])
        let got = try await run(try tool("curl"), ["-s", "-i", "http://127.0.0.1:\(port)/"])
        #expect(got.status == 0, "\(got.stderr)")
        let text = String(decoding: got.stdout, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"), "\(text)")
        #expect(text.contains("\r\nContent-Length: 0\r\n"), "\(text)")
        #expect(text.contains("\r\nRetry-After: 1\r\n"), "\(text)")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("GET / -> 503 (0 bytes)"))
        #expect(listener.stderr.contains("1 request (1 5xx)"), "\(listener.stderr)")
    }

    @Test func echoReturnsTheBodyWhetherSentWithALengthOrChunked() async throws {
        let scratch = try Scratch()
        let (file, data) = try Self.binaryFile(scratch, size: 70_000)
        let (listener, port) = try await Self.listen(["--echo", "-k"])
        for extra in [[], ["-H", "Transfer-Encoding: chunked"]] {
            let out = scratch.path("out-\(extra.count).bin")
            let got = try await run(try tool("curl"), [
                "-s", "-H", "Expect:", "-H", "Content-Type: application/x-test", "--data-binary", "@\(file)",
                "-o", out, "-w", "%{content_type}", "http://127.0.0.1:\(port)/echo",
            ] + extra)
            #expect(got.status == 0, "\(got.stderr)")
            #expect(String(decoding: got.stdout, as: UTF8.self) == "application/x-test")
            #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == data, "\(extra)")
        }
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("POST /echo -> 200 (70000 bytes)"))
    }

    /// `Expect: 100-continue` (curl sends it for a large upload) is answered before the body.
    @Test func expectContinueIsAnsweredBeforeTheBody() async throws {
        let (listener, port) = try await Self.listen(["--echo", "-k"])
        let connection = try await Connector(endpoint: try Endpoint(parsing: "127.0.0.1:\(port)"), options: .patient).connect().0
        try await connection.write(ByteBuffer(string: "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"))
        let interim = try await connection.read(.delimited(by: Array("\r\n\r\n".utf8), maxLength: 1024))
        #expect(interim.map { String(buffer: $0) } == "HTTP/1.1 100 Continue\r\n\r\n")
        try await connection.write(ByteBuffer(string: "hello"))
        let head = try await connection.read(.delimited(by: Array("\r\n\r\n".utf8), maxLength: 4096)).map { String(buffer: $0) } ?? ""
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(head)")
        #expect(try await connection.read(.exactly(5)).map { String(buffer: $0) } == "hello")
        await connection.close()
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    /// The default (print) mode answers `Expect: 100-continue` too, then prints the request
    /// and answers it.
    @Test func printModeAnswersExpectContinueBeforeTheBody() async throws {
        let (listener, port) = try await Self.listen(["-k"])
        let connection = try await Connector(endpoint: try Endpoint(parsing: "127.0.0.1:\(port)"), options: .patient).connect().0
        try await connection.write(ByteBuffer(string: "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"))
        let interim = try await connection.read(.delimited(by: Array("\r\n\r\n".utf8), maxLength: 1024))
        #expect(interim.map { String(buffer: $0) } == "HTTP/1.1 100 Continue\r\n\r\n")
        try await connection.write(ByteBuffer(string: "hello"))
        let head = try await connection.read(.delimited(by: Array("\r\n\r\n".utf8), maxLength: 4096)).map { String(buffer: $0) } ?? ""
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(head)")
        _ = try await listener.waitForStdout("hello")
        #expect(listener.stdoutText.hasPrefix("POST /up HTTP/1.1\r\n"), "\(listener.stdoutText)")
        await connection.close()
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    /// A client still sending a request that gets a 400 (or 413) reads that answer, not a
    /// reset: the server drops what follows for a while before it closes (a lingering close),
    /// in print mode and when answering on the event loop alike.
    @Test(arguments: [["-k"], ["-k", "--echo"]])
    func aClientStillSendingReadsThe400(_ mode: [String]) async throws {
        let (listener, port) = try await Self.listen(mode + ["--max-frame", "1k"])
        // 8 MiB: more than the socket buffers of both sides hold.
        let body = ByteBuffer(repeating: UInt8(ascii: "x"), count: 8 * 1024 * 1024)
        for head in ["GET / HTTP/1.1\r\nNo colon here\r\n\r\n", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.readableBytes)\r\n\r\n"] {
            let connection = try await Connector(endpoint: try Endpoint(parsing: "127.0.0.1:\(port)"), options: .patient).connect().0
            var request = ByteBuffer(string: head)
            request.writeImmutableBuffer(body)
            try await connection.write(request)
            var answer = ""
            while let chunk = try await connection.read(.available) { answer += String(buffer: chunk) }
            await connection.close()
            #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n") || answer.hasPrefix("HTTP/1.1 413 "), "\(answer)")
            #expect(answer.contains("\r\nConnection: close\r\n"), "\(answer)")
        }
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("- - -> 400 (0 bytes)"), "\(listener.stderr)")
        #expect(listener.stderr.contains("- - -> 413 (0 bytes)"), "\(listener.stderr)")
    }

    @Test func http10IsClosedAfterOneAnswerAndHTTP11KeepsTheConnection() async throws {
        let (listener, port) = try await Self.listen(["-k", "--echo"])
        // The server closes: the read until close ends, with the whole answer.
        let answer = try await Self.rawExchange(port, "GET /old HTTP/1.0\r\n\r\nGET /never HTTP/1.0\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
        #expect(answer.contains("\r\nConnection: close\r\n"))
        #expect(answer.components(separatedBy: "HTTP/1.1").count == 2, "one answer only: \(answer)")
        let curl = try await run(try tool("curl"), ["-s", "--http1.0", "-i", "http://127.0.0.1:\(port)/ten"])
        #expect(curl.status == 0)
        #expect(String(decoding: curl.stdout, as: UTF8.self).contains("Connection: close"))
        // curl with two URLs: one connection carries both.
        let two = try await run(try tool("curl"), ["-s", "-v", "http://127.0.0.1:\(port)/1", "http://127.0.0.1:\(port)/2"])
        #expect(two.status == 0, "\(two.stderr)")
        #expect(two.stderr.contains("Re-using existing connection"), "\(two.stderr)")
        _ = try await listener.waitForStderr("GET /2 -> 200")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("summary: 3 clients, 4 requests (4 2xx)"), "\(listener.stderr)")
    }

    @Test func aMalformedRequestGets400AndAnOversizedOne413ThenTheConnectionCloses() async throws {
        let (listener, port) = try await Self.listen(["-k", "--echo", "--max-frame", "1k"])
        let malformed = try await Self.rawExchange(port, "GET / HTTP/1.1\r\nNo colon here\r\n\r\n")
        #expect(malformed.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(malformed)")
        #expect(malformed.contains("\r\nConnection: close\r\n"))
        let large = try await Self.rawExchange(port, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4096\r\n\r\n" + String(repeating: "x", count: 2000))
        #expect(large.hasPrefix("HTTP/1.1 413 Content Too Large\r\n") || large.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"), "\(large)")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("- - -> 400 (0 bytes)"), "\(listener.stderr)")
        #expect(listener.stderr.contains("- - -> 413 (0 bytes)"), "\(listener.stderr)")
        #expect(listener.stderr.contains("2 requests (2 4xx)"), "\(listener.stderr)")
    }

    @Test func otherFramingsAndStatusElsewhereAreRefused() async throws {
        let framing = try await run(try sockctlPath(), ["listen", "http://127.0.0.1:0", "--framing", "line"])
        #expect(framing.status == 2)
        #expect(framing.stderr.contains("--framing line does not apply to http://"), "\(framing.stderr)")
        let status = try await run(try sockctlPath(), ["listen", "127.0.0.1:0", "--status", "503"])
        #expect(status.status == 2)
        #expect(status.stderr.contains("--status needs an http:// or https:// endpoint"), "\(status.stderr)")
        let range = try await run(try sockctlPath(), ["listen", "http://127.0.0.1:0", "--status", "600"])
        #expect(range.status == 2)
        #expect(range.stderr.contains("'600' is not an HTTP status (expected 100-599, e.g. 200 or 503)"), "\(range.stderr)")
    }

    /// The default mode prints each request and answers an empty 200.
    @Test func theDefaultPrintsEachRequestAndAnswers200() async throws {
        let (listener, port) = try await Self.listen(["-k"])
        let got = try await run(try tool("curl"), ["-s", "-i", "--data-binary", "payload", "http://127.0.0.1:\(port)/p"])
        #expect(got.status == 0)
        #expect(String(decoding: got.stdout, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))
        _ = try await listener.waitForStdout("payload")
        #expect(listener.stdoutText.hasPrefix("POST /p HTTP/1.1\r\n"), "\(listener.stdoutText)")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    /// --delay holds every answer, order kept: two URLs on one connection come back in order.
    @Test func delayedAnswersKeepTheirOrder() async throws {
        let scratch = try Scratch()
        let (listener, port) = try await Self.listen(["-k", "--echo", "--delay", "20ms"])
        let got = try await run(try tool("curl"), [
            "-s", "--data", "first", "http://127.0.0.1:\(port)/1", "--next", "--data", "second", "http://127.0.0.1:\(port)/2",
        ])
        #expect(got.status == 0)
        #expect(String(decoding: got.stdout, as: UTF8.self) == "firstsecond")
        _ = scratch
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    @Test func aRecordingFollowsAsHTTPInCapture() async throws {
        let scratch = try Scratch()
        let pcap = scratch.path("http.pcap")
        let (listener, port) = try await Self.listen(["-k", "--echo", "--record", pcap])
        let got = try await run(try tool("curl"), ["-s", "--data", "recorded body", "http://127.0.0.1:\(port)/rec"])
        #expect(got.status == 0)
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        // Cut as HTTP: the request and the answer, each with the body.
        let capture = try await run(try sockctlPath(), ["capture", "-r", pcap, "--follow", "--framing", "http"])
        #expect(capture.status == 0, "\(capture.stderr)")
        let text = String(decoding: capture.stdout, as: UTF8.self)
        #expect(text.contains("POST /rec HTTP/1.1"), "\(text)")
        #expect(text.contains("HTTP/1.1 200 OK"), "\(text)")
        #expect(text.components(separatedBy: "recorded body").count == 3, "\(text)")
    }

    /// wrk, keep-alive with ten connections: every answer a 2xx, no socket error.
    @Test func wrkSeesOnly2xxAndNoSocketErrors() async throws {
        let scratch = try Scratch()
        let (file, _) = try Self.binaryFile(scratch, size: 512)
        let (listener, port) = try await Self.listen(["-k", "-q", "--respond", file])
        let wrk = try await run(try tool("wrk"), ["-t", "2", "-c", "10", "-d", "1s", "http://127.0.0.1:\(port)/"])
        let text = String(decoding: wrk.stdout, as: UTF8.self)
        #expect(wrk.status == 0, "\(wrk.stderr)")
        #expect(text.contains("requests in"), "\(text)")
        #expect(!text.contains("Non-2xx"), "\(text)")
        #expect(!text.contains("Socket errors"), "\(text)")
        let requests = text.split(separator: "\n").first { $0.contains("requests in") }
            .flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
        #expect(requests > 0, "\(text)")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }
}
