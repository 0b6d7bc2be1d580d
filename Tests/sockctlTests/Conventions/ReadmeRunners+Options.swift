import Foundation
import TestSupport

/// README: "Option names" and "Output — what goes where".
extension ReadmeRunners {
    static let options: [ReadmeRunner] = [
        // "Set up": the binary alone.
        ReadmeRunner("sockctl --version") { run in
            try await run.runToEnd(0)
            let line = run.stdout.trimmingCharacters(in: .newlines)
            let form = #/sockctl \d+\.\d+\.\d+ \(commit ([0-9a-f]{7,}|unknown), Swift \d+\.\d+(\.\d+)?, (debug|release)\)/#
            try run.expect(line.wholeMatch(of: form) != nil, "it printed '\(line)', not the version and the build")
        },
        ReadmeRunner("sockctl --generate-completion-script bash") { run in
            try await run.runToEnd(0)
            try run.expectStdout(contains: "-F _sockctl sockctl")
            try run.expectStdout(contains: "--framing")
        },
        // Refused before anything is sent; the target is a port the test holds closed all the same.
        ReadmeRunner("sockctl loadtest 127.0.0.1:7000 --timeout 2s") { run in
            let closed = try PortBlock(count: 1, open: [])
            run.replace("127.0.0.1:7000", with: "127.0.0.1:\(closed.first)")
            try await run.runToEnd(2)
            try run.expectShownOutput()
            withExtendedLifetime(closed) {}
        },
        ReadmeRunner("sockctl loadtest 127.0.0.1:7000 --requests 1000 --framing line --json | jq .latency.corrected.p99") { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "line")
            run.replace("127.0.0.1:7000", with: server.address)
            try await run.runToEnd(0)
            let p99 = run.consumerOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            try run.expect(Double(p99).map { $0 > 0 } == true, "jq printed '\(p99)', not a p99 in µs")
        },
    ]
}
