import Foundation
import TestSupport
import Testing

/// Golden tests in the tcpdump style: each line of `Goldens/TESTLIST` names a capture, an
/// expected output and tcpdump flags; `sockctl capture -r capture flags` (TZ=UTC) must print
/// exactly the bytes tcpdump 4.99.3 printed.
///
/// The expected outputs are made by `scripts/regenerate-goldens.sh` (the real tcpdump, never
/// edited by hand); the captures by `scripts/captures/make-live.sh` (loopback, committed) and
/// `scripts/captures/make-crafted.py` (edge cases). Only stdout is compared: tcpdump's banner on
/// stderr and its exit status (1 for a cut file) are not part of a golden.
@Suite("Golden output: sockctl capture -r prints what tcpdump 4.99.3 prints", .hangGuard)
struct GoldenTests {
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

    @Test("stdout is byte-for-byte tcpdump's", arguments: GoldenCase.all)
    func stdoutMatchesTcpdump(_ golden: GoldenCase) async throws {
        let child = try await Child(try sockctlPath(), golden.sockctlArguments, name: golden.name, environment: ["TZ": "UTC"])
        let status = try await child.wait()
        #expect(status == 0 || status == 1, "\(golden.name): sockctl exited with \(status); stderr: \(child.stderr.prefix(500))")
        let expected = try Data(contentsOf: URL(fileURLWithPath: golden.expectedPath))
        if let difference = GoldenDifference(expected: expected, actual: child.stdout) {
            Issue.record("""
                \(golden.name): `sockctl \(golden.sockctlArguments.joined(separator: " "))` differs from \
                `tcpdump -r \(golden.capture) \(golden.tcpdumpFlags.joined(separator: " "))` (Goldens/\(golden.expected))
                \(difference)
                stderr: \(child.stderr.prefix(500))
                """)
        }
    }
}

/// One line of `Goldens/TESTLIST`: `name capture expected flags...`; `#` starts a comment line.
struct GoldenCase: Sendable, CustomTestStringConvertible {
    let name: String
    let capture: String
    let expected: String
    let tcpdumpFlags: [String]

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens")

    /// Every case, for the parameterised test (empty if TESTLIST cannot be read; then
    /// ``GoldenTests/testListIsComplete()`` fails).
    static let all: [GoldenCase] = (try? load()) ?? []

    var testDescription: String { name }
    var capturePath: String { Self.directory.appendingPathComponent(capture).path }
    var expectedPath: String { Self.directory.appendingPathComponent(expected).path }

    /// tcpdump prints no dump by default, sockctl's default is -X: without a dump flag
    /// sockctl gets `--no-dump`.
    var sockctlArguments: [String] {
        let dumpFlags: Set<String> = ["-x", "-xx", "-X", "-XX", "-A", "-AA"]
        let hasDump = tcpdumpFlags.contains { dumpFlags.contains($0) }
        return ["capture", "-r", capturePath] + tcpdumpFlags + (hasDump ? [] : ["--no-dump"])
    }

    static func load() throws -> [GoldenCase] {
        let text = try String(contentsOf: directory.appendingPathComponent("TESTLIST"), encoding: .utf8)
        var cases: [GoldenCase] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if fields.isEmpty || fields[0].hasPrefix("#") { continue }
            guard fields.count >= 3 else { throw HarnessError("TESTLIST line \(index + 1): need `name capture expected flags...`: \(line)") }
            cases.append(GoldenCase(name: fields[0], capture: fields[1], expected: fields[2], tcpdumpFlags: Array(fields.dropFirst(3))))
        }
        return cases
    }
}

/// The first line where two outputs differ, for a failure message that shows one line pair
/// instead of two whole files. Lines are split on LF; bytes that are not printable ASCII are
/// shown escaped (`\t`, `\r`, `\xNN`) so whitespace differences are visible.
struct GoldenDifference: CustomStringConvertible {
    let line: Int
    let expected: String
    let actual: String
    let note: String

    /// nil when the outputs are identical.
    init?(expected: Data, actual: Data) {
        if expected == actual { return nil }
        let expectedLines = expected.split(separator: 0x0A, omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: 0x0A, omittingEmptySubsequences: false)
        var index = 0
        while index < expectedLines.count, index < actualLines.count, expectedLines[index] == actualLines[index] {
            index += 1
        }
        line = index + 1
        self.expected = index < expectedLines.count ? Self.escaped(expectedLines[index]) : "<end of output>"
        self.actual = index < actualLines.count ? Self.escaped(actualLines[index]) : "<end of output>"
        note = "expected \(expected.count) bytes in \(expectedLines.count) lines, got \(actual.count) bytes in \(actualLines.count) lines"
    }

    var description: String {
        """
        first difference at line \(line) (\(note)):
          expected: \(expected)
               got: \(actual)
        """
    }

    static func escaped(_ bytes: Data.SubSequence) -> String {
        var text = ""
        for byte in bytes.prefix(400) {
            switch byte {
            case 0x09: text += "\\t"
            case 0x0D: text += "\\r"
            case 0x5C: text += "\\\\"
            case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return bytes.count > 400 ? text + "… (\(bytes.count) bytes)" : text
    }
}
