import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOWebSocket
import Testing
@testable import SocketEngine
import TestSupport

@Suite(.hangGuard) struct UTF8ValidatorTests {
    static let text = Array("héllo € 𝄞 wörld".utf8)

    @Test func validTextIsValidWhenSplitAtEveryByte() {
        for cut in 0...Self.text.count {
            var validator = UTF8Validator()
            let fed1 = validator.feed(Self.text[..<cut])
            #expect(fed1)
            let fed2 = validator.feed(Self.text[cut...])
            #expect(fed2)
            #expect(validator.isComplete, "split at \(cut)")
        }
    }

    @Test func aPieceEndingInsideACodePointIsValidButNotComplete() {
        var validator = UTF8Validator()
        let fed3 = validator.feed([0x61, 0xE2, 0x82])
        #expect(fed3)
        #expect(validator.isValid && !validator.isComplete)
        let fed4 = validator.feed([0xAC])
        #expect(fed4)
        #expect(validator.isComplete)
    }

    @Test func rfc3629RejectsOverlongsSurrogatesAndBeyondU10FFFF() {
        let invalid: [[UInt8]] = [
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80],  // overlong
            [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],  // UTF-16 surrogates
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],  // beyond U+10FFFF
            [0x80], [0xC2, 0x41],  // stray or missing continuation
        ]
        for bytes in invalid {
            #expect(!UTF8Validator.isValid(bytes), "\(bytes)")
        }
        #expect(UTF8Validator.isValid([0xED, 0x9F, 0xBF]))
        #expect(UTF8Validator.isValid([0xF4, 0x8F, 0xBF, 0xBF]))
    }

    @Test func theFirstInvalidByteFailsItsPieceAndEverythingAfter() {
        var validator = UTF8Validator()
        let fed5 = validator.feed(Array("κόσμε".utf8))
        #expect(fed5)
        let fed6 = validator.feed([0xCE, 0xBA, 0xED, 0xA0])
        #expect(!fed6)
        let fed7 = validator.feed(Array("fine".utf8))
        #expect(!fed7)
        #expect(!validator.isComplete)
    }
}

@Suite(.hangGuard) struct WebSocketMessageAssemblerTests {
    typealias Assembler = WebSocketMessageAssembler

