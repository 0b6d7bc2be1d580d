import NIOCore
import NIOEmbedded
import SocketEngine
import Testing
@testable import LoadGen
import TestSupport

/// One load-test connection to an `http://` target on an `EmbeddedChannel` (issue 29): the test
/// is the server, reads each request as written and answers with the bytes it chooses, so the
/// HTTP rules are checked exactly — status counting, pipelined answers in order, a server's
/// close re-sending what was pipelined, a cut or malformed response, a 100 MiB body kept in no
/// buffer, HEAD, interim responses.
@Suite(.hangGuard) struct LoadHTTPConnectionTests {
    typealias Fixture = LoadConnectionFixture

    /// A connection to `target` sending `request`; `configure` sets the rest (one connection,
    /// closed loop, pipeline 1 unless it says otherwise).
    static func fixture(
        _ target: String = "http://127.0.0.1:7000/item/{{seq}}", request: HTTPRequestTemplate = HTTPRequestTemplate(),
        _ configure: (inout LoadPlan) -> Void = { _ in }
    ) throws -> Fixture {
        try Fixture { plan in
            plan.endpoints = [try Endpoint(parsing: target)]
            plan.framing = .http
            plan.http = request
            configure(&plan)
        }
    }

    static func response(_ status: Int, body: String = "ok", headers: String = "") -> String {
        "HTTP/1.1 \(status) X\r\nContent-Length: \(body.utf8.count)\r\n\(headers)\r\n\(body)"
    }

