import ArgumentParser
import Foundation
import LoadGen
import SocketEngine

/// `sockctl report merge`: one report out of the `--json` files of several runs.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Combine load-test results.",
        subcommands: [Merge.self]
    )

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge the --json results of load tests run at the same time (histograms add exactly).",
            discussion: """
                For a load test that outgrows one machine: run N copies of the same \
                `sockctl loadtest ... --json part-K.json` at the same time (e.g. a Kubernetes \
                Indexed Job, see deploy/kubernetes/), then merge the parts. Counters add, the \
                latency histograms add (percentiles of the whole, not averages of percentiles), \
                rates are totals over the longest run, peak connections add. Per-second \
                latency columns cannot be added and are left out of the merged timeline.

                Every file is checked before anything of it is added (one file alone too): \
                counts zero or more, rates finite, times within ten years, histograms that \
                decode with the first file's layout, sums that fit in 64 bits. A file that \
                fails is one line naming it and the field, e.g. 'b.json: messages.sent: \
                9223372036854775807 + 5 overflows'.

                The merged report is printed on stdout; --json FILE writes it as JSON too; \
                --json alone (or --json -) prints the JSON on stdout and the text on stderr.

                Shards (loadtest --shard K/N): --expect N fails the merge when a shard is \
                missing, there twice or of another split, naming it. The parts are placed by \
                their absolute start times: the merged run spans from the earliest start to the \
                latest end, and the timelines are added second by second of wall-clock time. \
                When the parts' measured windows overlap by less than 90% of the shortest, the \
                merge warns (--strict: fails): their sums are not one test. A part that fell \
                behind its schedule (messages due and not sent) or ran out of file descriptors \
                is named, and the merged report says its corrected latency is not valid. The \
                latency histograms must have the same settings in every part.

                Exit status: 0; 1 when a --threshold is violated, merged --from-pcap runs \
                saw replies differ from the recording, or a file is not a valid sockctl \
                load-test result of the same target, a shard --expect asks for is missing or \
                doubled, or (--strict) the parts overlap too little; 2 usage error.

                Examples:
                  sockctl report merge part-0.json part-1.json part-2.json
                  sockctl report merge results/*.json --json total.json --threshold 'p99<50ms'
                  sockctl report merge part-*.json --json | jq .latency
                  sockctl report merge /results/part-*.json --expect 3 --strict --json /results/merged.json
                """
        )

        @Argument(help: ArgumentHelp("Result files written by loadtest --json.", valueName: "file"))
        var files: [String]

        @Option(name: .long, defaultAsFlag: "-", parsing: .next, help: ArgumentHelp(
            "Write the result as JSON to FILE; alone (or -), to stdout, with the text report on stderr: the merged report.", valueName: "file"))
        var json: String?

        @Option(
            name: .long,
            help: ArgumentHelp("Fail (exit 1) unless this holds for the merged result (repeatable).", valueName: "expr"),
            transform: { text in try validating { try Threshold(parsing: text) } }
        )
        var threshold: [Threshold] = []

        @Option(name: .long, help: ArgumentHelp("The parts are the N shards of one test (loadtest --shard K/N): fail unless each of 0/N to N-1/N is there exactly once.", valueName: "n"))
        var expect: Int?

        @Flag(name: .long, help: "Fail (rather than warn) when the parts' measured windows overlap by less than 90% of the shortest.")
        var strict = false

        @OptionGroup var terminal: TerminalOptions

        func validate() throws {
            if files.isEmpty { throw UsageError("give the result files to merge") }
            if let expect { _ = try checkedCount(expect, "--expect", within: 1...Shard.maximumCount) }
            // `--json a.json b.json` reads as "print JSON" but names a.json as the output; the
            // merge would overwrite the result of a run. (A merged result may be rewritten.)
            if let json, json != "-", FileManager.default.fileExists(atPath: json),
               let existing = try? LoadReport(contentsOf: json), existing.hosts == 1 {
                throw UsageError("--json \(json) would overwrite the result of a run; give --json another path, or put a bare --json after the files for stdout")
            }
        }

        func run() throws {
            let diagnostics = Diagnostics(command: "report merge", verbose: false)
            let jsonFile = try json.flatMap { path throws(CommandFailed) in
                path == "-" ? nil : try OutputFile.open(path, mode: .whole, option: "--json", diagnostics: diagnostics)
            }
            var merged: LoadReport
            do {
                merged = try LoadReport.merge(
                    named: try files.map { path throws(LoadGenError) in (name: path, report: try LoadReport(contentsOf: path)) },
                    rules: MergeRules(expectedShards: expect, strict: strict))
            } catch {
                throw diagnostics.fail(error)
            }
            merged.thresholds = threshold.map { $0.evaluate(merged) }
            let out = json == "-" ? FileDescriptorWriter.standardError : FileDescriptorWriter.standardOutput
            out.write(merged.text)
            for warning in merged.mergeWarnings { diagnostics.warning(OptionNames.render(warning)) }
            if json != nil { try merged.writeJSON(to: jsonFile, diagnostics: diagnostics) }
            let failures = merged.failures()
            if !failures.isEmpty {
                diagnostics.error(failures.map(OptionNames.render).joined(separator: "; "))
                throw CommandFailed()
            }
        }
    }
}
