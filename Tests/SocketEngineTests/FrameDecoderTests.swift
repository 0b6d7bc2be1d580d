import NIOCore
import Testing
@testable import SocketEngine
import TestSupport

/// Feeds `wire` to a decoder in the given chunk sizes and collects the frames.
func decodeAll(_ wire: [UInt8], framing: Framing, maximum: Int = 1 << 20, chunks: [Int]? = nil) throws -> [[UInt8]] {
    var decoder = FrameDecoder(framing: framing, maximumFrameSize: maximum)
    var buffer = ByteBuffer()
    var frames: [[UInt8]] = []
    var offset = 0
    var sizes = chunks ?? [wire.count]
    while offset < wire.count {
        let size = sizes.isEmpty ? wire.count - offset : min(sizes.removeFirst(), wire.count - offset)
        buffer.writeBytes(wire[offset..<(offset + size)])
        offset += size
        while let frame = try decoder.decode(&buffer) {
            frames.append(Array(frame.readableBytesView))
        }
    }
    while let frame = try decoder.decode(&buffer, atEOF: true) {
        frames.append(Array(frame.readableBytesView))
    }
    return frames
}

/// Serialized: these are CPU-bound (thousands of decodes in a debug build); run side by side
/// they would hold every cooperative thread and starve the timing tests that run beside them.
@Suite(.serialized, .hangGuard) struct FrameDecoderTests {
    static let messages: [[UInt8]] = [
        Array(#"{"user_mid":0,"reqType":1,"version":5}"#.utf8),
        [],
        Array("x".utf8),
        Array(repeating: 0x41, count: 3000),
        Array(#"{"b":[1,2,3]}"#.utf8),
    ]

    static let framings: [Framing] = [
        .line, .crlf, .null,
        .lengthPrefixed(width: 1, bigEndian: true), .lengthPrefixed(width: 2, bigEndian: true),
        .lengthPrefixed(width: 2, bigEndian: false), .lengthPrefixed(width: 4, bigEndian: true),
        .lengthPrefixed(width: 4, bigEndian: false), .lengthPrefixed(width: 8, bigEndian: true),
        .lengthPrefixed(width: 8, bigEndian: false),
    ]

    @Test(arguments: framings)
    func allAtOnceYieldsEveryMessage(framing: Framing) throws {
        let wire = try Self.encodedFitting(framing)
        #expect(try decodeAll(wire, framing: framing) == Self.fitting(framing))
    }

    @Test(arguments: framings)
    func byteByByteYieldsEveryMessage(framing: Framing) throws {
        let wire = try Self.encodedFitting(framing)
        #expect(try decodeAll(wire, framing: framing, chunks: Array(repeating: 1, count: wire.count)) == Self.fitting(framing))
    }

    @Test(arguments: framings)
    func randomSplitsYieldEveryMessage(framing: Framing) throws {
        let wire = try Self.encodedFitting(framing)
        var generator = SplitMix64(seed: 0x5eed)
        for _ in 0..<200 {
            var chunks: [Int] = []
            var total = 0
            while total < wire.count {
                let size = Int(generator.next() % 97) + 1
                chunks.append(size)
                total += size
            }
            #expect(try decodeAll(wire, framing: framing, chunks: chunks) == Self.fitting(framing))
        }
    }

    /// The message list with what a 1-byte length prefix cannot carry left out.
    static func fitting(_ framing: Framing) -> [[UInt8]] {
        if case .lengthPrefixed(width: 1, _) = framing { return messages.filter { $0.count <= 255 } }
        return messages
    }

    static func encodedFitting(_ framing: Framing) throws -> [UInt8] {
        var out = ByteBuffer()
        for message in fitting(framing) { try framing.encode(ByteBuffer(bytes: message), into: &out) }
        return Array(out.readableBytesView)
    }

    @Test func lineFramingDropsTheCarriageReturnBeforeLF() throws {
        #expect(try decodeAll(Array("a\r\nb\nc\r\r\n".utf8), framing: .line) == [Array("a".utf8), Array("b".utf8), Array("c\r".utf8)])
    }

    @Test func crlfFramingKeepsALoneLFInsideTheMessage() throws {
        #expect(try decodeAll(Array("a\nb\r\nc".utf8), framing: .crlf) == [Array("a\nb".utf8), Array("c".utf8)])
    }

    @Test func delimiterSplitAcrossReadsIsReassembled() throws {
        let wire = Array("first\r\nsecond\r\n".utf8)
        #expect(try decodeAll(wire, framing: .crlf, chunks: [6, 1, 8]) == [Array("first".utf8), Array("second".utf8)])
    }

    @Test func fixedFramingCutsEveryNBytes() throws {
        #expect(try decodeAll(Array("abcdefgh".utf8), framing: .fixed(4), chunks: [3, 3, 2]) == [Array("abcd".utf8), Array("efgh".utf8)])
    }

    @Test func rawFramingPassesChunksThrough() throws {
        #expect(try decodeAll(Array("abcdef".utf8), framing: .raw, chunks: [2, 4]) == [Array("ab".utf8), Array("cdef".utf8)])
    }

    @Test func unterminatedLastLineIsDeliveredAtEOF() throws {
        #expect(try decodeAll(Array("one\ntwo".utf8), framing: .line) == [Array("one".utf8), Array("two".utf8)])
    }

    @Test func truncatedCountedFrameAtEOFIsAnError() {
        let wire: [UInt8] = [0, 0, 0, 10, 1, 2, 3]
        #expect {
            _ = try decodeAll(wire, framing: .lengthPrefixed(width: 4, bigEndian: true))
        } throws: { ($0 as? SocketEngineError)?.code == .truncatedFrame }
        #expect {
            _ = try decodeAll([1, 2, 3], framing: .fixed(4))
        } throws: { ($0 as? SocketEngineError)?.code == .truncatedFrame }
    }

