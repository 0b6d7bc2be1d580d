import PacketDecoding
import Recording
import SocketEngine
import Testing
import TestSupport

/// `capture --follow`: a stream's bytes in order with direction markers, the same however the
/// packets cut them, and framed messages one per line.
@Suite(.hangGuard) struct StreamFollowerTests {
    /// `flushEachPacket`: the output buffer is written away and emptied after every packet, as
    /// `capture -l` (and any flush) does.
    func follow(_ session: CraftedSession, framing: Framing? = nil, flushEachPacket: Bool = false) -> String {
        var follower = StreamFollower(framing: framing)
        var out: [UInt8] = []
        var written: [UInt8] = []
        for (time, frame) in session.frames {
            let header = PacketHeader(
                seconds: time / 1_000_000_000, fraction: UInt32(time % 1_000_000_000), precision: .nanoseconds,
                capturedLength: frame.count, originalLength: frame.count, linkType: .ethernet
            )
            frame.withUnsafeBytes { follower.packet(header, $0, into: &out) }
            if flushEachPacket {
                written += out
                out.removeAll(keepingCapacity: true)
            }
        }
        follower.finish(into: &out)
        return String(decoding: written + out, as: UTF8.self)
    }

    /// The same request sent whole, and drip-fed one byte per segment.
    func session(_ request: String, dripFed: Bool) -> CraftedSession {
        var session = CraftedSession()
        session.add(session.connection.open())
        if dripFed {
            for character in request { session.data(String(character), from: .client, after: 1) }
        } else {
            session.data(request, from: .client, after: 1)
        }
        session.data("{\"ok\":true,\"items\":[1,2]}\r\n", from: .server, after: 1)
        session.add(session.connection.close(first: .client), after: 1)
        return session
    }

    @Test func aDripFedStreamPrintsAsTheWholeOne() {
        let request = "{\"id\":7,\"op\":\"get\"}\r\n{\"id\":8}\r\n"
        let whole = follow(session(request, dripFed: false))
        let dripped = follow(session(request, dripFed: true))
        #expect(dripped == whole)
        #expect(whole.hasPrefix("== stream 1: 127.0.0.1.40000 > 127.0.0.1.7000 (tcp)\n[1] >>\n{\"id\":7"), "\(whole)")
        #expect(whole.hasSuffix("== stream 1 end: FIN\n"), "\(whole)")
    }

    @Test func framedMessagesArePrettyPrintedOnePerEntry() {
        let text = follow(session("{\"id\":7,\"op\":\"get\"}\r\n", dripFed: true), framing: .crlf)
        #expect(text.contains("[1] >> {\n  \"id\": 7,\n  \"op\": \"get\"\n}\n"), "\(text)")
        #expect(text.contains("[1] << {\n  \"ok\": true,\n  \"items\": [\n    1,\n    2\n  ]\n}\n"), "\(text)")
    }

    @Test func bytesThatAreNotTextAreHexDumped() {
        var session = CraftedSession()
        session.add(session.connection.open())
        session.data("\u{01}\u{02}\u{03}", from: .client, after: 1)
        let text = follow(session)
        #expect(text.contains("[1] >>\n\t0x0000:  0102 03"), "\(text)")
        #expect(text.hasSuffix("== stream 1 end: capture ended\n"), "\(text)")
    }

    /// A direction's binary bytes over several segments continue one dump; when the output was
    /// written away between the segments (a flush, `-l`), the dump still continues — it trapped
    /// (`removeLast()` on the emptied buffer) once 64 KB of a decrypted download had been shown.
    @Test func aHexDumpContinuesAcrossAFlushedOutput() {
        var session = CraftedSession()
        session.add(session.connection.open())
        session.data("\u{01}\u{02}\u{03}", from: .client, after: 1)
        session.data("\u{04}\u{05}", from: .client, after: 1)
        session.data("\u{06}", from: .server, after: 1)
        session.data("\u{07}", from: .server, after: 1)
        let flushed = follow(session, flushEachPacket: true)
        #expect(flushed == follow(session), "\(flushed)")
        #expect(flushed.contains("[1] >>\n\t0x0000:  0102 03"), "\(flushed)")
        #expect(flushed.contains("\n\t0x0003:  0405"), "\(flushed)")
        #expect(!flushed.contains("\n\n"), "no blank line between the dumps")
    }
}

/// `capture --follow` on streams that speak TLS, WebSocket and HTTP/2 (captures of real servers,
/// scripts/captures/make-live-apps.sh): one line per record or frame, WebSocket payloads as
/// messages, the upgrade's HTTP text as it is.
@Suite(.hangGuard) struct StreamFollowerViewTests {
    static func follow(_ capture: String) throws -> String {
        let reader = try CaptureFileReader(path: GoldenCase.directory.appendingPathComponent(capture).path)
        var follower = StreamFollower(framing: nil)
        var out: [UInt8] = []
        while let record = try reader.next() { follower.packet(record.header, record.bytes, into: &out) }
        follower.finish(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test func webSocketMessagesFollowTheirFrameLines() throws {
        let text = try Self.follow("live-app-websocket.pcap")
        #expect(text.contains("[1] >>\nGET /chat HTTP/1.1\r\n"), "the request as text")
        #expect(text.contains("[1] >> WebSocket upgrade request GET /chat\n"), "\(text)")
        #expect(text.contains("[1] << WebSocket upgrade accepted (101)\n"), "\(text)")
        #expect(text.contains("WebSocket text, FIN, masked, length 34\n[2] >> hello from sockctl's golden corpus\n"), "\(text)")
        #expect(text.contains("WebSocket close, FIN, masked, length 2, code 1000 (normal)\n"), "\(text)")
    }

    @Test func tlsAndHTTP2StreamsShowRecordsAndFrames() throws {
        let tls = try Self.follow("live-app-tls.pcap")
        #expect(tls.contains("[1] >> TLS handshake ClientHello (TLSv1.0 record, length "), "\(tls)")
        #expect(tls.contains("SNI www.example.com, ALPN [h2, http/1.1], versions [TLSv1.3]\n"), "\(tls)")
        #expect(!tls.contains("\t0x0000:"), "no TLS bytes dumped raw: \(tls)")
        let h2 = try Self.follow("live-app-h2.pcap")
        #expect(h2.contains("[1] >> HTTP/2 connection preface\n"), "\(h2)")
        #expect(h2.contains("[1] << HTTP/2 SETTINGS, stream 0, length 6: MAX_CONCURRENT_STREAMS 100\n"), "\(h2)")
        #expect(h2.contains("[1] << HTTP/2 DATA, stream 1, length "), "\(h2)")
    }
}
