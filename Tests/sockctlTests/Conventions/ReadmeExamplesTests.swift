import Foundation
import TestSupport
import Testing

/// README.md's examples, each run as written against loopback servers the test starts, and the
/// output README shows beneath a command held against what it prints.
///
/// An example names hosts a test must not reach (example.com, 10.0.0.5, api.internal, 0.0.0.0)
/// and ports it must not take (7000, 8443): its runner (``ReadmeRunners``, one per example)
/// starts a server of the right kind on a port the kernel picks and maps the example's host
/// onto it — by replacing the text (`example.com:80` → `127.0.0.1:PORT`), with sockctl's own
/// `--resolve` where the example uses it, or by adding the test CA (`--cafile`) where the
/// example trusts the system store. Long-running examples (listen, proxy, an interactive connect,
/// a long load test) are started, poked and stopped with SIGINT; every send is bounded.
@Suite("README examples", .hangGuard)
struct ReadmeExamplesTests {
    /// The README has examples, every one has a runner ("no runner for this example: add one"),
    /// and every runner has its example (a runner whose example changed or went is stale).
    @Test func everyExampleHasARunnerAndEveryRunnerAnExample() {
        let examples = ReadmeExamples.all
        #expect(examples.count >= 60, "README.md's examples were not found (\(examples.count)) at \(ReadmeExamples.path)")
        let commands = Set(examples.map(\.command))
        for example in examples where ReadmeRunners.runner(for: example.command) == nil {
            Issue.record("no runner for this example: add one to ReadmeRunners (Tests/sockctlTests/Conventions/ReadmeRunners+*.swift)\n  \(example)",
                         sourceLocation: example.sourceLocation)
        }
        var seen = Set<String>()
        for runner in ReadmeRunners.all {
            #expect(seen.insert(runner.command).inserted, "two runners for one example: \(runner.command)")
            #expect(commands.contains(runner.command), "a runner for an example README no longer has (changed or removed?): \(runner.command)")
        }
    }

    @Test(arguments: ReadmeExamples.all)
    func example(_ example: ReadmeExample) async throws {
        guard let runner = ReadmeRunners.runner(for: example.command) else {
            Issue.record("no runner for this example: add one to ReadmeRunners\n  \(example)", sourceLocation: example.sourceLocation)
            return
        }
        let run = try ExampleRun(example)
        do {
            try await runner.body(run)
        } catch {
            Issue.record("\(example)\n  \(error)\n\(run.context)", sourceLocation: example.sourceLocation)
        }
    }

    /// What the extractor takes from Markdown: prompts and their output, continuation lines,
    /// comments, pipelines; not output blocks, other languages or other programs.
    @Test func theExtractorFindsCommandsAndTheirOutput() {
        let markdown = """
            text
            ```sh
            sockctl listen 7000   # a comment
            make demo
            sockctl loadtest 127.0.0.1:7000 --rate 5 \\
                --message 'a # b'
            echo hi | sockctl send 127.0.0.1:7000
            ```

            ```
            sockctl listen: listening on 127.0.0.1:7000 (tcp)
            ```

            ```
            $ sockctl replay x.pcap --list
            STREAM  PROTO
            $ tcpdump -n -r x.pcap
            … IP
            $ printf 'a\\n' \\
                | sockctl connect 127.0.0.1:7700 -v
            sockctl connect: recorded

            ```

            ```swift
            sockctl connect x:1
            ```
            """
        let examples = ReadmeExamples.extract(fromMarkdown: markdown)
        #expect(examples.map(\.command) == [
            "sockctl listen 7000",
            "sockctl loadtest 127.0.0.1:7000 --rate 5 --message 'a # b'",
            "echo hi | sockctl send 127.0.0.1:7000",
            "sockctl replay x.pcap --list",
            "printf 'a\\n' | sockctl connect 127.0.0.1:7700 -v",
        ])
        #expect(examples.map(\.line) == [3, 5, 7, 15, 19])
        #expect(examples[3].shownOutput.map(\.text) == ["STREAM  PROTO"])
        #expect(examples[3].shownOutput.map(\.line) == [16])
        #expect(examples[4].shownOutput.map(\.text) == ["sockctl connect: recorded"])
    }

    /// Shown output matches printed output with what varies normalized, `…` as a wildcard.
    @Test func shownOutputIsMatchedWithWhatVariesNormalized() {
        let shown = [
            ShownLine(line: 1, text: "sockctl connect: 08:01:02.345678 connected to 127.0.0.1:7000 (IPv4) from 127.0.0.1:42180 in 3.5ms (2 attempts over 2 addresses)"),
            ShownLine(line: 2, text: "…"),
            ShownLine(line: 3, text: "{\"ok\":true,...,\"error\":null}"),
        ]
        let stderr = "sockctl connect: 14:56:21.800531 connected to 127.0.0.1:36759 (IPv4) from 127.0.0.1:43460 in 1.384ms (2 attempts over 2 addresses)\n"
        #expect(ShownOutput.mismatch(shown: shown, stdout: "{\"ok\":true,\"a\":1,\"error\":null}\n", stderr: stderr, rules: .varying) == nil)
        // A count differs: not the same line.
        let wrong = stderr.replacingOccurrences(of: "2 addresses", with: "2 addresss")
        #expect(ShownOutput.mismatch(shown: shown, stdout: "{\"ok\":true,\"error\":null}\n", stderr: wrong, rules: .varying)?.contains("README.md:1 shows") == true)
        // Every number differs, as in a load test's report.
        #expect(ShownOutput.normalize("messages    sent 5,000, received 4,990 in 3.5 s", .allNumbers) == "messages sent #, received # in # s")
        // A count the runner says varies, and only that one.
        let received = ShownOutput.Rules(varyingPhrases: [#"received \d+ bytes"#])
        #expect(ShownOutput.normalize("sent 2 messages (60 bytes); received 31 bytes; 1 mismatched", received) == "sent 2 messages (60 bytes); received # bytes; 1 mismatched")
        #expect(ShownOutput.normalize("\t0x0010:  7f00 0001 8b74 1b39  .....t.9", ShownOutput.Rules(hexdumpBytes: true)) == "0x0010: <bytes>")
    }
}
