import Foundation
import TestSupport
import Testing

import Glibc

/// What sockctl does for a person at a terminal, and only there (README "Output: what goes
/// where"): colour by `--color auto|always|never`, `NO_COLOR` and `TERM=dumb`, on every command;
/// the live line only on a terminal and without escape sequences on a dumb one; `-q` for the
/// servers' client logs. Terminal cases run on a pseudo-terminal of their own (``Terminal``).
@Suite("terminal behaviour", .hangGuard)
struct TerminalBehaviourTests {
    static let red = "\u{1B}[31merror\u{1B}[0m"

    @Test func everyCommandTakesColor() async throws {
        let model = try await CommandModel.load()
        for command in model.runnable {
            let color = command.arguments.first { $0.longNames.contains("--color") }
            #expect(color?.allValues == ["auto", "always", "never"], "\(command): \(String(describing: color))")
        }
    }

    /// The error label of a refused connection, on a terminal: red unless `NO_COLOR`, `TERM=dumb`
    /// or `--color never` say otherwise; `--color always` colours a pipe too.
    @Test(arguments: [
        // NO_COLOR empty counts as unset (no-color.org): it also clears one the test runner has.
        (["TERM": "xterm", "NO_COLOR": ""], [String](), true),
        (["TERM": "dumb", "NO_COLOR": ""], [], false),
        (["TERM": "xterm", "NO_COLOR": "1"], [], false),
        (["TERM": "xterm", "NO_COLOR": ""], ["--color", "never"], false),
        (["TERM": "dumb", "NO_COLOR": "1"], ["--color", "always"], true),
    ])
    func colourFollowsTheTerminalTheEnvironmentAndColor(environment: [String: String], options: [String], coloured: Bool) async throws {
        let closed = try ClosedPort()
        let run = try await Child(
            try tool("python3"), [Terminal.script, try sockctlPath(), "connect", "127.0.0.1:\(closed.port)"] + options,
            stdin: .pipe, name: "connect", environment: environment)
        #expect(try await run.wait() == 1, "\(run.stdoutText)")
        let shown = run.stdoutText
        #expect(shown.contains("connection refused"), "\(shown)")
        #expect(shown.contains(Self.red) == coloured, "\(environment) \(options): \(shown)")
        if !coloured { #expect(!shown.contains("\u{1B}"), "no escape sequence at all: \(shown)") }
        withExtendedLifetime(closed) {}
    }

    @Test func colorAlwaysColoursAPipeAndAutoDoesNot() async throws {
        let closed = try ClosedPort()
        let always = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(closed.port)", "--color", "always"])
        #expect(always.stderr.contains(Self.red), "\(always.stderr)")
        let auto = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(closed.port)"], environment: ["TERM": "xterm"])
        #expect(auto.stderr.contains("error: ") && !auto.stderr.contains("\u{1B}"), "\(auto.stderr)")
        withExtendedLifetime(closed) {}
    }

    /// loadtest's live line: redrawn with erase-line on a terminal, with `\r` and spaces alone on
    /// a dumb one, and not at all when the output is not a terminal.
    @Test(arguments: ["xterm", "dumb"])
    func theLiveLineIsForTerminalsOnly(term: String) async throws {
        let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line", "-k"], name: "echo")
        let port = try await echo.listeningPort()
        let arguments = ["loadtest", "127.0.0.1:\(port)", "-c", "1", "--rate", "50", "--duration", "2s", "--framing", "line"]
        let live = try await Child(try tool("python3"), [Terminal.script, try sockctlPath()] + arguments, stdin: .pipe, name: "loadtest", environment: ["TERM": term])
        try await live.waitForStdout("sent/s")
        #expect(try await live.wait() == 0, "\(live.stdoutText)")
        let shown = live.stdoutText
        #expect(shown.contains("throughput  "), "\(shown)")
        if term == "dumb" {
            #expect(!shown.contains("\u{1B}"), "\(shown)")
            #expect(shown.contains("\r1s/2s ") || shown.contains("\r2s/2s "), "\(shown)")
        } else {
            #expect(shown.contains("\r\u{1B}[K"), "\(shown)")
        }
        let piped = try await run(try sockctlPath(), arguments)
        #expect(piped.status == 0, "\(piped.stderr)")
        let text = String(decoding: piped.stdout, as: UTF8.self) + piped.stderr
        #expect(!text.contains("\r") && !text.contains("sent/s"), "\(text)")
        echo.signal(SIGINT)
        #expect(try await echo.wait() == 0)
    }

    /// `-q`: no per-client lines from listen and proxy; the listening line, warnings and the
    /// summary stay.
    @Test func quietServersKeepOnlyTheirSummary() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k", "-q"], name: "listen")
        let port = try await listener.listeningPort()
        let proxy = try await RunningProxy(to: "127.0.0.1:\(port)", ["--quiet"])
        let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(proxy.port)", "hi"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(try await proxy.interrupt() == 0)
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        for (server, log) in [("listen", listener.stderr), ("proxy", proxy.child.stderr)] {
            #expect(log.contains("listening on 127.0.0.1:"), "\(server): \(log)")
            #expect(log.contains("summary: 1 client, 2 bytes "), "\(server): \(log)")
            #expect(!log.contains("client 1"), "\(server): \(log)")
        }
        for command in [["listen", "127.0.0.1:0"], ["proxy", "127.0.0.1:0", "127.0.0.1:1"]] {
            let both = try await run(try sockctlPath(), command + ["-q", "-v"])
            #expect(both.status == 2 && both.stderr.contains("-q and -v exclude each other"), "\(command): \(both.stderr)")
        }
    }
}
