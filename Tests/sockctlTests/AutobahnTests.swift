import Foundation
import TestSupport
import Testing

/// Autobahn|Testsuite conformance through kosoku (scripts/autobahn.sh), with sockctl as the
/// server and as the client under test: a functional sample of every category that applies —
/// framing, pings, reserved bits, opcodes, fragmentation, UTF-8, close handling (110 cases). Every
/// case must be OK, NON-STRICT or INFORMATIONAL, its close behaviour too. The whole of cases 1-7,
/// 9 (up to 16 MiB messages) and 10 runs in `make conformance`. Both run the release build:
/// `make test` points ``sockctlPath()`` at it, as `make conformance` runs it.
@Suite(.hangGuard) struct AutobahnTests {
    static let sample = ["1.1.*", "1.2.*", "2.*", "3.*", "4.*", "5.*", "6.2.*", "6.3.*", "6.4.*", "7.1.*", "7.3.*", "7.5.*", "7.7.*", "7.9.*", "10.*"]
    static let cases = sample.flatMap { ["-i", $0] }

    /// How many cases the sample holds (kosoku's own count, checked once here).
    static let expectedCount = 110

    static func runSuite(role: String) async throws {
        _ = try venvTool("kosoku")
        let scratch = try Scratch()
        let outdir = scratch.path("autobahn-\(role)")
        let result = try await run(packageRoot.appendingPathComponent("scripts/autobahn.sh").path, [role, try sockctlPath(), outdir] + cases)
        let summary = String(decoding: result.stdout, as: UTF8.self)
        #expect(result.status == 0, "\(summary)\(result.stderr)")

        // Read the report independently of the script's own verdict.
        let data = try Data(contentsOf: URL(fileURLWithPath: outdir + "/index.json"))
        let index = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: [String: Any]]])
        let results = try #require(index.values.first)
        #expect(results.count == expectedCount, "\(results.count) cases reported")
        let accepted: Set<String> = ["OK", "NON-STRICT", "INFORMATIONAL"]
        var counts: [String: Int] = [:]
        for (caseID, outcome) in results {
            let behaviour = outcome["behavior"] as? String ?? "?"
            let close = outcome["behaviorClose"] as? String ?? "?"
            counts[behaviour, default: 0] += 1
            #expect(accepted.contains(behaviour) && accepted.contains(close), "case \(caseID): \(behaviour), close \(close)")
        }
        #expect(counts["FAILED"] == nil)
        #expect((counts["OK"] ?? 0) >= expectedCount - 10, "\(counts)")
    }

    @Test func sockctlAsTheServerUnderTest() async throws {
        try await Self.runSuite(role: "server")
    }

    @Test func sockctlAsTheClientUnderTest() async throws {
        try await Self.runSuite(role: "client")
    }
}
