import Testing
@testable import PacketDecoding
import TestSupport

@Suite(.hangGuard) struct HexDumpTests {
    /// The IPv4/TCP packet from the reference (`tcpdump -i any -n -X port 6969` on this machine).
    static let packet: [UInt8] = [
        0x45, 0x00, 0x00, 0x5c, 0xc4, 0xd0, 0x40, 0x00, 0x40, 0x06, 0x77, 0xc9, 0x7f, 0x00, 0x00, 0x01,
        0x7f, 0x00, 0x00, 0x01, 0xe7, 0xa6, 0x1b, 0x39, 0x91, 0x7f, 0x61, 0x7b, 0xe3, 0x9a, 0xb8, 0x5d,
        0x80, 0x18, 0x00, 0x40, 0xfe, 0x50, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a, 0x50, 0xdd, 0x95, 0x9b,
        0x69, 0x2c, 0xfd, 0xfc, 0x7b, 0x22, 0x75, 0x73, 0x65, 0x72, 0x5f, 0x6d, 0x69, 0x64, 0x22, 0x3a,
        0x30, 0x2c, 0x22, 0x72, 0x65, 0x71, 0x54, 0x79, 0x70, 0x65, 0x22, 0x3a, 0x31, 0x2c, 0x22, 0x76,
        0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e, 0x22, 0x3a, 0x35, 0x7d, 0x0d, 0x0a,
    ]

    @Test func matchesTheReferenceDumpByteForByte() {
        let expected = """

            \t0x0000:  4500 005c c4d0 4000 4006 77c9 7f00 0001  E..\\..@.@.w.....
            \t0x0010:  7f00 0001 e7a6 1b39 917f 617b e39a b85d  .......9..a{...]
            \t0x0020:  8018 0040 fe50 0000 0101 080a 50dd 959b  ...@.P......P...
            \t0x0030:  692c fdfc 7b22 7573 6572 5f6d 6964 223a  i,..{"user_mid":
            \t0x0040:  302c 2272 6571 5479 7065 223a 312c 2276  0,"reqType":1,"v
            \t0x0050:  6572 7369 6f6e 223a 357d 0d0a            ersion":5}..
            """
        #expect(HexDump.hexAndASCII(Self.packet) == expected)
    }

    @Test func oddLengthLinesEndWithASingleByteGroup() {
        #expect(HexDump.hexAndASCII([0x3c]) == "\n\t0x0000:  3c                                       <")
        #expect(HexDump.hexAndASCII([0x20, 0x7f, 0x80]) == "\n\t0x0000:  207f 80                                  ...")
    }

    @Test func emptyInputPrintsNothing() {
        #expect(HexDump.hexAndASCII([]) == "")
    }

    @Test func offsetsAbove64KiBUseMoreDigits() {
        let text = HexDump.hexAndASCII([0x41], offset: 0x10000)
        #expect(text == "\n\t0x10000:  41                                       A")
    }

    @Test func hexOnlyHasNoPaddingOrASCII() {
        var out: [UInt8] = []
        [UInt8]([0x45, 0x00, 0x00]).withUnsafeBytes { HexDump.appendHex($0, into: &out) }
        #expect(String(decoding: out, as: UTF8.self) == "\n\t0x0000:  4500 00")
    }

    /// Whole lines go through a word-at-a-time path: every byte value, at offsets that need 4
    /// to 7 digits, equals the dump written out the slow way; a continued dump is the same
    /// lines without the first newline.
    @Test func wholeLinesOfEveryByteValueMatchTheSlowDump() {
        let bytes = (0..<515).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256) }
        for offset in [0, 0xFFF0, 0x12345, 0xABCDEF1] {
            var expected = ""
            for lineStart in stride(from: 0, to: bytes.count, by: 16) {
                let line = bytes[lineStart..<min(lineStart + 16, bytes.count)]
                var hex = ""
                for (index, byte) in line.enumerated() { hex += (index % 2 == 0 ? " " : "") + String(byte, radix: 16).leftPadded(2) }
                let ascii = String(decoding: line.map { (0x21...0x7E).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
                expected += "\n\t0x" + String(offset + lineStart, radix: 16).leftPadded(4) + ": " + hex.padding(toLength: 40, withPad: " ", startingAt: 0) + "  " + ascii
            }
            #expect(HexDump.hexAndASCII(bytes, offset: offset) == expected, "offset \(offset)")
            var continued: [UInt8] = []
            bytes.withUnsafeBytes { HexDump.appendContinuedHexAndASCII($0, offset: offset, into: &continued) }
            #expect(String(decoding: continued, as: UTF8.self) == String(expected.dropFirst()))
        }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
