import NIOCore
import Testing
@testable import SocketEngine
import TestSupport

/// `FrameDecoder(framing: .http)`: whole messages however the bytes arrive, a cut message at EOF
/// as `truncatedFrame`, and any message over the maximum frame size as `frameTooLarge` — whether
/// its length is announced, grows chunk by chunk, or arrives all in one read.
@Suite(.serialized, .hangGuard) struct HTTPFrameDecoderTests {
    static let messages = [
        "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{\"a\":1}\r\n0\r\n\r\n",
        "HEAD / HTTP/1.1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 612\r\n\r\n",
        "POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 100 Continue\r\n\r\n",
        "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n",
    ]

    /// Feeds `wire` in pieces ending at `cuts`, then the end, telling the decoder of the HEAD
    /// before its answer.
    func frames(_ wire: [UInt8], cuts: [Int], maximum: Int = 1 << 20, heads: [Bool] = [false, true, false]) throws -> [String] {
        var decoder = FrameDecoder(framing: .http, maximumFrameSize: maximum)
        for head in heads { decoder.expectResponse(toHEAD: head) }
        var buffer = ByteBuffer()
        var out: [String] = []
        var offset = 0
        for end in (cuts.filter { $0 > 0 && $0 < wire.count } + [wire.count]).sorted() {
            buffer.writeBytes(wire[offset..<end])
            offset = end
            while let frame = try decoder.decode(&buffer) { out.append(String(buffer: frame)) }
        }
        while let frame = try decoder.decode(&buffer, atEOF: true) { out.append(String(buffer: frame)) }
        return out
    }

    @Test func wholeMessagesInEverySplitAndInRandomOnes() throws {
        let wire = Array(Self.messages.joined().utf8)
        #expect(try frames(wire, cuts: []) == Self.messages)
        for split in 1..<wire.count {
            #expect(try frames(wire, cuts: [split]) == Self.messages, "split at \(split)")
        }
        var random = SplitMix64(seed: 1)
        for _ in 0..<200 {
            let cuts = (0..<Int(random.next() % 10)).map { _ in Int(random.next() % UInt64(wire.count)) }
            #expect(try frames(wire, cuts: cuts) == Self.messages, "cuts \(cuts)")
        }
        #expect(try frames(wire, cuts: Array(0..<wire.count)) == Self.messages)
    }

    @Test func everyFrameParsesAsOneMessage() throws {
        for text in try frames(Array(Self.messages.joined().utf8), cuts: [9, 50, 51]) {
            #expect(throws: Never.self) { try HTTPMessage(parsing: ByteBuffer(string: text)) }
        }
    }

    @Test func aMessageCutAtEOFIsATruncatedFrame() {
        for cut in ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab", "GET / HTTP/1.1\r\nHost"] {
            #expect {
                _ = try frames(Array(cut.utf8), cuts: [7], heads: [])
            } throws: { ($0 as? SocketEngineError)?.code == .truncatedFrame }
        }
    }

    static let chunkOf100 = "64\r\n" + String(repeating: "c", count: 100) + "\r\n"
    static let tooLarge: [(wire: String, cuts: [Int])] = [
        // Announced: refused before the body arrives.
        (wire: "HTTP/1.1 200 OK\r\nContent-Length: 1001\r\n\r\n", cuts: []),
        // Chunked, growing past the maximum.
        (wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: chunkOf100, count: 11), cuts: [60, 300, 700]),
        // Until close, growing past the maximum.
        (wire: "HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "u", count: 1200), cuts: [30, 600]),
        // A head over the scanner's limit.
        (wire: "HTTP/1.1 200 OK\r\nX: " + String(repeating: "h", count: 70_000) + "\r\n\r\n", cuts: []),
    ]

    @Test(arguments: 0..<tooLarge.count)
    func aMessageOverTheMaximumIsAFrameTooLarge(index: Int) {
        let (wire, cuts) = Self.tooLarge[index]
        #expect {
            _ = try frames(Array(wire.utf8), cuts: cuts, maximum: 1000, heads: [])
        } throws: { ($0 as? SocketEngineError)?.code == .frameTooLarge }
    }

    /// A message whose every byte is in the buffer at the first decode is bounded too.
    static let wholeTooLarge: [String] = [
        "HTTP/1.1 200 OK\r\nContent-Length: 1200\r\n\r\n" + String(repeating: "w", count: 1200),
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4b0\r\n" + String(repeating: "w", count: 1200) + "\r\n0\r\n\r\n",
    ]

    @Test(arguments: wholeTooLarge)
    func aWholeMessageOverTheMaximumInOneReadIsAFrameTooLarge(wire: String) {
        #expect {
            _ = try frames(Array(wire.utf8), cuts: [], maximum: 1000, heads: [])
        } throws: { ($0 as? SocketEngineError)?.code == .frameTooLarge }
    }

    @Test func malformedBytesAreAnHTTPProtocolErrorNamingTheByte() {
        #expect {
            _ = try frames(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 2x0 OK\r\n\r\n".utf8), cuts: [], heads: [])
        } throws: { error in
            let engine = error as? SocketEngineError
            return engine?.code == .httpProtocol && engine?.message.hasPrefix("malformed HTTP message at byte ") == true
        }
    }
}
