import Foundation
import TestSupport
import Testing

/// The committed man pages and completions are what the current binary generates.
/// Regenerate them with `make docs`.
@Suite(.hangGuard) struct DocsTests {
    /// What `make docs` runs on the generated pages (sentences and examples laid out for mdoc).
    static let tidy = packageRoot.appendingPathComponent("scripts/man-tidy.py").path

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
        let pages = try FileManager.default.contentsOfDirectory(atPath: output).filter { $0.hasSuffix(".1") }.map { "\(output)/\($0)" }
        let tidied = try await run(try TestSupport.tool("python3"), [Self.tidy] + pages)
        #expect(tidied.status == 0, "\(tidied.stderr)")
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

    /// ARCHITECTURE.md's module map draws what Package.swift declares: the same modules, the
    /// same dependencies between them (see ``ModuleMap`` for how the map is read).
    @Test func moduleMapMatchesTheManifest() async throws {
        let scratch = try Scratch()
        // A build directory of its own: `swift test` holds the lock of .build while it runs.
        let dump = try await run(
            try Self.swift(), ["package", "--package-path", packageRoot.path, "--scratch-path", scratch.path("build"), "dump-package"]
        )
        try #require(dump.status == 0, "swift package dump-package: \(dump.stderr)")
        let manifest = try ModuleMap.manifest(dump.stdout, root: "sockctl")
        let architecture = try String(contentsOf: packageRoot.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        let differences = try ModuleMap(architecture: architecture).differences(from: manifest)
        #expect(manifest.modules.count >= 10, "dump-package read as \(manifest.modules.sorted())")
        #expect(differences.isEmpty, "ARCHITECTURE.md's module map and Package.swift differ:\n\(differences.joined(separator: "\n"))")
    }

    /// The `swift` of this toolchain: the first on the PATH the tests run with.
    static func swift() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(directory)/swift") {
            return "\(directory)/swift"
        }
        throw HarnessError("swift is not on the PATH (\(path))")
    }

    /// mandoc, the man-page checker, finds nothing at warning level or above in any page.
    @Test func manPagesPassMandocLint() async throws {
        let manDirectory = packageRoot.appendingPathComponent("man").path
        let pages = try FileManager.default.contentsOfDirectory(atPath: manDirectory).filter { $0.hasSuffix(".1") }.sorted().map { "\(manDirectory)/\($0)" }
        #expect(pages.count >= 9)
        let lint = try await run(try tool("mandoc"), ["-Tlint", "-W", "warning"] + pages)
        let report = String(decoding: lint.stdout, as: UTF8.self) + lint.stderr
        #expect(lint.status == 0 && report.isEmpty, "mandoc -Tlint -W warning man/*.1:\n\(report)")
    }
}
