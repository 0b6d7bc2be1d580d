import Foundation
import Testing

/// Autobahn|Testsuite conformance through kosoku (scripts/autobahn.sh), cases 1-7 and 10 (247
/// cases), with sockctl as the server and as the client under test. Every case must be OK,
/// NON-STRICT or INFORMATIONAL, its close behaviour too. `make conformance` adds the 9.x
/// limits and performance cases (up to 16 MiB messages).
@Suite(.serialized) struct AutobahnTests {
    static let cases = ["1.*", "2.*", "3.*", "4.*", "5.*", "6.*", "7.*", "10.*"].flatMap { ["-i", $0] }

    static func runSuite(role: String) async throws {
        _ = try venvTool("kosoku")
        let scratch = try Scratch()
        let outdir = scratch.path("autobahn-\(role)")
        let result = try await run(
            packageRoot.appendingPathComponent("scripts/autobahn.sh").path,
            [role, try sockctlPath(), outdir] + cases,
            timeout: .seconds(600), scratch: scratch
        )
        let summary = String(decoding: result.stdout, as: UTF8.self)
        #expect(result.status == 0, "\(summary)\(result.stderr)")

        // Read the report independently of the script's own verdict.
        let data = try Data(contentsOf: URL(fileURLWithPath: outdir + "/index.json"))
        let index = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: [String: Any]]])
        let results = try #require(index.values.first)
        #expect(results.count == 247, "\(results.count) cases reported")
        let accepted: Set<String> = ["OK", "NON-STRICT", "INFORMATIONAL"]
        var counts: [String: Int] = [:]
        for (caseID, outcome) in results {
            let behaviour = outcome["behavior"] as? String ?? "?"
            let close = outcome["behaviorClose"] as? String ?? "?"
            counts[behaviour, default: 0] += 1
            #expect(accepted.contains(behaviour) && accepted.contains(close), "case \(caseID): \(behaviour), close \(close)")
        }
        #expect(counts["FAILED"] == nil)
        #expect((counts["OK"] ?? 0) >= 240, "\(counts)")
    }

    @Test(.timeLimit(.minutes(10))) func sockctlAsTheServerUnderTest() async throws {
        try await Self.runSuite(role: "server")
    }

    @Test(.timeLimit(.minutes(10))) func sockctlAsTheClientUnderTest() async throws {
        try await Self.runSuite(role: "client")
    }
}
