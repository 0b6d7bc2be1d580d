import Testing
@testable import PacketDecoding

/// The HTTP/1.1 view on byte streams written here, for the cases the recorded sessions do not
/// hold: 100-continue, 204 and 304, pipelined requests in one segment, a head split over
/// segments, a 101 (the view steps aside), bytes that are not HTTP, a gap, and a request line
/// that does not end in HTTP/1.x (not taken as HTTP at all).
@Suite(.hangGuard) struct HTTP1ViewTests {
    /// The text of every item, feeding `chunks` as (side, bytes) in order, then FINs.
    static func lines(_ chunks: [(Int, String)], fin: [Int] = [], views: ProtocolViews = .http) -> [String] {
        var connection = ConnectionViews(views: views, payloadLimit: 64)
        var lines: [String] = []
        func emit(_ item: ViewItem) {
            var out: [UInt8] = []
            item.appendText(into: &out)
            lines.append(String(decoding: out, as: UTF8.self))
        }
        for (side, text) in chunks {
            Array(text.utf8).withUnsafeBytes { _ = connection.consume($0, side: side, emit: emit) }
        }
        for side in fin { connection.end(side: side, emit: emit) }
        return lines
    }

    @Test func interimAndBodylessResponsesAndPipelining() {
        let lines = Self.lines([
            (0, "POST /up HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"),
            (1, "HTTP/1.1 100 Continue\r\n\r\n"),
            (0, "abc"),
            (1, "HTTP/1.1 204 No Content\r\n\r\n"),
            (0, "GET /a HTTP/1.1\r\nHost: a\r\n\r\nHEAD /b HTTP/1.1\r\nHost: a\r\n\r\nGET /c HTTP/1.1\r\nHo"),
            (0, "st: a\r\n\r\n"),
            (1, "HTTP/1.1 304 Not Modified\r\nETag: x\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"),
        ])
        #expect(lines == [
            "HTTP response HTTP/1.1 100 Continue | no body",
            "HTTP request POST /up HTTP/1.1 | Host: a, Expect: 100-continue, Content-Length: 3 | body 3 bytes (Content-Length)",
            "HTTP response HTTP/1.1 204 No Content | no body",
            "HTTP request GET /a HTTP/1.1 | Host: a | no body",
            "HTTP request HEAD /b HTTP/1.1 | Host: a | no body",
            "HTTP request GET /c HTTP/1.1 | Host: a | no body",
            "HTTP response HTTP/1.1 304 Not Modified | ETag: x | no body",
            "HTTP response HTTP/1.1 200 OK | Content-Length: 9 | no body",
            "HTTP response HTTP/1.1 200 OK | Transfer-Encoding: chunked | body 2 bytes (chunked)",
        ], "the 200 to HEAD has no body although it says Content-Length: 9")
    }

    @Test func aResponseUntilCloseEndsAtTheServersFIN() {
        let lines = Self.lines([(0, "GET / HTTP/1.0\r\n\r\n"), (1, "HTTP/1.0 200 OK\r\n\r\nsome"), (1, " bytes")], fin: [1])
        #expect(lines.last == "HTTP response HTTP/1.0 200 OK | body 10 bytes (until close)")
    }

    @Test func a101LeavesTheConnectionToOtherViewsOrNone() {
        let upgrade = "GET /chat HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
        let answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{02}hi"
        let httpOnly = Self.lines([(0, upgrade), (1, answer), (0, "\u{81}\u{82}abcdxyzw")])
        #expect(httpOnly.count == 2 && httpOnly[1].hasPrefix("HTTP response HTTP/1.1 101 Switching Protocols | "), "\(httpOnly)")
        let both = Self.lines([(0, upgrade), (1, answer)], views: [.http, .webSocket])
        #expect(both.first == "WebSocket upgrade request GET /chat", "the WebSocket view takes the upgrade: \(both)")
    }

    @Test func whatIsNotHTTPIsLeftAloneOrLostOnce() {
        #expect(Self.lines([(0, "EHLO mail.example\r\n"), (1, "250 ok\r\n")]).isEmpty)
        #expect(Self.lines([(0, "GET / RTSP/1.0\r\n\r\n")]).isEmpty)
        let broken = Self.lines([(0, "GET / HTTP/1.1\r\nbad header line\r\n\r\nGET / HTTP/1.1\r\n\r\n")])
        #expect(broken == ["HTTP/1.1: lost track of this direction (a gap or reordering in the capture)"])
    }

    @Test func aGapStopsTheDirection() {
        var connection = ConnectionViews(views: .http, payloadLimit: 64)
        var items: [ViewItem] = []
        Array("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc".utf8).withUnsafeBytes { _ = connection.consume($0, side: 0) { items.append($0) } }
        Array("xyz".utf8).withUnsafeBytes { connection.gap(side: 0, next: $0) { items.append($0) } }
        Array("GET / HTTP/1.1\r\n\r\n".utf8).withUnsafeBytes { _ = connection.consume($0, side: 0) { items.append($0) } }
        #expect(items == [.lostSync(.http)])
    }
}