    @Test func requestsAreWholeHTTPMessagesFromTheTarget() throws {
        let fixture = try Self.fixture { $0.requests = 2 }
        #expect(try Fixture.written(fixture.channel) == "GET /item/1 HTTP/1.1\r\nHost: 127.0.0.1:7000\r\nUser-Agent: sockctl\r\n\r\n")
        let post = try Self.fixture("http://127.0.0.1/submit", request: HTTPRequestTemplate(
            method: "POST", headers: [("Content-Type", "application/json"), ("X-Conn", "{{conn}}")], body: Array(#"{"id":{{seq}}}"#.utf8), userAgent: "sockctl/9")) {
            $0.requests = 2
        }
        #expect(try Fixture.written(post.channel)
            == "POST /submit HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: sockctl/9\r\nContent-Type: application/json\r\nX-Conn: 1\r\nContent-Length: 8\r\n\r\n{\"id\":1}")
        // A constant request is one prebuilt buffer.
        let constant = try HTTPRequestTemplate(headers: [("User-Agent", "mine")], body: Array("abc".utf8)).template(for: try Endpoint(parsing: "http://[::1]:8080/x?y=1"))
        #expect(constant.isConstant)
        #expect(String(buffer: constant.message(sequence: 5, connection: 1)) == "GET /x?y=1 HTTP/1.1\r\nHost: [::1]:8080\r\nUser-Agent: mine\r\nContent-Length: 3\r\n\r\nabc")
        // A header given empty is not sent, and leaves a default out (curl's -H 'User-Agent:'):
        // the request wrk sends.
        let bare = try HTTPRequestTemplate(headers: [("User-Agent", ""), ("X-None", "")]).template(for: try Endpoint(parsing: "http://127.0.0.1:8080/file"))
        #expect(String(buffer: bare.message(sequence: 1, connection: 1)) == "GET /file HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n")
        // Content-Length follows the numbers' widths.
        let growing = try HTTPRequestTemplate(method: "PUT", body: Array("n={{seq}}".utf8)).template(for: try Endpoint(parsing: "http://h/"))
        #expect(String(buffer: growing.message(sequence: 12345, connection: 1)).hasSuffix("Content-Length: 7\r\n\r\nn=12345"))
        for bad in [HTTPRequestTemplate(method: "GE T"), HTTPRequestTemplate(headers: [("Content-Length", "5")]), HTTPRequestTemplate(headers: [("X", "a\r\nb")])] {
            #expect(throws: LoadGenError.self) { try bad.template(for: try Endpoint(parsing: "http://h/")) }
        }
    }

    @Test func responsesAreCountedByStatus() throws {
        let fixture = try Self.fixture { $0.requests = 3 }
        for status in [200, 503, 200] {
            _ = try Fixture.written(fixture.channel)
            try fixture.reply(Self.response(status))
        }
        #expect(fixture.counters.messagesReceived == 3)
        #expect(fixture.counters.http?[200] == 2)
        #expect(fixture.counters.http?[503] == 1)
        #expect(fixture.counters.errors.isEmpty)
        #expect(fixture.counters.bytesReceived == 3 * Self.response(200).utf8.count)
    }

    /// Four requests in flight (open loop, 1 ms apart), answered by one read: in order, the
    /// oldest first (its latency the longest).
    @Test func pipelinedResponsesAnswerInOrder() throws {
        let fixture = try Self.fixture {
            $0.rate = 1000
            $0.pipeline = 4
            $0.requests = 4
        }
        fixture.advance(toMilliseconds: 3)
        let requests = try Fixture.written(fixture.channel)
        #expect(requests.components(separatedBy: "GET /item/").count == 5)
        fixture.advance(toMilliseconds: 10)
        try fixture.reply(Self.response(200) + Self.response(201) + Self.response(202, body: "chunk"))
        #expect(fixture.handler.outstandingCount == 1)
        #expect(fixture.latencies(fixture.stats.corrected) == [8_003_583, 9_003_007, 10_002_431].sorted())
        try fixture.reply("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        #expect(fixture.counters.messagesReceived == 4)
        #expect(fixture.latencies(fixture.stats.corrected).count == 4)
    }

    /// `Connection: close` after the first of three pipelined requests: it is answered, the
    /// connection closes and the slot asks for a new one at once (no loss, no error); the two
    /// unanswered go again first on it, with their own numbers, not counted as sent twice.
    @Test func aServerCloseReopensAtOnceAndResendsWhatWasPipelined() throws {
        let fixture = try Self.fixture {
            $0.pipeline = 3
            $0.requests = 5
        }
        #expect(try Fixture.written(fixture.channel).components(separatedBy: "GET /item/").count == 4)
        try fixture.reply(Self.response(200, headers: "Connection: close\r\n"))
        #expect(!fixture.channel.isActive)
        fixture.loop.run()
        #expect(fixture.reconnects.count == 1)
        #expect(fixture.counters.http?.serverCloses == 1)
        #expect(fixture.counters.lost == 0 && fixture.counters.connectionsLost == 0 && fixture.counters.errors.isEmpty)
        #expect(fixture.shard.outstanding == 2, "the two unanswered wait for the new connection")
        let (channel, handler) = try fixture.reopen()
        let again = try Fixture.written(channel)
        #expect(again.components(separatedBy: "\r\n\r\n").compactMap { $0.split(separator: " ").dropFirst().first } == ["/item/2", "/item/3", "/item/4"])
        #expect(fixture.counters.messagesSent == 4)
        for _ in 0..<4 {
            try channel.writeInbound(ByteBuffer(string: Self.response(200)))
            _ = try Fixture.written(channel)
        }
        #expect(handler.outstandingCount == 0)
        let counters = fixture.counters
        #expect(counters.messagesSent == 5 && counters.messagesReceived == 5)
        #expect(counters.messagesSent == counters.messagesReceived + counters.timedOut + counters.lost)
        #expect(counters.http?[200] == 5)
    }

    /// A body that runs until the server closes ends at the close: answered, a server's close.
    @Test func aBodyUntilCloseEndsAtTheClose() throws {
        let fixture = try Self.fixture { $0.requests = 2 }
        _ = try Fixture.written(fixture.channel)
        try fixture.reply("HTTP/1.1 200 OK\r\n\r\nall of it")
        #expect(fixture.counters.messagesReceived == 0)
        try fixture.channel.close().wait()
        #expect(fixture.counters.messagesReceived == 1)
        #expect(fixture.counters.http?.serverCloses == 1)
        #expect(fixture.counters.errors.isEmpty)
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", true, "the connection ended inside a body"),
        ("HTTP/1.1 200 OK\r\nContent-Le", true, "the connection ended inside"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello", false, "Content-Length"),
        ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", false, "switched protocols (101)"),
        ("HTTP/1.1 700 Odd\r\nContent-Length: 0\r\n\r\n", false, "status 700 is not an HTTP status"),
        ("HTTP/1.1 2OO OK\r\n\r\n", false, "bad HTTP response"),
    ])
    func aCutOrMalformedResponseIsAnHTTPError(bytes: String, serverCloses: Bool, message: String) throws {
        let fixture = try Self.fixture { $0.requests = 2 }
        _ = try Fixture.written(fixture.channel)
        try fixture.reply(bytes)
        if serverCloses { try fixture.channel.close().wait() }
        #expect(!fixture.channel.isActive)
        #expect(fixture.counters.errors == [.http: 1])
        #expect(fixture.counters.lost == 1)
        #expect(fixture.counters.messagesReceived == 0)
        let example = try #require(fixture.stats.firstErrors[.http])
        #expect(example.rendered { $0.rawValue }.contains(message), "\(example.rendered { $0.rawValue })")
    }

    /// A 100 MiB body fed in 64 KiB reads: answered once, and no read leaves a byte of it behind.
    @Test func aHundredMebibyteBodyKeepsNoBody() throws {
        let fixture = try Self.fixture { $0.requests = 2 }
        _ = try Fixture.written(fixture.channel)
        let size = 100 << 20
        try fixture.reply("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n")
        #expect(fixture.handler.bufferedBytes == 0)
        let chunk = ByteBuffer(repeating: 0x61, count: 64 << 10)
        var peak = 0
        for _ in 0..<(size / chunk.readableBytes) {
            try fixture.channel.writeInbound(chunk)
            peak = max(peak, fixture.handler.bufferedBytes)
        }
        #expect(peak == 0)
        #expect(fixture.counters.messagesReceived == 1)
        #expect(fixture.counters.bytesReceived == size + "HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n".utf8.count)
        // A head split over reads is the only thing kept.
        try fixture.reply("HTTP/1.1 200 OK\r\nContent-")
        #expect(fixture.handler.bufferedBytes == 25)
        try fixture.reply("Length: 2\r\n\r\nok")
        #expect(fixture.handler.bufferedBytes == 0)
        #expect(fixture.counters.messagesReceived == 2)
    }

    /// HEAD: a response's Content-Length announces the body it would have; none follows.
    @Test func headResponsesHaveNoBody() throws {
        let fixture = try Self.fixture(request: HTTPRequestTemplate(method: "HEAD")) {
            $0.pipeline = 2
            $0.requests = 3
        }
        #expect(try Fixture.written(fixture.channel).hasPrefix("HEAD /item/1 HTTP/1.1\r\n"))
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"
        try fixture.reply(head + head)
        #expect(fixture.counters.messagesReceived == 2)
        try fixture.reply(head)
        #expect(fixture.counters.messagesReceived == 3)
        #expect(fixture.counters.errors.isEmpty)
    }

    /// `100 Continue` and `103 Early Hints` answer nothing; the final response does.
    @Test func interimResponsesDoNotAnswer() throws {
        let fixture = try Self.fixture { $0.requests = 1 }
        _ = try Fixture.written(fixture.channel)
        try fixture.reply("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n")
        #expect(fixture.counters.messagesReceived == 0)
        #expect(fixture.handler.outstandingCount == 1)
        try fixture.reply(Self.response(204, body: ""))
        #expect(fixture.counters.messagesReceived == 1)
        #expect(fixture.counters.http?.interim == 2)
        #expect(fixture.counters.http?.statuses.map(\.code) == [204])
    }

    /// `--label http:path` (and method, target) reads each request's request line; `json:` its body.
    @Test func labelsReadTheRequestLineOrTheBody() throws {
        for (rule, expected) in [("http:path", ["/item/1", "/item/2"]), ("http:target", ["/item/1?q=a", "/item/2?q=a"]), ("http:method", ["POST"]), ("json:$.op", ["get"])] {
            let fixture = try Self.fixture("http://127.0.0.1:7000/item/{{seq}}?q=a", request: HTTPRequestTemplate(method: "POST", body: Array(#"{"op":"get"}"#.utf8))) {
                $0.requests = 2
                $0.label = try? MessageField(parsing: rule, option: .label)
            }
            for _ in 0..<2 {
                _ = try Fixture.written(fixture.channel)
                try fixture.reply(Self.response(200))
            }
            #expect(fixture.stats.labels.entries.map(\.name) == expected, "\(rule)")
            #expect(fixture.stats.labels.entries.map(\.received).reduce(0, +) == 2)
        }
        #expect(throws: LoadGenError.self) { try MessageField(parsing: "http:query", option: .label) }
    }
}
