import Capture
import Foundation
import PacketDecoding
import TestSupport
import Testing

@testable import sockctl

import Glibc

/// Golden tests in the tcpdump style, in one process: each line of `Tests/Goldens/TESTLIST`
/// names a capture, an expected output and tcpdump flags; the capture library reads the file
/// as `capture -r` does (``FilteredCaptureFile``, the flags read by ``TcpdumpFlags``) and the
/// printer must print exactly the bytes tcpdump 4.99.3 printed (TZ=UTC).
///
/// The expected outputs are made by `scripts/regenerate-goldens.sh` (the real tcpdump, never
/// edited by hand); the captures by `scripts/captures/make-live.sh` (loopback, committed) and
/// `scripts/captures/make-crafted.py` (edge cases). Only stdout is compared: tcpdump's banner on
/// stderr and its exit status (1 for a cut file) are not part of a golden. The command itself is
/// run on a selection in sockctlTests (CaptureCommandGoldenTests).
@Suite("Golden output: the capture library prints what tcpdump 4.99.3 prints", .hangGuard)
struct GoldenTests {
    /// Times of day print in UTC, as the goldens were recorded.
    static let utc: Void = {
        setenv("TZ", "UTC", 1)
        tzset()
    }()

    @Test("TESTLIST is non-empty and every line names an existing capture and expected output")
    func testListIsComplete() throws {
        let cases = try GoldenCase.load()
        #expect(cases.count > 50, "TESTLIST has only \(cases.count) cases")
        for golden in cases {
            #expect(FileManager.default.fileExists(atPath: golden.capturePath), "\(golden.name): missing capture \(golden.capture)")
            #expect(FileManager.default.fileExists(atPath: golden.expectedPath), "\(golden.name): missing expected output \(golden.expected) (run scripts/regenerate-goldens.sh)")
        }
        #expect(Set(cases.map(\.name)).count == cases.count, "TESTLIST has duplicate names")
    }

    /// What `capture -r` writes to stdout for `golden`: every packet the file holds up to `-c`,
    /// or up to a record that cannot be read.
    static func printed(_ golden: GoldenCase) throws -> [UInt8] {
        _ = utc
        let file = try FilteredCaptureFile(path: golden.capturePath, filter: nil)
        var printer = PacketPrinter(options: PrintOptions(TcpdumpFlags(arguments: golden.outputFlags)))
        var out: [UInt8] = []
        do {
            try file.forEach(limit: golden.count) { header, bytes throws(CaptureError) in
                printer.print(header, bytes, into: &out)
            }
        } catch {
            // A cut file: tcpdump prints what came before, then its error on stderr.
            guard error.code == .unreadableFile else { throw error }
        }
        return out
    }

    @Test("stdout is byte-for-byte tcpdump's", arguments: GoldenCase.all)
    func outputMatchesTcpdump(_ golden: GoldenCase) throws {
        let expected = try Data(contentsOf: URL(fileURLWithPath: golden.expectedPath))
        if let difference = GoldenDifference(expected: expected, actual: Data(try Self.printed(golden))) {
            Issue.record("""
                \(golden.name): the printer with \(golden.outputFlags.joined(separator: " ")) differs from \
                `tcpdump -r \(golden.capture) \(golden.tcpdumpFlags.joined(separator: " "))` (Goldens/\(golden.expected))
                \(difference)
                """)
        }
    }
}