    @Test func oversizedLengthPrefixIsRejectedBeforeAnyBodyArrives() {
        var decoder = FrameDecoder(framing: .lengthPrefixed(width: 8, bigEndian: true), maximumFrameSize: 1024)
        var buffer = ByteBuffer(bytes: [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect {
            _ = try decoder.decode(&buffer)
        } throws: { ($0 as? SocketEngineError)?.code == .frameTooLarge }
    }

    @Test func endlessLineIsRejectedOnceItPassesTheLimit() throws {
        var decoder = FrameDecoder(framing: .line, maximumFrameSize: 100)
        var buffer = ByteBuffer()
        var failed = false
        for _ in 0..<100 {
            buffer.writeBytes(Array(repeating: UInt8(ascii: "z"), count: 10))
            do {
                _ = try decoder.decode(&buffer)
            } catch {
                #expect(error.code == .frameTooLarge)
                failed = true
                break
            }
        }
        #expect(failed)
        #expect(buffer.readableBytes <= 110)
    }

    @Test func lineExactlyAtTheLimitIsAccepted() throws {
        let line = Array(repeating: UInt8(ascii: "a"), count: 100)
        #expect(try decodeAll(line + [0x0D, 0x0A], framing: .line, maximum: 100, chunks: [50, 50, 1, 1]) == [line])
        #expect(throws: SocketEngineError.self) {
            _ = try decodeAll(line + [0x61, 0x0A], framing: .line, maximum: 100)
        }
    }

    @Test func longLineArrivingInManyReadsIsScannedOnce() throws {
        var decoder = FrameDecoder(framing: .crlf, maximumFrameSize: 8 << 20)
        var buffer = ByteBuffer()
        let chunk = [UInt8](repeating: 0x2E, count: 4096)
        for _ in 0..<1024 {
            buffer.writeBytes(chunk)
            #expect(try decoder.decode(&buffer) == nil)
        }
        buffer.writeBytes([0x0D, 0x0A])
        #expect(try decoder.decode(&buffer)?.readableBytes == 4096 * 1024)
    }
}

@Suite(.hangGuard) struct FramingTests {
    @Test(arguments: [
        ("raw", Framing.raw), ("line", .line), ("crlf", .crlf), ("null", .null),
        ("length:4", .lengthPrefixed(width: 4, bigEndian: true)),
        ("length:2:le", .lengthPrefixed(width: 2, bigEndian: false)),
        ("LENGTH:8:BE", .lengthPrefixed(width: 8, bigEndian: true)),
        ("fixed:16", .fixed(16)),
    ])
    func specificationsParse(text: String, framing: Framing) throws {
        #expect(try Framing(parsing: text) == framing)
    }

