import NIOCore
import Testing
@testable import SocketEngine
import TestSupport

@Suite(.hangGuard) struct AddressRangeTests {
    func address(_ text: String) throws -> SocketAddress { try SocketAddress(ipAddress: text, port: 1) }

    @Test func ipv4RangesMatchByPrefix() throws {
        let range = try AddressRange(parsing: "10.1.0.0/16")
        #expect(range.contains(try address("10.1.200.3")))
        #expect(!range.contains(try address("10.2.0.1")))
        #expect(!range.contains(try address("::1")))
    }

    @Test func ipv4MappedPeersMatchIPv4Ranges() throws {
        let range = try AddressRange(parsing: "127.0.0.0/8")
        #expect(range.contains(try address("::ffff:127.0.0.1")))
    }

    @Test func ipv6RangesAndBareAddresses() throws {
        #expect(try AddressRange(parsing: "fd00::/8").contains(try address("fd12::5")))
        #expect(try AddressRange(parsing: "::1").contains(try address("::1")))
        #expect(!(try AddressRange(parsing: "::1").contains(try address("::2"))))
        #expect(try AddressRange(parsing: "0.0.0.0/0").contains(try address("203.0.113.9")))
    }

    @Test(arguments: ["10.0.0.0/33", "::/129", "nope", "10.0.0.0/x", "10.0.0.0/", "/8"])
    func badRangesAreRefused(text: String) {
        #expect(throws: SocketEngineError.self) { _ = try AddressRange(parsing: text) }
    }

    @Test func allowWinsOverDenyAndRestrictsEveryoneElse() throws {
        let policy = AccessPolicy(allow: [try AddressRange(parsing: "127.0.0.1")], deny: [try AddressRange(parsing: "127.0.0.0/8")])
        #expect(policy.refusal(for: try address("127.0.0.1")) == nil)
        #expect(policy.refusal(for: try address("127.0.0.2")) == "not in \(SettingKey.allow)")
        let denyOnly = AccessPolicy(deny: [try AddressRange(parsing: "127.0.0.2")])
        #expect(denyOnly.refusal(for: try address("127.0.0.2")) == "matches \(SettingKey.deny) 127.0.0.2")
        #expect(denyOnly.refusal(for: try address("127.0.0.3")) == nil)
    }
}

@Suite(.hangGuard) struct MessageEncoderTests {
    func encode(_ chunks: [String], framing: Framing, crlf: Bool = false) -> ([UInt8], [SocketEngineError]) {
        var encoder = MessageEncoder(framing: framing, translateLineEndings: crlf, maximumFrameSize: 16)
        var bytes: [UInt8] = []
        var rejected: [SocketEngineError] = []
        for chunk in chunks {
            let output = encoder.encode(ByteBuffer(string: chunk))
            bytes += output.bytes.readableBytesView
            rejected += output.rejected
        }
        let tail = encoder.finish()
        bytes += tail.bytes.readableBytesView
        rejected += tail.rejected
        return (bytes, rejected)
    }

    @Test func crlfTranslationWorksAcrossChunksAndKeepsExistingCRLF() {
        #expect(encode(["a\nb\r", "\nc\n"], framing: .raw, crlf: true).0 == Array("a\r\nb\r\nc\r\n".utf8))
    }

    @Test func eachInputLineBecomesOneLengthPrefixedFrame() {
        let (bytes, rejected) = encode(["hi\nthe", "re\n", "end"], framing: .lengthPrefixed(width: 2, bigEndian: true))
        #expect(bytes == [0, 2] + Array("hi".utf8) + [0, 5] + Array("there".utf8) + [0, 3] + Array("end".utf8))
        #expect(rejected.isEmpty)
    }

    @Test func linesThatCannotBeFramedAreReportedNotSent() {
        let (bytes, rejected) = encode(["abcd\nabc\n", String(repeating: "x", count: 40) + "\nok12\n"], framing: .fixed(4))
        #expect(bytes == Array("abcdok12".utf8))
        #expect(rejected.count == 2)
    }
}
