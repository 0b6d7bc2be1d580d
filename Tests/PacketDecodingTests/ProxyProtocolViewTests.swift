import Foundation
import TestSupport
import Testing
@testable import PacketDecoding

/// `capture --decode proxy` on connections recorded by scripts/captures/make-proxy-protocol.sh
/// (Tests/Fixtures/proxy-protocol): haproxy's send-proxy and send-proxy-v2, `sockctl proxy
/// --send-proxy-protocol v2` before a TLS handshake, a malformed v1 line. The headers are the
/// ones tshark reads (proxy-protocol.tshark), the TLS view still sees the ClientHello behind
/// one, and every byte prefix of the file prints without a trap.
@Suite(.hangGuard) struct ProxyProtocolViewTests {
    static let directory = packageRoot.appendingPathComponent("Tests/Fixtures/proxy-protocol")

    static func viewLines(_ views: ProtocolViews) throws -> [String] {
        let reader = try CaptureFileReader(path: directory.appendingPathComponent("proxy-protocol.pcap").path)
        var printer = PacketPrinter(options: PrintOptions(dump: .none, timestamps: .none, views: views))
        var out: [UInt8] = []
        while let record = try reader.next() { printer.print(record.header, record.bytes, into: &out) }
        return String(decoding: out, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("    ") }.map { String($0.dropFirst(4)) }
    }

    @Test func theHeadersAreTheOnesTsharkReads() throws {
        let tshark = try String(contentsOf: Self.directory.appendingPathComponent("proxy-protocol.tshark"), encoding: .utf8)
        // `STREAM SRC SPORT DST DPORT`; a header tshark could not read has the stream alone.
        let rows = tshark.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        let read = rows.filter { $0.count == 5 }.map { "\($0[1]):\($0[2]) > \($0[3]):\($0[4])" }
        #expect(read.count == 3, "\(tshark)")
        let lines = try Self.viewLines(.proxy)
        let shown = lines.filter { $0.hasPrefix("PROXY protocol v") }.map { $0.split(separator: " ", maxSplits: 3).last.map(String.init) ?? "" }
        #expect(shown == read, "\(lines)")
        #expect(lines.filter { $0.hasPrefix("PROXY protocol v1 ") }.count == 1)
        #expect(lines.filter { $0.hasPrefix("PROXY protocol v2 ") }.count == 2)
        #expect(rows.filter { $0.count == 1 }.count == 1, "tshark's unreadable header")
        #expect(lines.contains("PROXY protocol header malformed: v1 line with source address '192.0.2'"), "\(lines)")
    }

    @Test func theProtocolBehindTheHeaderIsStillRecognised() throws {
        let lines = try Self.viewLines([.proxy, .tls])
        guard let header = lines.firstIndex(where: { $0.hasPrefix("PROXY protocol v2 127.0.0.3:") }) else {
            Issue.record("no header from 127.0.0.3: \(lines)")
            return
        }
        #expect(lines.dropFirst(header + 1).first?.hasPrefix("TLS handshake ClientHello") == true, "\(lines)")
        // Without the PROXY view the header is not recognised, and neither is the TLS behind it.
        #expect(!(try Self.viewLines(.tls)).contains { $0.hasPrefix("TLS handshake ClientHello") })
    }

    @Test func everyBytePrefixPrints() async throws {
        let bytes = Array(try Data(contentsOf: Self.directory.appendingPathComponent("proxy-protocol.pcap")))
        let failure = await firstPrefixThatDoesNotPrint(bytes, name: "proxy-protocol")
        #expect(failure == nil, "\(failure ?? "")")
    }
}
