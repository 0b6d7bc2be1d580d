import NIOCore
import NIOWebSocket
import Testing
@testable import SocketEngine
import TestSupport
import WebSocketDeflate

/// permessage-deflate (RFC 7692): the negotiation both ways, the compressed bytes of §7.2.3,
/// and the assembler's handling of compressed messages (RSV1, fragments, the inflated limit).
@Suite(.hangGuard) struct PerMessageDeflateTests {
    typealias Assembler = WebSocketMessageAssembler

    // MARK: Negotiation

    @Test func theServerGrantsWhatTheFirstValidOfferAsksFor() {
        let agreed = PerMessageDeflate.serverAccept(["permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits"])
        var expected = PerMessageDeflate()
        expected.serverNoContextTakeover = true
        expected.clientNoContextTakeover = true
        expected.serverMaxWindowBits = 10
        #expect(agreed == expected)
        #expect(agreed?.responseHeader == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10")
        // A quoted value is a value (RFC 6455 §9.1); client_max_window_bits with a value is echoed.
        let quoted = PerMessageDeflate.serverAccept(["permessage-deflate; client_max_window_bits=\"9\""])
        #expect(quoted?.clientMaxWindowBits == 9)
        #expect(quoted?.responseHeader == "permessage-deflate; client_max_window_bits=9")
    }

    @Test func offersTheServerCannotHonourAreDeclinedNotFailed() {
        // Each of these alone is declined: nil, and the handshake goes on without compression.
        for offer in [
            "permessage-deflate; server_max_window_bits=16", "permessage-deflate; server_max_window_bits=7",
            "permessage-deflate; server_max_window_bits", "permessage-deflate; server_max_window_bits=010",
            "permessage-deflate; client_max_window_bits=abc", "permessage-deflate; server_no_context_takeover=1",
            "permessage-deflate; unknown_parameter", "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
            "x-webkit-deflate-frame", "permessage-deflate; =", "permessage-deflate;;", "",
        ] {
            #expect(PerMessageDeflate.serverAccept([offer]) == nil, "\(offer)")
        }
        // The first acceptable one of several wins, across header lines too.
        let chosen = PerMessageDeflate.serverAccept(["permessage-deflate; server_max_window_bits=20, foo", "permessage-deflate; client_no_context_takeover, permessage-deflate"])
        var expected = PerMessageDeflate()
        expected.clientNoContextTakeover = true
        #expect(chosen == expected)
    }

    @Test func theClientAcceptsOnlyAnswersItsOfferAllows() throws {
        #expect(try PerMessageDeflate.clientAccept([]) == nil)
        let agreed = try PerMessageDeflate.clientAccept(["permessage-deflate; server_max_window_bits=12; client_max_window_bits=9; client_no_context_takeover"])
        #expect(agreed?.serverMaxWindowBits == 12 && agreed?.clientMaxWindowBits == 9 && agreed?.clientNoContextTakeover == true)
        for answer in [
            "permessage-deflate; unknown", "permessage-deflate; client_max_window_bits", "permessage-deflate; server_max_window_bits=16",
            "permessage-deflate; client_no_context_takeover; client_no_context_takeover", "x-foo", "permessage-deflate, permessage-deflate",
            "permessage-deflate; server_no_context_takeover=yes",
        ] {
            #expect(throws: NegotiationError.self, "\(answer)") { try PerMessageDeflate.clientAccept([answer]) }
        }
    }

    @Test func theClientOffersDeflateUnlessToldNotTo() {
        var options = WebSocketOptions()
        let endpoint = Endpoint(transport: .ws, host: "127.0.0.1", port: 80, resource: "/")
        #expect(WebSocketClient.requestHead(for: endpoint, options: options).headers["Sec-WebSocket-Extensions"] == [PerMessageDeflate.clientOffer])
        options.compression = false
        #expect(WebSocketClient.requestHead(for: endpoint, options: options).headers["Sec-WebSocket-Extensions"].isEmpty)
    }

    // MARK: The bytes (RFC 7692 §7.2.3)