    static func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true, masked: Bool = true, rsv1: Bool = false) -> WebSocketFrame {
        frame(opcode, Array(text.utf8), fin: fin, masked: masked, rsv1: rsv1)
    }

    static func frame(_ opcode: WebSocketOpcode, _ bytes: [UInt8], fin: Bool = true, masked: Bool = true, rsv1: Bool = false) -> WebSocketFrame {
        let key: WebSocketMaskingKey? = masked ? [1, 2, 3, 4] : nil
        var data = ByteBuffer(bytes: bytes)
        if let key { data.webSocketMask(key) }
        return WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, maskKey: key, data: data)
    }

    static func violation(_ assembler: inout Assembler, _ frame: WebSocketFrame) -> WebSocketViolation? {
        if case .violation(let violation) = assembler.receive(frame) { return violation }
        return nil
    }

    @Test func fragmentsAreReassembledAndAPingBetweenThemIsAnsweredAtOnce() throws {
        var assembler = Assembler(expectsMaskedFrames: true, maximumMessageSize: 1 << 20)
        let output8 = assembler.receive(Self.frame(.text, "Hel", fin: false))
        #expect(output8 == .none)
        let output9 = assembler.receive(Self.frame(.ping, "p"))
        #expect(output9 == .ping(ByteBuffer(string: "p")))
        let output10 = assembler.receive(Self.frame(.continuation, "lo ", fin: false))
        #expect(output10 == .none)
        #expect(assembler.isInsideMessage)
        let output11 = assembler.receive(Self.frame(.continuation, "world"))
        #expect(output11 == .message(.text, ByteBuffer(string: "Hello world")))
        #expect(!assembler.isInsideMessage)
        let output12 = assembler.receive(Self.frame(.binary, [0, 0xFF]))
        #expect(output12 == .message(.binary, ByteBuffer(bytes: [0, 0xFF])))
        let output13 = assembler.receive(Self.frame(.text, ""))
        #expect(output13 == .message(.text, ByteBuffer()))
    }

    @Test func sequencingErrorsAreProtocolErrors() {
        var assembler = Assembler(expectsMaskedFrames: true, maximumMessageSize: 1 << 20)
        #expect(Self.violation(&assembler, Self.frame(.continuation, "x"))?.closeCode == 1002)
        var midMessage = Assembler(expectsMaskedFrames: true, maximumMessageSize: 1 << 20)
        _ = Self.violation(&midMessage, Self.frame(.text, "a", fin: false))
        #expect(Self.violation(&midMessage, Self.frame(.binary, "b"))?.closeCode == 1002)
    }

    @Test func reservedBitsOpcodesAndTheWrongMaskingAreProtocolErrors() throws {
        for (frame, expectsMasked) in [
            (Self.frame(.text, "x", rsv1: true), true),
            (Self.frame(WebSocketOpcode(encodedWebSocketOpcode: 3)!, "x"), true),
            (Self.frame(WebSocketOpcode(encodedWebSocketOpcode: 0xB)!, "x"), true),
            (Self.frame(.text, "x", masked: false), true),  // a client must mask
            (Self.frame(.text, "x", masked: true), false),  // a server must not
        ] {
            var assembler = Assembler(expectsMaskedFrames: expectsMasked, maximumMessageSize: 1 << 20)
            #expect(Self.violation(&assembler, frame)?.closeCode == 1002, "\(frame)")
        }
        var client = Assembler(expectsMaskedFrames: false, maximumMessageSize: 1 << 20)
        let output14 = client.receive(Self.frame(.text, "ok", masked: false))
        #expect(output14 == .message(.text, ByteBuffer(string: "ok")))
    }

    @Test func invalidUTF8FailsInTheFragmentThatCarriesIt() {
        var assembler = Assembler(expectsMaskedFrames: true, maximumMessageSize: 1 << 20)
        #expect(Self.violation(&assembler, Self.frame(.text, "κόσμε", fin: false)) == nil)
        // Not the final fragment: fail fast, without waiting for the end of the message.
        #expect(Self.violation(&assembler, Self.frame(.continuation, [0xCE, 0xBA, 0xED, 0xA0, 0x80], fin: false))?.closeCode == 1007)
        var truncated = Assembler(expectsMaskedFrames: true, maximumMessageSize: 1 << 20)
        #expect(Self.violation(&truncated, Self.frame(.text, [0x61, 0xE2, 0x82]))?.closeCode == 1007)
        var binary = Assembler(expectsMaskedFrames: true, maximumMessageSize: 1 << 20)
        #expect(Self.violation(&binary, Self.frame(.binary, [0xED, 0xA0, 0x80])) == nil)
    }

    @Test func aMessageOverTheLimitFailsWith1009BeforeItIsKept() {
        var assembler = Assembler(expectsMaskedFrames: true, maximumMessageSize: 10)
        #expect(Self.violation(&assembler, Self.frame(.binary, [UInt8](repeating: 1, count: 6), fin: false)) == nil)
        #expect(Self.violation(&assembler, Self.frame(.continuation, [UInt8](repeating: 1, count: 5), fin: false))?.closeCode == 1009)
        var exact = Assembler(expectsMaskedFrames: true, maximumMessageSize: 10)
        #expect(Self.violation(&exact, Self.frame(.binary, [UInt8](repeating: 1, count: 10))) == nil)
    }

    @Test func closePayloadsAreChecked() throws {
        func close(_ bytes: [UInt8]) -> Assembler.Output {
            var assembler = Assembler(expectsMaskedFrames: true, maximumMessageSize: 1 << 20)
            return assembler.receive(Self.frame(.connectionClose, bytes))
        }
        #expect(close([]) == .close(code: nil, reason: ""))
        #expect(close([0x03, 0xE8] + Array("bye".utf8)) == .close(code: 1000, reason: "bye"))
        #expect(close([0x0F, 0xA0]) == .close(code: 4000, reason: ""))
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
            let result = close([UInt8(code >> 8), UInt8(code & 0xFF)])
            guard case .violation(let violation) = result else {
                Issue.record("close code \(code) accepted")
                continue
            }
            #expect(violation.closeCode == 1002, "code \(code)")
        }
        guard case .violation(let oneByte) = close([0x03]) else { Issue.record("1-byte close accepted"); return }
        #expect(oneByte.closeCode == 1002)
        guard case .violation(let badReason) = close([0x03, 0xE8, 0xED, 0xA0, 0x80]) else { Issue.record("bad reason accepted"); return }
        #expect(badReason.closeCode == 1007)
    }

    @Test func aCloseInTheMiddleOfAFragmentedMessageIsAClose() throws {
        var assembler = Assembler(expectsMaskedFrames: true, maximumMessageSize: 1 << 20)
        _ = assembler.receive(Self.frame(.text, "frag", fin: false))
        let output15 = assembler.receive(Self.frame(.connectionClose, [0x03, 0xE8]))
        #expect(output15 == .close(code: 1000, reason: ""))
    }
}