    @Test(arguments: ["", "lines", "length", "length:3", "length:4:xx", "length:4:be:1", "fixed", "fixed:0", "fixed:-1", "fixed:x", "raw:1"])
    func badSpecificationsAreUsageErrors(text: String) {
        #expect {
            _ = try Framing(parsing: text)
        } throws: { ($0 as? SocketEngineError)?.code == .invalidFraming }
    }

    @Test func lengthPrefixesAreWrittenInTheRequestedByteOrder() throws {
        let big = try Framing.lengthPrefixed(width: 4, bigEndian: true).encode(ByteBuffer(string: "hi"))
        #expect(Array(big.readableBytesView) == [0, 0, 0, 2, 0x68, 0x69])
        let little = try Framing.lengthPrefixed(width: 2, bigEndian: false).encode(ByteBuffer(string: "hi"))
        #expect(Array(little.readableBytesView) == [2, 0, 0x68, 0x69])
    }

    /// A message given whole that already ends in its delimiter is one message: the delimiter is
    /// not added again (`{"op":"ping"}\n` with line framing was that message and an empty one).
    @Test(arguments: [
        (Framing.line, "ping\n", "ping\n"),
        (Framing.line, "ping", "ping\n"),
        (Framing.line, "", "\n"),
        (Framing.line, "a\r\n", "a\r\n"),
        (Framing.crlf, "ping\r\n", "ping\r\n"),
        (Framing.crlf, "ping\n", "ping\n\r\n"),
        (Framing.null, "ping\u{0}", "ping\u{0}"),
        (Framing.null, "ping", "ping\u{0}"),
    ] as [(Framing, String, String)])
    func aBodyEndingInItsDelimiterIsNotTerminatedAgain(framing: Framing, body: String, wire: String) throws {
        let encoded = try framing.encode(ByteBuffer(string: body))
        #expect(String(buffer: encoded) == wire)
        var decoder = FrameDecoder(framing: framing)
        var received = encoded
        #expect(try decoder.decode(&received) != nil)
        #expect(try decoder.decode(&received) == nil, "one message, not two")
    }

    /// `http` cuts whole messages, however the bytes arrive: Content-Length, chunked with a
    /// trailer, a 204 without body, and a last response that runs until close.
    @Test func httpMessagesAreCutWholeInEverySplit() throws {
        let messages = [
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n",
            "HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n",
            "HTTP/1.1 100 Continue\r\n\r\n",
            "HTTP/1.0 200 OK\r\n\r\nuntil the end",
        ]
        let wire = Array(messages.joined().utf8)
        for split in 1...wire.count {
            let frames = try decodeAll(wire, framing: .http, chunks: [split, wire.count])
            #expect(frames.map { String(decoding: $0, as: UTF8.self) } == messages, "split at \(split)")
        }
    }

    @Test func httpResponsesToHEADHaveNoBodyWhenTold() throws {
        var decoder = FrameDecoder(framing: .http)
        decoder.expectResponse(toHEAD: true)
        var buffer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx")
        #expect(try decoder.decode(&buffer).map { String(buffer: $0) } == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
        #expect(try decoder.decode(&buffer).map { String(buffer: $0) } == "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx")
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", SocketEngineError.Code.truncatedFrame),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", .httpProtocol),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5 5\r\n\r\n", .httpProtocol),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .httpProtocol),
        ("SSH-2.0-OpenSSH\r\n\r\n", .httpProtocol),
        ("HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n" + String(repeating: "x", count: 2000), .frameTooLarge),
    ] as [(String, SocketEngineError.Code)])
    func badHTTPIsOneClearError(wire: String, code: SocketEngineError.Code) {
        #expect {
            _ = try decodeAll(Array(wire.utf8), framing: .http, maximum: 1000)
        } throws: { ($0 as? SocketEngineError)?.code == code }
    }

    @Test func bodiesTooLongForThePrefixAreRefused() {
        #expect {
            _ = try Framing.lengthPrefixed(width: 1, bigEndian: true).encode(ByteBuffer(repeating: 0, count: 256))
        } throws: { ($0 as? SocketEngineError)?.code == .frameTooLarge }
    }
}

/// A small deterministic generator so random-split tests are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
