import Testing
import PacketDecoding
import TestSupport

@Suite(.hangGuard) struct PacketJSONTests {
    private static let ethernet: [UInt8] = [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00,
    ]

    private static func header(_ frame: [UInt8], linkType: LinkType, wireExtra: Int = 0, fraction: UInt32 = 123_456,
                               precision: TimestampPrecision = .microseconds) -> PacketHeader {
        PacketHeader(seconds: 1_795_341_600, fraction: fraction, precision: precision,
                     capturedLength: frame.count, originalLength: frame.count + wireExtra, linkType: linkType)
    }

    @Test func tcpSegmentOnEthernetIsOneCompactLine() {
        let frame = Self.ethernet + SegmentFrames.tcp(seq: 1001, ack: 2002, flags: 0x18, payload: Array("hello".utf8),
                                                      sourcePort: 5000, destinationPort: 6969)
        #expect(PacketJSON.line(Self.header(frame, linkType: .ethernet), frame) == """
            {"time":"2026-11-22T10:00:00.123456Z","len":59,"caplen":59,"link":"EN10MB","ip":4,\
            "src":"10.0.0.1","dst":"10.0.0.2","proto":"tcp","sport":5000,"dport":6969,"flags":"P.",\
            "seq":1001,"ack":2002,"win":512,"payload_len":5,"payload":"aGVsbG8="}
            """)
    }

    @Test func appendEndsEachObjectWithANewline() {
        let frame = SegmentFrames.tcp(seq: 1, flags: 0x02)
        var out: [UInt8] = []
        frame.withUnsafeBytes { PacketJSON.append(Self.header(frame, linkType: .ipv4), $0, into: &out) }
        frame.withUnsafeBytes { PacketJSON.append(Self.header(frame, linkType: .ipv4), $0, into: &out) }
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.split(separator: "\n").count == 2)
        #expect(text.hasSuffix("\"flags\":\"S\",\"seq\":1,\"ack\":0,\"win\":512,\"payload_len\":0,\"payload\":\"\"}\n"))
    }

    @Test func udpOverIPv6OnLinuxCookedV2WithNanosecondTime() {
        var frame: [UInt8] = [0x86, 0xDD, 0, 0, 0, 0, 0, 1, 0x03, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]  // SLL2: ifindex 1, loopback, In
        frame += [0x60, 0, 0, 0, 0, 11, 17, 64]
        frame += [UInt8](repeating: 0, count: 15) + [1]  // ::1
        frame += [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [0x10]  // 2001:db8::10
        frame += [0x14, 0xE9, 0x1B, 0x39, 0, 11, 0, 0] + Array("abc".utf8)
        #expect(PacketJSON.line(Self.header(frame, linkType: .linuxSLL2, fraction: 5, precision: .nanoseconds), frame) == """
            {"time":"2026-11-22T10:00:00.000000005Z","len":71,"caplen":71,"link":"LINUX_SLL2","ip":6,\
            "src":"::1","dst":"2001:db8::10","proto":"udp","sport":5353,"dport":6969,"payload_len":3,"payload":"YWJj"}
            """)
    }

    @Test func payloadCutByTheSnapLengthIsMarkedTruncated() {
        let frame = SegmentFrames.tcp(seq: 7, flags: 0x19, payload: Array("ab".utf8), wireExtra: 8)
        #expect(PacketJSON.line(Self.header(frame, linkType: .raw, wireExtra: 8), frame) == """
            {"time":"2026-11-22T10:00:00.123456Z","len":50,"caplen":42,"link":"RAW","ip":4,\
            "src":"10.0.0.1","dst":"10.0.0.2","proto":"tcp","sport":40000,"dport":80,"flags":"FP.",\
            "seq":7,"ack":0,"win":512,"payload_len":10,"payload":"YWI=","truncated":true}
            """)
    }

    @Test func icmpHasAddressesButNoPorts() {
        let frame: [UInt8] = [0x45, 0, 0, 28, 0, 0, 0, 0, 64, 1, 0, 0, 127, 0, 0, 1, 127, 0, 0, 2, 8, 0, 0, 0, 0, 0, 0, 0]
        #expect(PacketJSON.line(Self.header(frame, linkType: .ipv4), frame) == """
            {"time":"2026-11-22T10:00:00.123456Z","len":28,"caplen":28,"link":"IPV4","ip":4,\
            "src":"127.0.0.1","dst":"127.0.0.2","proto":"icmp"}
            """)
    }

    @Test func cutTCPHeaderIsMalformedAndNonIPStopsAfterTheLink() {
        let cut = Array(SegmentFrames.tcp(seq: 1).prefix(30))
        #expect(PacketJSON.line(Self.header(cut, linkType: .ipv4, wireExtra: 10), cut).hasSuffix(#""proto":"tcp","malformed":true}"#))
        let arp = Array(Self.ethernet.prefix(12)) + [0x08, 0x06] + [UInt8](repeating: 0, count: 28)
        #expect(PacketJSON.line(Self.header(arp, linkType: .ethernet), arp) == """
            {"time":"2026-11-22T10:00:00.123456Z","len":42,"caplen":42,"link":"EN10MB"}
            """)
    }

    @Test func invalidRecordHeaderIsFlaggedAndNotDecoded() {
        let frame = SegmentFrames.tcp(seq: 1)
        var header = Self.header(frame, linkType: .ipv4)
        header.originalLength = 20  // len < caplen
        #expect(PacketJSON.line(header, frame) == """
            {"time":"2026-11-22T10:00:00.123456Z","len":20,"caplen":40,"link":"IPV4","invalid":true}
            """)
    }

    @Test func timeIsUTCAcrossLeapDaysAndThe2038Boundary() {
        func time(_ seconds: Int64) -> String {
            let header = PacketHeader(seconds: seconds, fraction: 0, precision: .microseconds, capturedLength: 1, originalLength: 1, linkType: LinkType(rawValue: 300))
            let line = PacketJSON.line(header, [0])
            return String(line.dropFirst(9).prefix(27))
        }
        #expect(time(0) == "1970-01-01T00:00:00.000000Z")
        #expect(time(951_868_799) == "2000-02-29T23:59:59.000000Z")
        #expect(time(2_147_483_648) == "2038-01-19T03:14:08.000000Z")
        #expect(time(-1) == "1969-12-31T23:59:59.000000Z")
    }

    @Test func base64MatchesTheRFC4648Vectors() {
        func encode(_ bytes: [UInt8]) -> String {
            var out: [UInt8] = []
            bytes.withUnsafeBytes { PacketJSON.appendBase64($0, into: &out) }
            return String(decoding: out, as: UTF8.self)
        }
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(encode(Array(plain.utf8)) == encoded)
        }
        #expect(encode([0, 1, 2, 3, 4, 5, 6]) == "AAECAwQFBg==")
        #expect(encode([0xFF, 0xFE, 0xFD]) == "//79")
    }

    @Test func everyPrefixOfAnEthernetFramePrintsOneLine() {
        let frame = Self.ethernet + SegmentFrames.tcp(seq: 1, payload: Array("xyz".utf8))
        for length in 1...frame.count {
            let prefix = Array(frame.prefix(length))
            let header = PacketHeader(seconds: 0, fraction: 0, precision: .microseconds, capturedLength: length, originalLength: frame.count, linkType: .ethernet)
            let line = PacketJSON.line(header, prefix)
            #expect(line.hasPrefix("{\"time\":") && line.hasSuffix("}") && !line.contains("\n"))
        }
    }
}
