import Foundation
import TestSupport
import Testing

/// `sockctl capture -r FILE FLAGS` itself, as a user runs it (TZ=UTC): its stdout is exactly
/// what tcpdump 4.99.3 printed. Every golden case is checked in-process against the capture
/// library (CaptureTests' GoldenTests); this runs the command on cases that reach each part
/// of it: link headers and -e, -S with -tttt, -c, a file cut short (exit 1, the packets
/// before the cut still printed), hex-only and ASCII dumps, no dump, -v to -vvv and the
/// application printers (DNS from dnsmasq, HTTP, tunnels).
@Suite("Golden output through the capture -r command", .hangGuard)
struct CaptureCommandGoldenTests {
    static let names = [
        "lo-tcp4-S-tttt", "lo-tcp4-c5-X", "any-sll2-e-X", "lo-udp-e-x", "tcp-headers-A", "ipv6-nodump", "cut-file-X",
        "verbose-transport-v", "app-dns-vvv", "text-http-v", "tunnels-vv-e",
    ]

    @Test func theCommandPrintsWhatTcpdumpPrinted() async throws {
        let cases = GoldenCase.all.filter { Self.names.contains($0.name) }
        #expect(cases.count == Self.names.count, "a golden case is missing from TESTLIST: \(Self.names)")
        for golden in cases {
            let child = try await Child(try sockctlPath(), golden.sockctlArguments, name: golden.name, environment: ["TZ": "UTC"])
            let status = try await child.wait()
            #expect(status == (golden.name == "cut-file-X" ? 1 : 0), "\(golden.name): exit status \(status); stderr: \(child.stderr.prefix(500))")
            let expected = try Data(contentsOf: URL(fileURLWithPath: golden.expectedPath))
            if let difference = GoldenDifference(expected: expected, actual: child.stdout) {
                Issue.record("\(golden.name): `sockctl \(golden.sockctlArguments.joined(separator: " "))` differs from tcpdump\n\(difference)")
            }
        }
    }
}