@Suite(.hangGuard) struct WebSocketServerPolicyTests {
    static func request(_ uri: String, headers: [(String, String)] = WebSocketServerPolicyTests.upgrade) -> HTTPRequestHead {
        HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: HTTPHeaders(headers))
    }

    static let upgrade = [
        ("Host", "127.0.0.1"), ("Upgrade", "websocket"), ("Connection", "keep-alive, Upgrade"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13"),
    ]

    @Test func onlyThePathOfTheEndpointIsUpgradedWhateverTheQuery() {
        let policy = WebSocketServerPolicy(path: "/chat")
        #expect(policy.decide(Self.request("/chat")) == .accept(subprotocol: nil))
        #expect(policy.decide(Self.request("/chat?room=1")) == .accept(subprotocol: nil))
        guard case .refuse(let status, _) = policy.decide(Self.request("/other")) else { Issue.record("accepted /other"); return }
        #expect(status == .notFound)
        #expect(WebSocketServerPolicy(path: "/").decide(Self.request("/?case=1")) == .accept(subprotocol: nil))
    }

    @Test func plainHTTPAndOtherVersionsGet426() {
        let policy = WebSocketServerPolicy(path: "/")
        guard case .refuse(let plain, _) = policy.decide(Self.request("/", headers: [("Host", "h")])) else { Issue.record("accepted"); return }
        #expect(plain == .upgradeRequired)
        let version8 = Self.upgrade.map { $0.0 == "Sec-WebSocket-Version" ? ($0.0, "8") : $0 }
        guard case .refuse(let old, _) = policy.decide(Self.request("/", headers: version8)) else { Issue.record("accepted"); return }
        #expect(old == .upgradeRequired)
    }

    @Test func allowedOriginsAreEnforcedAndAMissingOriginIsRefused() {
        let policy = WebSocketServerPolicy(path: "/", allowedOrigins: ["http://localhost:3000"])
        #expect(policy.decide(Self.request("/", headers: Self.upgrade + [("Origin", "http://LOCALHOST:3000")])) == .accept(subprotocol: nil))
        for headers in [Self.upgrade + [("Origin", "https://evil.example")], Self.upgrade] {
            guard case .refuse(let status, _) = policy.decide(Self.request("/", headers: headers)) else { Issue.record("accepted"); continue }
            #expect(status == .forbidden)
        }
    }

    @Test func theFirstOfferedSubprotocolTheServerKnowsIsChosen() {
        let policy = WebSocketServerPolicy(path: "/", subprotocols: ["v2", "v1"])
        #expect(policy.decide(Self.request("/", headers: Self.upgrade + [("Sec-WebSocket-Protocol", "v3, v1, v2")])) == .accept(subprotocol: "v1"))
        #expect(policy.decide(Self.request("/", headers: Self.upgrade + [("Sec-WebSocket-Protocol", "v9")])) == .accept(subprotocol: nil))
    }
}

/// The eight-bytes-at-a-time masking against NIO's byte-by-byte one (RFC 6455 §5.3), and
/// the frame writer against NIO's frame encoder, byte for byte.
@Suite(.hangGuard) struct WebSocketMaskingTests {
    @Test func maskingMatchesNIOAtEveryLengthAndPhase() throws {
        let key = try #require(WebSocketMaskingKey([0x37, 0xfa, 0x21, 0x3d]))
        for length in 0..<41 {
            let source = ByteBuffer(bytes: (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            for phase in 0..<4 {
                var ours = ByteBuffer(string: "prefix")
                WebSocketMasking.append(source, maskedWith: key, phase: phase, to: &ours)
                var theirs = source
                theirs.webSocketMask(key, indexOffset: phase)
                #expect(ours.readableBytesView.dropFirst(6).elementsEqual(theirs.readableBytesView), "length \(length) phase \(phase)")
            }
        }
    }

    @Test func theWriterWritesWhatNIOsEncoderWrites() throws {
        let key = try #require(WebSocketMaskingKey([1, 2, 3, 4]))
        for length in [0, 1, 125, 126, 127, 65_535, 65_536, 70_000] {
            for maskKey in [nil, key] {
                for opcode in [WebSocketOpcode.binary, .text, .ping, .connectionClose] {
                    let payload = ByteBuffer(bytes: (0..<length).map { UInt8(truncatingIfNeeded: $0) })
                    let frame = WebSocketFrame(fin: opcode != .text, rsv1: false, opcode: opcode, maskKey: maskKey, data: payload)
                    #expect(try Self.bytes(frame, ours: true) == Self.bytes(frame, ours: false), "\(length) \(opcode) \(String(describing: maskKey))")
                }
            }
        }
    }

    /// What goes out of an embedded channel for `frame`, through the writer or NIO's encoder.
    static func bytes(_ frame: WebSocketFrame, ours: Bool) throws -> [UInt8] {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
        if ours { try WebSocketFrameWriter.install(on: channel) }
        try channel.writeOutbound(frame)
        var out = [UInt8]()
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { out += buffer.readableBytesView }
        _ = try channel.finish()
        return out
    }
}
