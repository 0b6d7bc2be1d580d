import Foundation
import TestSupport
import Testing

import Glibc

/// `capture -w NAME.pcapng`: a pcapng file that tcpdump, tshark and `capture -r` read as the
/// packets it was given; any other name still writes pcap.
@Suite("sockctl capture -w pcapng", .hangGuard)
struct CapturePcapngTests {
    static let goldens = GoldenCase.directory

    @Test(arguments: [
        ("live-lo-tcp4.pcap", false), ("live-any-sll2.pcap", false), ("live-lo-nano.pcap", true), ("crafted-ipv4.pcap", false),
    ])
    func pcapngFileReadsBackInTcpdumpTsharkAndCapture(source: String, nano: Bool) async throws {
        let scratch = try Scratch()
        let input = Self.goldens.appendingPathComponent(source).path
        let output = scratch.path("out.pcapng")
        let written = try await run(try sockctlPath(), ["capture", "-r", input, "-w", output] + (nano ? ["--nano"] : []))
        #expect(written.status == 0, "\(written.stderr)")
        let magic = try Data(contentsOf: URL(fileURLWithPath: output)).prefix(4)
        #expect(Array(magic) == [0x0A, 0x0D, 0x0D, 0x0A], "a pcapng Section Header Block starts the file")

        let precision = nano ? ["--nano"] : []
        let expected = try await run(try tool("tcpdump"), ["-n", "-XX", "-r", input] + precision, environment: ["TZ": "UTC"])
        let tcpdump = try await run(try tool("tcpdump"), ["-n", "-XX", "-r", output] + precision, environment: ["TZ": "UTC"])
        #expect(tcpdump.status == 0, "\(tcpdump.stderr)")
        if let difference = GoldenDifference(expected: expected.stdout, actual: tcpdump.stdout) {
            Issue.record("tcpdump -r of the pcapng differs from tcpdump -r of the source: \(difference)")
        }
        let ours = try await run(try sockctlPath(), ["capture", "-n", "-XX", "-r", output] + precision, environment: ["TZ": "UTC"])
        #expect(ours.status == 0)
        #expect(ours.stdout == expected.stdout, "capture -r prints the pcapng as tcpdump prints the source")

        let tshark = try await run(try tool("tshark"), ["-r", output, "-T", "fields", "-e", "frame.time_epoch", "-e", "frame.len", "-e", "frame.cap_len"])
        let tsharkSource = try await run(try tool("tshark"), ["-r", input, "-T", "fields", "-e", "frame.time_epoch", "-e", "frame.len", "-e", "frame.cap_len"])
        #expect(tshark.status == 0, "\(tshark.stderr)")
        #expect(!tshark.stdout.isEmpty && tshark.stdout == tsharkSource.stdout, "tshark sees the same times and lengths")
        let info = try await run(try tool("capinfos"), ["-t", "-E", output])
        #expect(String(decoding: info.stdout, as: UTF8.self).contains("Wireshark/... - pcapng"))
    }

    @Test func otherNamesStillWritePcap() async throws {
        let scratch = try Scratch()
        let input = Self.goldens.appendingPathComponent("live-lo-tcp4.pcap").path
        for name in ["out.pcap", "out.cap", "out.pcapng.gz", "pcapng"] {
            let written = try await run(try sockctlPath(), ["capture", "-r", input, "-w", scratch.path(name)])
            #expect(written.status == 0)
            let magic = try Data(contentsOf: URL(fileURLWithPath: scratch.path(name))).prefix(4)
            #expect(Array(magic) == [0xD4, 0xC3, 0xB2, 0xA1], "\(name) is pcap")
        }
    }
}
