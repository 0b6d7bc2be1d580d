import NIOCore
import TestSupport
import Testing
@testable import SocketEngine

/// `listen http://`'s answers made from whole requests, with a wall clock the test fixes.
@Suite(.hangGuard)
struct ListenHTTPResponderTests {
    /// 1994-11-06 08:49:37 UTC, RFC 9110's example date.
    static let exampleInstant: Int64 = 784_111_777

    static func responder(_ mode: ListenMode, status: Int = 200, headers: [(name: String, value: String)] = []) -> HTTPResponder {
        var template = HTTPResponseTemplate()
        template.status = status
        template.headers = headers
        template.wallClock = { exampleInstant }
        return HTTPResponder(mode: mode, template: template, client: ClientInfo(id: 1, peer: "127.0.0.1:5123")) { _ in }
    }

    @Test func theDateIsAnIMFFixdate() {
        #expect(HTTPDate.format(secondsSinceEpoch: Self.exampleInstant) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(secondsSinceEpoch: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(secondsSinceEpoch: 951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(secondsSinceEpoch: 4_102_444_799) == "Thu, 31 Dec 2099 23:59:59 GMT")
    }

    @Test func aRespondAnswerIsWholeAndAHEADAnswerHasNoBody() {
        let responder = Self.responder(.respond(ByteBuffer(string: "hello")), headers: [("X-Test", "1")])
        let get = responder.answer(ByteBuffer(string: "GET /x HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(get.bytes.map { String(buffer: $0) } == "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 5\r\nX-Test: 1\r\n\r\nhello")
        #expect(!get.closeAfter)
        let head = responder.answer(ByteBuffer(string: "HEAD /x HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(head.bytes.map { String(buffer: $0) } == "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 5\r\nX-Test: 1\r\n\r\n")
    }

    @Test func closeAndHTTP10EndTheConnectionAndKeepAliveKeepsIt() {
        let responder = Self.responder(.print)
        #expect(responder.answer(ByteBuffer(string: "GET / HTTP/1.1\r\nConnection: close\r\n\r\n")).closeAfter)
        #expect(responder.answer(ByteBuffer(string: "GET / HTTP/1.0\r\n\r\n")).closeAfter)
        let kept = responder.answer(ByteBuffer(string: "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"))
        #expect(!kept.closeAfter)
        #expect(kept.bytes.map { String(buffer: $0).contains("\r\nConnection: keep-alive\r\n") } == true)
    }

    @Test func echoDechunksAndCopiesTheContentType() {
        let responder = Self.responder(.echo)
        let answer = responder.answer(ByteBuffer(string: "POST / HTTP/1.1\r\nContent-Type: text/x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"))
        let text = answer.bytes.map { String(buffer: $0) } ?? ""
        #expect(text.hasSuffix("Content-Length: 5\r\nContent-Type: text/x\r\n\r\nabcde"), "\(text)")
    }

    @Test func continueOnlyForAWholeHeadThatAsks() {
        let responder = Self.responder(.echo)
        #expect(responder.interim(ByteBuffer(string: "POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")).map { String(buffer: $0) }
            == "HTTP/1.1 100 Continue\r\n\r\n")
        #expect(responder.interim(ByteBuffer(string: "POST / HTTP/1.1\r\nExpect: 100-continue\r\n")) == nil)
        #expect(responder.interim(ByteBuffer(string: "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nab")) == nil)
    }

    @Test func noBodyFor204AndLastWordsByError() {
        let responder = Self.responder(.respond(ByteBuffer(string: "ignored")), status: 204)
        let answer = responder.answer(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        #expect(answer.bytes.map { String(buffer: $0) } == "HTTP/1.1 204 No Content\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n")
        let tooLarge = responder.lastWords(for: SocketEngineError(.frameTooLarge, "x")).map { String(buffer: $0) } ?? ""
        #expect(tooLarge.hasPrefix("HTTP/1.1 413 "))
        #expect(responder.lastWords(for: SocketEngineError(.httpProtocol, "x")).map { String(buffer: $0).hasPrefix("HTTP/1.1 400 Bad Request\r\n") } == true)
        #expect(responder.lastWords(for: SocketEngineError(.connectionReset, "x")) == nil)
    }
}
