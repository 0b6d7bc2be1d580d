import Foundation
import TestSupport
import Testing

/// The committed man pages and completions are what the current binary generates.
/// Regenerate them with `make docs`.
@Suite(.hangGuard) struct DocsTests {
    @Test(arguments: [("bash", "sockctl.bash"), ("zsh", "_sockctl"), ("fish", "sockctl.fish")])
    func completionsAreUpToDate(shell: String, file: String) async throws {
        let generated = try await run(try sockctlPath(), ["--generate-completion-script", shell])
        #expect(generated.status == 0)
        let committed = try Data(contentsOf: packageRoot.appendingPathComponent("completions/\(file)"))
        let same = generated.stdout == committed
        #expect(same, "completions/\(file) is stale: run `make docs`")
    }

    @Test func manPagesAreUpToDate() async throws {
        let scratch = try Scratch()
        let tool = packageRoot.appendingPathComponent(".build/debug/generate-manual").path
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw HarnessError("\(tool) is missing: `make test` builds it (swift build --product generate-manual)")
        }
        let output = scratch.path("man")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let result = try await run(tool, [try sockctlPath(), "--multi-page", "--date", "2000-01-01", "--output-directory", output])
        #expect(result.status == 0, "\(result.stderr)")
        let manDirectory = packageRoot.appendingPathComponent("man")
        let committedNames = try FileManager.default.contentsOfDirectory(atPath: manDirectory.path).filter { $0.hasSuffix(".1") }.sorted()
        let generatedNames = try FileManager.default.contentsOfDirectory(atPath: output).filter { $0.hasSuffix(".1") }.sorted()
        #expect(committedNames == generatedNames, "man/ holds \(committedNames), the binary generates \(generatedNames): run `make docs`")
        for name in generatedNames where committedNames.contains(name) {
            // The date line is the only part that may differ.
            let strip = { (text: String) in text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix(".Dd ") } }
            let fresh = strip(try String(contentsOfFile: "\(output)/\(name)", encoding: .utf8))
            let committed = strip(try String(contentsOf: manDirectory.appendingPathComponent(name), encoding: .utf8))
            let firstDifference = Array(zip(fresh, committed)).firstIndex { $0 != $1 } ?? min(fresh.count, committed.count)
            let same = fresh == committed
            #expect(same, "man/\(name) is stale at line \(firstDifference + 1): run `make docs`")
        }
    }
}
