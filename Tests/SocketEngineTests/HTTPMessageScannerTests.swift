import HTTPScanning
import NIOCore
import Testing
@testable import SocketEngine
import TestSupport

/// What a scanner made of a whole stream: the messages in order, the error that stopped it (if
/// any), and how many bytes it consumed.
struct ScannedStream: Equatable, CustomStringConvertible {
    var messages: [HTTPMessageInfo] = []
    var error: HTTPScanError.Kind?
    /// -1 after an error.
    var consumed = 0

    var description: String { "\(messages.count) messages, error \(error.map { "\($0)" } ?? "none"), consumed \(consumed)" }

    /// Feeds `wire` to a new scanner of `side` as a caller does: the unconsumed front each time,
    /// the next piece after each `cuts` offset, `atEOF` after the last. `heads`: the requests the
    /// responses answer, HEAD or not, in order. Checks on every step that `consumed` stays within
    /// the bytes given and that each message's `wireBytes` are the bytes consumed for it.
    static func scan(
        _ wire: [UInt8], side: HTTPMessageScanner.Side = .either, heads: [Bool] = [], cuts: [Int] = [], maximumHeadSize: Int = 64 * 1024
    ) -> ScannedStream {
        var scanner = HTTPMessageScanner(side: side, maximumHeadSize: maximumHeadSize)
        for head in heads { scanner.expectResponse(toHEAD: head) }
        var result = ScannedStream()
        var sinceLast = 0
        let ends = (cuts.filter { $0 > 0 && $0 < wire.count } + [wire.count]).sorted()
        var calls = 0
        for end in ends {
            let atEOF = end == wire.count
            while true {
                calls += 1
                guard calls < 4 * (wire.count + 8) else {
                    Issue.record("no progress after \(calls) calls")
                    return result
                }
                let outcome = wire[result.consumed..<end].withUnsafeBytes { bytes -> Result<(consumed: Int, completed: HTTPMessageInfo?), HTTPScanError> in
                    do throws(HTTPScanError) {
                        return .success(try scanner.scan(bytes, atEOF: atEOF))
                    } catch {
                        return .failure(error)
                    }
                }
                let step: (consumed: Int, completed: HTTPMessageInfo?)
                switch outcome {
                case .success(let value): step = value
                case .failure(let error):
                    // What an erring call consumed is not said: the count is left out.
                    result.error = error.kind
                    result.consumed = -1
                    return result
                }
                #expect(step.consumed >= 0 && step.consumed <= end - result.consumed)
                result.consumed += step.consumed
                sinceLast += step.consumed
                if let message = step.completed {
                    // Empty lines before a message are consumed with it but are not part of it.
                    #expect(message.wireBytes <= sinceLast && message.wireBytes > 0, "wireBytes \(message.wireBytes) for \(sinceLast) consumed")
                    #expect(wire[(result.consumed - sinceLast)..<(result.consumed - message.wireBytes)].allSatisfy { $0 == 0x0D || $0 == 0x0A })
                    result.messages.append(message)
                    sinceLast = 0
                    continue
                }
                if step.consumed == 0 { break }
            }
        }
        return result
    }
}

