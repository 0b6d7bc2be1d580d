import Foundation
import TestSupport
import Testing
@testable import PacketDecoding

/// The tcpdump-text printer on hand-built frames: exact lines for the cases a user reads most,
/// and "never traps" over every prefix of every golden capture's packets.
@Suite(.hangGuard) struct PacketPrinterTests {
    /// Ethernet + IPv4 + TCP SYN from 127.0.0.1:40676 to :6969 with mss, sackOK, TS, nop, wscale.
    static let syn: [UInt8] = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00,
        0x45, 0x00, 0x00, 0x3c, 0x80, 0x14, 0x40, 0x00, 0x40, 0x06, 0xbc, 0xa5, 0x7f, 0, 0, 1, 0x7f, 0, 0, 1,
        0x9e, 0xe4, 0x1b, 0x39, 0xc7, 0x51, 0x3a, 0x65, 0, 0, 0, 0, 0xa0, 0x02, 0xff, 0xd7, 0xfe, 0x30, 0, 0,
        0x02, 0x04, 0xff, 0xd7, 0x04, 0x02, 0x08, 0x0a, 0x9f, 0x05, 0x6d, 0x4e, 0, 0, 0, 0, 0x01, 0x03, 0x03, 0x0a,
    ]

    static func render(_ frame: [UInt8], linkType: LinkType = .ethernet, options: PrintOptions = PrintOptions(dump: .none, timestamps: .none), wireLength: Int? = nil) -> String {
        var printer = PacketPrinter(options: options)
        var out: [UInt8] = []
        let header = PacketHeader(seconds: 0, fraction: 0, precision: .microseconds, capturedLength: frame.count,
                                  originalLength: wireLength ?? frame.count, linkType: linkType)
        frame.withUnsafeBytes { printer.print(header, $0, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func synPrintsAbsoluteSequenceAndEveryOption() {
        #expect(Self.render(Self.syn) == "IP 127.0.0.1.40676 > 127.0.0.1.6969: Flags [S], seq 3343989349, win 65495, options [mss 65495,sackOK,TS val 2667933006 ecr 0,nop,wscale 10], length 0\n")
    }

    @Test func snaplenInsideTheOptionsPrintsTheTruncationMarker() {
        let cut = Array(Self.syn.prefix(14 + 20 + 20 + 6))
        #expect(Self.render(cut, wireLength: Self.syn.count) == "IP 127.0.0.1.40676 > 127.0.0.1.6969: Flags [S], seq 3343989349, win 65495, options [mss 65495,sackOK, [|tcp]\n")
    }

    @Test func optionLengthBeyondTheHeaderIsABadOption() {
        var frame = Self.syn
        frame[14 + 20 + 21] = 40  // mss claims 40 bytes
        #expect(Self.render(frame) == "IP 127.0.0.1.40676 > 127.0.0.1.6969: Flags [S], seq 3343989349, win 65495, options [[bad opt]\n")
    }

    @Test func ipv4TotalLengthBelowTheHeaderIsBadLen() {
        var frame = Self.syn
        frame[14 + 2] = 0
        frame[14 + 3] = 0
        #expect(Self.render(frame) == "IP bad-len 0\n")
    }

    @Test func recordWithCaplenAboveLenIsAnInvalidHeader() {
        #expect(Self.render(Self.syn, wireLength: 20) == "[Invalid header: len(20) < caplen(74)]\n")
    }

    @Test func ipv6AddressesUseTheLongestZeroRun() {
        var ip6: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x86, 0xdd, 0x60, 0, 0, 0, 0, 8, 17, 64]
        ip6 += [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1]  // 2001:db8::1:0:0:1
        ip6 += [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1]        // ::ffff:192.0.2.1
        ip6 += [0x13, 0x88, 0x1b, 0x39, 0, 8, 0, 0]
        #expect(Self.render(ip6) == "IP6 2001:db8::1:0:0:1.5000 > ::ffff:192.0.2.1.6969: UDP, length 0\n")
    }

    @Test func asciiDumpDropsCarriageReturnsBeforeLineFeeds() {
        var out: [UInt8] = []
        let bytes: [UInt8] = Array("a\r\nb\rc\r".utf8)
        bytes.withUnsafeBytes { PacketPrinter.appendASCII($0, into: &out) }
        #expect(String(decoding: out, as: UTF8.self) == "\na\nb.c")
    }

    /// Every golden capture's packets, cut after every byte of their first 1 KiB (every header
    /// any decoder reads lies there) and then every 509 bytes up to the whole frame, through
    /// every dump style and verbosity: no trap, output ends in a newline. (Every prefix of a 64 KiB frame
    /// would format 2 GiB of dump lines per style.)
    @Test(arguments: ["-X", "-XX", "-A", "-e", "-v", "-vvv -e", "--decode all"])
    func everyPrefixOfEveryGoldenPacketPrints(flag: String) async throws {
        var options = PrintOptions()
        switch flag {
        case "-XX": options.dumpIncludesLinkHeader = true
        case "-A": options.dump = .ascii
        case "-e": options.linkHeader = true
        case "-v": options.verbosity = 1
        case "-vvv -e":
            options.verbosity = 3
            options.linkHeader = true
        case "--decode all": options.views = .all
        default: break
        }
        let goldens = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Goldens")
        let files = try FileManager.default.contentsOfDirectory(atPath: goldens.path)
            .filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") }.sorted()
        #expect(files.count >= 10, "golden captures missing in \(goldens.path)")
        let printOptions = options
        // Seconds of CPU: on a thread of its own, not the cooperative pool the async tests need.
        let (packets, failure) = await onOwnThread { () -> (Int, String?) in
            var packets = 0
            for file in files {
                guard let reader = try? CaptureFileReader(path: goldens.appendingPathComponent(file).path) else {
                    return (packets, "\(file) does not open")
                }
                var printer = PacketPrinter(options: printOptions)
                var out: [UInt8] = []
                var records = 0
                while records < 200, let record = try? reader.next() {
                    records += 1
                    let count = min(record.bytes.count, record.header.capturedLength)
                    for length in Self.prefixLengths(count) {
                        var header = record.header
                        header.capturedLength = length
                        out.removeAll(keepingCapacity: true)
                        printer.print(header, UnsafeRawBufferPointer(rebasing: record.bytes[0..<length]), into: &out)
                        packets += 1
                        if out.last != 0x0A {
                            return (packets, "\(file) record \(records) cut at \(length): output does not end in a newline")
                        }
                    }
                }
            }
            return (packets, nil)
        }
        #expect(failure == nil, "\(failure ?? "")")
        #expect(packets > 1000)
    }

    /// 0...1024 one by one, then every 509th length, then the whole frame.
    static func prefixLengths(_ count: Int) -> [Int] {
        var lengths = Array(0...min(count, 1024))
        if count > 1024 {
            lengths += stride(from: 1024 + 509, to: count, by: 509)
            lengths.append(count)
        }
        return lengths
    }
}
