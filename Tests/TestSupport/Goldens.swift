import Foundation
import Testing

/// One line of `Goldens/TESTLIST`: `name capture expected flags...`; `#` starts a comment line.
public struct GoldenCase: Sendable, CustomTestStringConvertible {
    public let name: String
    public let capture: String
    public let expected: String
    public let tcpdumpFlags: [String]

    public static let directory = packageRoot.appendingPathComponent("Tests/Goldens")

    /// Every case, for the parameterised test (empty if TESTLIST cannot be read; then
    /// ``GoldenTests/testListIsComplete()`` fails).
    public static let all: [GoldenCase] = (try? load()) ?? []

    public var testDescription: String { name }
    public var capturePath: String { Self.directory.appendingPathComponent(capture).path }
    public var expectedPath: String { Self.directory.appendingPathComponent(expected).path }

    /// The packet count of `-c N`, if the flags hold one.
    public var count: Int? {
        guard let index = tcpdumpFlags.firstIndex(of: "-c"), index + 1 < tcpdumpFlags.count else { return nil }
        return Int(tcpdumpFlags[index + 1])
    }

    /// The output letters, as sockctl reads them: tcpdump prints no dump without a dump flag,
    /// sockctl's default is -X, so such a case gets `--no-dump`.
    public var outputFlags: [String] {
        let dumpFlags: Set<String> = ["-x", "-xx", "-X", "-XX", "-A", "-AA"]
        let hasDump = tcpdumpFlags.contains { dumpFlags.contains($0) }
        return tcpdumpFlags + (hasDump ? [] : ["--no-dump"])
    }

    /// `sockctl capture -r CAPTURE FLAGS` for this case.
    public var sockctlArguments: [String] {
        ["capture", "-r", capturePath] + outputFlags
    }

    public static func load() throws -> [GoldenCase] {
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
public struct GoldenDifference: CustomStringConvertible {
    let line: Int
    let expected: String
    let actual: String
    let note: String

    /// nil when the outputs are identical.
    public init?(expected: Data, actual: Data) {
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

    public var description: String {
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