    @Test func helloCompressesToTheRFCsBytesAndTheSecondTakesTheContextOver() {
        let hello = Array("Hello".utf8)
        let kept = MessageDeflater(windowBits: 15, resetsEachMessage: false)
        let first = hello.withUnsafeBytes { kept.compress($0) }
        #expect(first == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], "§7.2.3.1")
        let second = hello.withUnsafeBytes { kept.compress($0) }
        #expect(second == [0xF2, 0x00, 0x11, 0x00, 0x00], "§7.2.3.2: a back-reference into the first message")
        let reset = MessageDeflater(windowBits: 15, resetsEachMessage: true)
        _ = hello.withUnsafeBytes { reset.compress($0) }
        #expect(hello.withUnsafeBytes { reset.compress($0) } == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], "no context takeover")

        // The inflater reads both only with its context kept.
        let rfcFirst: [UInt8] = [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
        let rfcSecond: [UInt8] = [0xF2, 0x00, 0x11, 0x00, 0x00]
        let inflater = MessageInflater(limit: 100, resetsEachMessage: false)
        var out: [UInt8] = []
        #expect(throws: Never.self) { try rfcFirst.withUnsafeBytes { try inflater.inflate($0, last: true, into: &out) } }
        #expect(throws: Never.self) { try rfcSecond.withUnsafeBytes { try inflater.inflate($0, last: true, into: &out) } }
        #expect(out == hello + hello)
        let forgetful = MessageInflater(limit: 100, resetsEachMessage: true)
        var lost: [UInt8] = []
        #expect(throws: Never.self) { try rfcFirst.withUnsafeBytes { try forgetful.inflate($0, last: true, into: &lost) } }
        #expect(throws: MessageInflater.Failure.self) { try rfcSecond.withUnsafeBytes { try forgetful.inflate($0, last: true, into: &lost) } }
    }

    @Test func everyWindowFrom8To15RoundTrips() throws {
        let text = Array(String(repeating: "the quick brown fox jumps over the lazy dog 0123456789 ", count: 200).utf8)
        for bits in 8...15 {
            let deflater = MessageDeflater(windowBits: bits, resetsEachMessage: false)
            let inflater = MessageInflater(limit: 1 << 20, resetsEachMessage: false)
            for _ in 0..<3 {
                let payload = try #require(text.withUnsafeBytes { deflater.compress($0) })
                // Eight bits: run lengths only (zlib has no raw 8-bit window), still smaller.
                #expect(payload.count < (bits == 8 ? text.count : text.count / 2), "window \(bits): compressed")
                var out: [UInt8] = []
                try payload.withUnsafeBytes { try inflater.inflate($0, last: true, into: &out) }
                #expect(out == text, "window \(bits)")
            }
        }
    }

    // MARK: The assembler

    static func frame(_ opcode: WebSocketOpcode, _ bytes: [UInt8], fin: Bool = true, rsv1: Bool = false) -> WebSocketFrame {
        let key: WebSocketMaskingKey = [9, 8, 7, 6]
        var data = ByteBuffer(bytes: bytes)
        data.webSocketMask(key)
        return WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, maskKey: key, data: data)
    }

    static func assembler(limit: Int = 1 << 20) -> Assembler {
        Assembler(expectsMaskedFrames: true, maximumMessageSize: limit, inflater: MessageInflater(limit: limit, resetsEachMessage: false))
    }

    static func compressed(_ text: String, _ deflater: MessageDeflater = MessageDeflater(windowBits: 15, resetsEachMessage: false)) -> [UInt8] {
        Array(text.utf8).withUnsafeBytes { deflater.compress($0) } ?? []
    }