/// ``HTTPMessageScanner`` on every RFC 9112 §6.3 case, fed whole, at every split point and byte
/// by byte, with the same result each way.
@Suite(.serialized, .hangGuard) struct HTTPMessageScannerTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var wire: String
        var side: HTTPMessageScanner.Side = .either
        var heads: [Bool] = []
        /// Per message: status (0 for a request), body bytes, wire bytes, length rule, keep-alive.
        var expected: [Expected]
        var error: HTTPScanError.Kind?
        var description: String { name }
    }

    struct Expected: Sendable, Equatable {
        var status: Int
        var body: Int
        var wire: Int
        var length: HTTPMessageInfo.BodyLength
        var keepAlive = true
        var interim = false
        var head = false

        init(_ info: HTTPMessageInfo) {
            status = info.status
            body = info.bodyBytes
            wire = info.wireBytes
            length = info.bodyLength
            keepAlive = info.keepAlive
            interim = info.isInterim
            head = info.isHEADRequest
        }

        init(status: Int, body: Int, wire: String, length: HTTPMessageInfo.BodyLength, keepAlive: Bool = true, interim: Bool = false, head: Bool = false) {
            self.status = status
            self.body = body
            self.wire = wire.utf8.count
            self.length = length
            self.keepAlive = keepAlive
            self.interim = interim
            self.head = head
        }
    }

    static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    static let chunkedWithExtensionsAndTrailers =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3;a=b\r\nabc\r\nA;x\r\n0123456789\r\n0;last=1\r\nChecksum: 9\r\nX-T: y\r\n\r\n"

    static let cases: [Case] = [
        Case(
            name: "HEAD with Content-Length: no body, the next response follows at once",
            wire: "HTTP/1.1 200 OK\r\nContent-Length: 612\r\n\r\n" + ok, side: .responses, heads: [true, false],
            expected: [
                Expected(status: 200, body: 0, wire: "HTTP/1.1 200 OK\r\nContent-Length: 612\r\n\r\n", length: .none),
                Expected(status: 200, body: 2, wire: ok, length: .contentLength(2)),
            ]
        ),
        Case(
            name: "1xx then the final response; interim ones do not answer the HEAD",
            wire: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n" + ok,
            side: .responses, heads: [true],
            expected: [
                Expected(status: 100, body: 0, wire: "HTTP/1.1 100 Continue\r\n\r\n", length: .none, interim: true),
                Expected(status: 103, body: 0, wire: "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", length: .none, interim: true),
                Expected(status: 200, body: 0, wire: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", length: .none),
                Expected(status: 200, body: 2, wire: ok, length: .contentLength(2)),
            ]
        ),
        Case(
            name: "204 and 304 with Content-Length have no body",
            wire: "HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\nTransfer-Encoding: chunked\r\n\r\n" + ok,
            expected: [
                Expected(status: 204, body: 0, wire: "HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n", length: .none),
                Expected(status: 304, body: 0, wire: "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\nTransfer-Encoding: chunked\r\n\r\n", length: .none),
                Expected(status: 200, body: 2, wire: ok, length: .contentLength(2)),
            ]
        ),
        Case(
            name: "chunked with extensions and trailers",
            wire: chunkedWithExtensionsAndTrailers + ok,
            expected: [
                Expected(status: 200, body: 13, wire: chunkedWithExtensionsAndTrailers, length: .chunked),
                Expected(status: 200, body: 2, wire: ok, length: .contentLength(2)),
            ]
        ),
        Case(
            name: "Transfer-Encoding and Content-Length: chunked wins, the connection closes after",
            wire: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            expected: [
                Expected(
                    status: 200, body: 2, wire: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
                    length: .chunked, keepAlive: false
                ),
            ]
        ),
        Case(
            name: "differing Content-Lengths are an error",
            wire: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok", expected: [], error: .conflictingContentLength
        ),
        Case(
            name: "a Content-Length list of differing values is an error, of equal ones is not",
            wire: "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\nok",
            expected: [Expected(status: 200, body: 2, wire: "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok", length: .contentLength(2))],
            error: .conflictingContentLength
        ),
        Case(
            name: "a request with neither length has no body",
            wire: "GET /a HTTP/1.1\r\nHost: x\r\n\r\nHEAD /b HTTP/1.1\r\n\r\nPOST /c HTTP/1.1\r\nContent-Length: 1\r\n\r\nz", side: .requests,
            expected: [
                Expected(status: 0, body: 0, wire: "GET /a HTTP/1.1\r\nHost: x\r\n\r\n", length: .none),
                Expected(status: 0, body: 0, wire: "HEAD /b HTTP/1.1\r\n\r\n", length: .none, head: true),
                Expected(status: 0, body: 1, wire: "POST /c HTTP/1.1\r\nContent-Length: 1\r\n\r\nz", length: .contentLength(1)),
            ]
        ),
        Case(
            name: "a response with neither length runs until close",
            wire: "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", side: .responses,
            expected: [
                Expected(
                    status: 200, body: ok.utf8.count, wire: "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                    length: .untilClose, keepAlive: false
                ),
            ]
        ),
        Case(
            name: "HTTP/1.0 closes unless keep-alive is asked",
            wire: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: Keep-Alive\r\n\r\nokHTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
            expected: [
                Expected(status: 200, body: 2, wire: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: Keep-Alive\r\n\r\nok", length: .contentLength(2)),
                Expected(status: 200, body: 2, wire: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", length: .contentLength(2), keepAlive: false),
            ]
        ),
        Case(
            name: "HTTP/1.0 requests: keep-alive only when asked",
            wire: "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.0\r\n\r\n", side: .requests,
            expected: [
                Expected(status: 0, body: 0, wire: "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", length: .none),
                Expected(status: 0, body: 0, wire: "GET / HTTP/1.0\r\n\r\n", length: .none, keepAlive: false),
            ]
        ),
        Case(
            name: "Connection: close (among other tokens, any case) ends keep-alive",
            wire: "HTTP/1.1 200 OK\r\nconnection: TE, Close\r\nContent-Length: 2\r\n\r\nok",
            expected: [Expected(status: 200, body: 2, wire: "HTTP/1.1 200 OK\r\nconnection: TE, Close\r\nContent-Length: 2\r\n\r\nok", length: .contentLength(2), keepAlive: false)]
        ),
        Case(
            name: "a request's Transfer-Encoding must end in chunked",
            wire: "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", side: .requests, expected: [], error: .badTransferEncoding
        ),
        Case(
            name: "a response whose Transfer-Encoding does not end in chunked runs until close",
            wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzzz",
            expected: [Expected(status: 200, body: 3, wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzzz", length: .untilClose, keepAlive: false)]
        ),
        Case(
            name: "a body cut by the close is truncated",
            wire: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", expected: [], error: .truncated
        ),
        Case(
            name: "a head cut by the close is truncated",
            wire: ok + "HTTP/1.1 200 OK\r\nContent-", expected: [Expected(status: 200, body: 2, wire: ok, length: .contentLength(2))], error: .truncated
        ),
        Case(
            name: "a chunked body cut by the close is truncated",
            wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n", expected: [], error: .truncated
        ),
        Case(
            name: "bytes after a 101 are not HTTP",
            wire: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\u{81}",
            expected: [Expected(status: 101, body: 0, wire: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", length: .none)],
            error: .switchedProtocols
        ),
        Case(
            name: "requests and responses told apart per message",
            wire: "GET / HTTP/1.1\r\n\r\n" + ok, side: .either,
            expected: [
                Expected(status: 0, body: 0, wire: "GET / HTTP/1.1\r\n\r\n", length: .none),
                Expected(status: 200, body: 2, wire: ok, length: .contentLength(2)),
            ]
        ),
        Case(name: "a response on the request side", wire: ok, side: .requests, expected: [], error: .badStartLine),
        Case(name: "a request on the response side", wire: "GET / HTTP/1.1\r\n\r\n", side: .responses, expected: [], error: .badStartLine),
        Case(name: "a bad chunk size", wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", expected: [], error: .badChunk),
        Case(name: "a chunk longer than its size", wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n0\r\n\r\n", expected: [], error: .badChunk),
        Case(name: "a folded header", wire: "HTTP/1.1 200 OK\r\nA: 1\r\n 2\r\n\r\n", expected: [], error: .badHeader),
        Case(name: "a Content-Length that is not a number", wire: "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", expected: [], error: .badContentLength),
        Case(name: "a status line that is not HTTP/1.x", wire: "HTTP/2 200\r\n\r\n", expected: [], error: .badStartLine),
        Case(
            name: "empty lines before a message are skipped; bare LF line ends are accepted",
            wire: "\r\n\nGET / HTTP/1.1\nContent-Length: 1\n\nz", side: .requests,
            expected: [Expected(status: 0, body: 1, wire: "GET / HTTP/1.1\nContent-Length: 1\n\nz", length: .contentLength(1))]
        ),
    ]

    func check(_ result: ScannedStream, _ testCase: Case, _ how: String) {
        #expect(result.messages.map(Expected.init) == testCase.expected, "\(testCase.name), \(how)")
        #expect(result.error == testCase.error, "\(testCase.name), \(how)")
        if testCase.error == nil { #expect(result.consumed == testCase.wire.utf8.count, "\(testCase.name), \(how)") }
    }

    @Test(arguments: cases)
    func wholeEverySplitAndByteByByte(_ testCase: Case) {
        let wire = Array(testCase.wire.utf8)
        let whole = ScannedStream.scan(wire, side: testCase.side, heads: testCase.heads)
        check(whole, testCase, "whole")
        for split in 1..<max(1, wire.count) {
            let result = ScannedStream.scan(wire, side: testCase.side, heads: testCase.heads, cuts: [split])
            #expect(result == whole, "\(testCase.name), split at \(split): \(result) vs \(whole)")
        }
        let dripped = ScannedStream.scan(wire, side: testCase.side, heads: testCase.heads, cuts: Array(0..<wire.count))
        #expect(dripped == whole, "\(testCase.name), byte by byte")
    }

    @Test(arguments: cases)
    func randomSplits(_ testCase: Case) {
        let wire = Array(testCase.wire.utf8)
        let whole = ScannedStream.scan(wire, side: testCase.side, heads: testCase.heads)
        var random = SplitMix64(seed: UInt64(wire.count))
        for _ in 0..<50 {
            let cuts = (0..<Int(random.next() % 6)).map { _ in Int(random.next() % UInt64(max(1, wire.count))) }
            let result = ScannedStream.scan(wire, side: testCase.side, heads: testCase.heads, cuts: cuts)
            #expect(result == whole, "\(testCase.name), cuts \(cuts)")
        }
    }

    @Test func aHeadOverTheLimitIsRefused() {
        let wire = Array(("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 300) + "\r\n\r\n").utf8)
        #expect(ScannedStream.scan(wire, maximumHeadSize: 256).error == .headTooLarge)
        #expect(ScannedStream.scan(wire, cuts: Array(0..<wire.count), maximumHeadSize: 256).error == .headTooLarge)
        let long = Array(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "e", count: 5000) + "\r\n").utf8)
        #expect(ScannedStream.scan(long).error == .headTooLarge, "a chunk-size line is bounded too")
    }

    @Test func responsesWithoutAKnownRequestAreNotHEADAnswers() {
        // More responses than HEAD flags: the rest answer non-HEAD requests.
        let wire = Array((Self.ok + Self.ok).utf8)
        let result = ScannedStream.scan(wire, heads: [false])
        #expect(result.messages.map(\.bodyBytes) == [2, 2])
    }
}
