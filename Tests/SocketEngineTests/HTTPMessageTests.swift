import NIOCore
import Testing
@testable import SocketEngine
import TestSupport

@Suite(.hangGuard) struct HTTPMessageTests {
    func parse(_ text: String) throws(SocketEngineError) -> HTTPMessage {
        try HTTPMessage(parsing: ByteBuffer(string: text))
    }

    func failure(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func requestWithContentLength() throws {
        let message = try parse("POST /a?b=1 HTTP/1.1\r\nHost: x\r\nContent-Length:  5 \r\n\r\nhello")
        #expect(!message.isResponse)
        #expect(message.method == "POST")
        #expect(message.target == "/a?b=1")
        #expect(message.status == 0)
        #expect(message.minorVersion == 1)
        #expect(message.startLine == "POST /a?b=1 HTTP/1.1")
        #expect(message.headers.map(\.name) == ["Host", "Content-Length"])
        #expect(message.headers.map(\.value) == ["x", "5"])
        #expect(message.body == ByteBuffer(string: "hello"))
        #expect(message.trailers.isEmpty)
        #expect(!message.isChunked)
        #expect(message.keepAlive)
    }

    @Test func requestWithoutLengthHasNoBody() throws {
        let message = try parse("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(message.body.readableBytes == 0)
        #expect(failure("GET / HTTP/1.1\r\nHost: x\r\n\r\nextra") == "malformed HTTP message at byte 27: 5 bytes after the end of the message")
    }

    @Test func responseStatusReasonAndHeaderLookup() throws {
        let message = try parse("HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\nContent-Length: 2\r\nX-A: 1\r\nx-a: 2\r\n\r\nno")
        #expect(message.isResponse)
        #expect(message.status == 404)
        #expect(message.reason == "Not Found")
        #expect(message.method.isEmpty && message.target.isEmpty)
        #expect(message.value(of: "Content-Type") == "text/plain")
        #expect(message.values(of: "x-a") == ["1", "2"])
        #expect(message.value(of: "missing") == nil)
        #expect(String(buffer: message.body) == "no")
    }

    @Test func statusLineWithoutReason() throws {
        let message = try parse("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n")
        #expect(message.status == 200)
        #expect(message.reason.isEmpty)
    }

    @Test func chunkedBodyIsDechunkedWithExtensionsAndTrailers() throws {
        let wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
            + "3;name=value\r\nabc\r\nA \r\n0123456789\r\n0;last\r\nChecksum: 9\r\nX-End:  yes \r\n\r\n"
        let message = try parse(wire)
        #expect(message.isChunked)
        #expect(String(buffer: message.body) == "abc0123456789")
        #expect(message.trailers.map(\.name) == ["Checksum", "X-End"])
        #expect(message.trailers.map(\.value) == ["9", "yes"])
    }

    @Test func chunkedWithoutTrailers() throws {
        let message = try parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n")
        #expect(String(buffer: message.body) == "x")
        #expect(message.trailers.isEmpty)
    }

    @Test func bareLineFeedsAreAccepted() throws {
        let message = try parse("HTTP/1.1 200 OK\nContent-Length: 1\n\nz")
        #expect(message.status == 200)
        #expect(String(buffer: message.body) == "z")
    }

    /// The scanner passes empty lines before a message on with it (RFC 9112 §2.2).
    @Test func emptyLinesBeforeTheStartLineAreSkipped() throws {
        let message = try parse("\r\n\nGET /x HTTP/1.1\r\n\r\n")
        #expect(message.startLine == "GET /x HTTP/1.1")
        #expect(failure("\r\n") != nil)
    }

    @Test func noBodyStatusesIgnoreContentLength() throws {
        for status in [100, 101, 204, 304] {
            let message = try parse("HTTP/1.1 \(status) X\r\nContent-Length: 10\r\n\r\n")
            #expect(message.body.readableBytes == 0)
            #expect(failure("HTTP/1.1 \(status) X\r\nContent-Length: 1\r\n\r\nz") != nil)
        }
    }

    @Test func responseEndingAtItsHeadIsAnAnswerToHEAD() throws {
        let message = try parse("HTTP/1.1 200 OK\r\nContent-Length: 612\r\n\r\n")
        #expect(message.body.readableBytes == 0)
        #expect(message.keepAlive)
    }

    @Test func responseWithoutLengthRunsToTheEnd() throws {
        let message = try parse("HTTP/1.0 200 OK\r\n\r\nall of it")
        #expect(String(buffer: message.body) == "all of it")
        #expect(!message.keepAlive)
        let unknownCoding = try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzzz")
        #expect(String(buffer: unknownCoding.body) == "zzz")
    }

    @Test func transferEncodingWinsOverContentLength() throws {
        let message = try parse("HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
        #expect(String(buffer: message.body) == "ok")
        #expect(message.hadConflictingFraming)
        #expect(!message.keepAlive)
    }

    @Test func contentLengthRepeatsMustAgree() throws {
        let same = try parse("HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok")
        #expect(String(buffer: same.body) == "ok")
        #expect(failure("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok")?.contains("differing Content-Length values 2 and 3") == true)
        #expect(failure("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nok")?.contains("is not a number") == true)
        #expect(failure("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nok")?.contains("is not a number") == true)
    }

    @Test func keepAliveRules() throws {
        #expect(try parse("GET / HTTP/1.1\r\n\r\n").keepAlive)
        #expect(try !parse("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n").keepAlive)
        #expect(try !parse("GET / HTTP/1.0\r\n\r\n").keepAlive)
        #expect(try parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keepAlive)
        #expect(try !parse("HTTP/1.1 200 OK\r\nConnection: upgrade, close\r\nContent-Length: 0\r\n\r\n").keepAlive)
    }

    @Test func malformedMessagesNameTheByte() {
        #expect(failure("") == "malformed HTTP message at byte 0: the start line has no line end")
        #expect(failure("HTTP/1.1 2x0 OK\r\n\r\n") == "malformed HTTP message at byte 10: the status code is not three digits")
        #expect(failure("HTTP/2 200\r\n\r\n")?.contains("expected 'HTTP/1.x NNN reason'") == true)
        #expect(failure("GET /\r\n\r\n")?.contains("expected 'METHOD target HTTP/1.x'") == true)
        #expect(failure("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n") == "malformed HTTP message at byte 19: a header line without 'name:'")
        #expect(failure("GET / HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n")?.contains("obsolete line folding") == true)
        #expect(failure("GET / HTTP/1.1\r\nA: x\u{1}y\r\n\r\n")?.contains("a control character in a header value") == true)
        #expect(failure("GET / HTTP/1.1\r\nA: x\ry\r\n\r\n")?.contains("a bare CR") == true)
        #expect(failure("GET / HTTP/1.1\r\nHost: x\r\n") == "malformed HTTP message at byte 25: the header section has no line end")
        #expect(failure("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nabc")?.contains("2 bytes short of Content-Length 5") == true)
        #expect(failure("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\nabc")?.contains("does not end in chunked") == true)
    }

    @Test func malformedChunks() {
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(failure(head + "zz\r\n") != nil)
        #expect(failure(head + "5\r\nab\r\n0\r\n\r\n") != nil)
        #expect(failure(head + "2\r\nabc\r\n0\r\n\r\n")?.contains("a chunk longer than its size") == true)
        #expect(failure(head + "2x\r\nab\r\n0\r\n\r\n")?.contains("other than ';extension'") == true)
        #expect(failure(head + "ffffffffffffffffffff\r\n")?.contains("more than 15 hex digits") == true)
        #expect(failure(head + "1\r\na\r\n0\r\n") != nil)
        #expect(failure(head + "1\r\na\r\n0\r\n\r\nmore") != nil)
    }

    @Test func bodySliceKeepsTheBytesAndIgnoresTheReaderIndex() throws {
        var buffer = ByteBuffer(string: "junkHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n\u{0}\u{1}\u{2}")
        buffer.moveReaderIndex(forwardBy: 4)
        let message = try HTTPMessage(parsing: buffer)
        #expect(Array(message.body.readableBytesView) == [0, 1, 2])
        #expect(buffer.readerIndex == 4)
    }

    @Test func equalityComparesStartLineHeadersBodyAndTrailers() throws {
        let plain = try parse("HTTP/1.1 200 OK\r\nA: 1\r\nContent-Length: 2\r\n\r\nok")
        #expect(try plain == parse("HTTP/1.1 200 OK\r\nA: 1\r\nContent-Length: 2\r\n\r\nok"))
        #expect(try plain != parse("HTTP/1.1 200 OK\r\nA: 2\r\nContent-Length: 2\r\n\r\nok"))
        #expect(try plain != parse("HTTP/1.1 200 OK\r\nA: 1\r\nContent-Length: 2\r\n\r\nko"))
        let chunked = try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\no\r\n1\r\nk\r\n0\r\n\r\n")
        let rechunked = try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
        #expect(chunked == rechunked)
    }

    @Test func nonUTF8FieldBytesDoNotTrap() throws {
        var buffer = ByteBuffer(string: "GET / HTTP/1.1\r\nX: ")
        buffer.writeBytes([0xFF, 0xC3, 0x80])
        buffer.writeString("\r\n\r\n")
        let message = try HTTPMessage(parsing: buffer)
        #expect(message.value(of: "x") == "\u{FFFD}\u{C0}")
    }

    /// Every prefix and every single-byte change of valid messages parses or throws: never a trap.
    @Test func everyPrefixAndMutationIsHandled() {
        let wires = [
            "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;e=1\r\nabc\r\n0\r\nT: 1\r\n\r\n",
        ]
        for wire in wires.map({ Array($0.utf8) }) {
            for end in 0...wire.count {
                _ = try? HTTPMessage(parsing: ByteBuffer(bytes: wire[0..<end]))
            }
            for index in wire.indices {
                for byte: UInt8 in [0x00, 0x0A, 0x0D, 0x20, 0x3A, 0x3B, 0x30, 0x66, 0xFF] {
                    var mutated = wire
                    mutated[index] = byte
                    _ = try? HTTPMessage(parsing: ByteBuffer(bytes: mutated))
                }
            }
        }
    }
}