    @Test func aCompressedMessageInFragmentsIsInflatedWithRSV1OnTheFirstOnly() {
        var assembler = Self.assembler()
        let payload = Self.compressed(String(repeating: "héllo wörld ", count: 50))
        let cut = payload.count / 2
        #expect(assembler.receive(Self.frame(.text, Array(payload[..<cut]), fin: false, rsv1: true)) == .none)
        #expect(assembler.receive(Self.frame(.ping, Array("p".utf8))) == .ping(ByteBuffer(string: "p")), "a control frame between fragments")
        #expect(assembler.receive(Self.frame(.continuation, Array(payload[cut...]))) == .message(.text, ByteBuffer(string: String(repeating: "héllo wörld ", count: 50))))
        // An uncompressed message on the same connection is fine.
        #expect(assembler.receive(Self.frame(.binary, [1, 2, 3])) == .message(.binary, ByteBuffer(bytes: [1, 2, 3])))
        // The RFC's Hello, twice with the context taken over.
        #expect(assembler.receive(Self.frame(.text, [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], rsv1: true)) == .message(.text, ByteBuffer(string: "Hello")))
        #expect(assembler.receive(Self.frame(.text, [0xF2, 0x00, 0x11, 0x00, 0x00], rsv1: true)) == .message(.text, ByteBuffer(string: "Hello")))
    }

    @Test func rsv1WhereItDoesNotBelongIsAProtocolError() {
        var plain = Assembler(expectsMaskedFrames: true, maximumMessageSize: 1 << 20)
        #expect(WebSocketMessageAssemblerTests.violation(&plain, Self.frame(.text, [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], rsv1: true))?.closeCode == 1002, "not agreed")
        var ping = Self.assembler()
        #expect(WebSocketMessageAssemblerTests.violation(&ping, Self.frame(.ping, [], rsv1: true))?.closeCode == 1002, "a control frame")
        var continuation = Self.assembler()
        _ = continuation.receive(Self.frame(.text, Array("ab".utf8), fin: false))
        #expect(WebSocketMessageAssemblerTests.violation(&continuation, Self.frame(.continuation, Array("c".utf8), rsv1: true))?.closeCode == 1002, "a continuation")
        var rsv2 = Self.assembler()
        #expect(WebSocketMessageAssemblerTests.violation(&rsv2, WebSocketFrame(fin: true, rsv2: true, opcode: .text, maskKey: [1, 2, 3, 4], data: ByteBuffer(string: "x")))?.closeCode == 1002)
        var garbage = Self.assembler()
        #expect(WebSocketMessageAssemblerTests.violation(&garbage, Self.frame(.binary, [0xFF, 0xFF, 0xFF], rsv1: true))?.closeCode == 1002, "not DEFLATE")
    }

    @Test func aBombIsRefusedWith1009AtTheLimitNotInflatedWhole() throws {
        // 64 MiB of zeros compress to about 64 KiB; the limit is 1 MiB.
        let zeros = [UInt8](repeating: 0, count: 64 << 20)
        let payload = try #require(zeros.withUnsafeBytes { MessageDeflater(windowBits: 15, resetsEachMessage: false).compress($0) })
        #expect(payload.count < 128 << 10)
        var assembler = Self.assembler(limit: 1 << 20)
        let violation = WebSocketMessageAssemblerTests.violation(&assembler, Self.frame(.binary, payload, rsv1: true))
        #expect(violation?.closeCode == 1009)
        #expect(violation?.reason == "compressed message inflates beyond the limit of 1048576 bytes")
        // Text is checked as UTF-8 after inflating.
        var text = Self.assembler()
        let invalid = [UInt8]([0xC0, 0x80]).withUnsafeBytes { MessageDeflater(windowBits: 15, resetsEachMessage: false).compress($0) } ?? []
        #expect(WebSocketMessageAssemblerTests.violation(&text, Self.frame(.text, invalid, rsv1: true))?.closeCode == 1007)
    }
}

extension PerMessageDeflateTests {
    /// zlib writes nothing for an empty message after another (there is nothing to flush): the
    /// payload must still inflate, as one 0x00 (RFC 7692 §7.2.3.6).
    @Test func emptyMessagesBetweenOthersInflate() throws {
        let deflater = MessageDeflater(windowBits: 15, resetsEachMessage: false)
        let inflater = MessageInflater(limit: 1 << 20, resetsEachMessage: false)
        for message in ["", "a", "", "", "abc abc abc", ""] {
            let payload = try #require(Array(message.utf8).withUnsafeBytes { deflater.compress($0) })
            #expect(!payload.isEmpty)
            var out: [UInt8] = []
            try payload.withUnsafeBytes { try inflater.inflate($0, last: true, into: &out) }
            #expect(out == Array(message.utf8), "'\(message)'")
        }
    }
}
