import Foundation
import TestSupport
import Testing

import Glibc

/// The output rule (README "Output: what goes where"), checked on every command that has JSON
/// or `--hexdump`: `--json` puts JSON and nothing else on stdout — one document, or one object
/// per line — and every line for people on stderr; `loadtest` and `report merge` also take
/// `--json FILE` and then keep their text report on stdout; `--hexdump` is the same header and
/// tcpdump -X rows on stderr in every command, and combines with `--json`.
@Suite("output rule", .hangGuard)
struct OutputRuleTests {
    /// The commands this suite runs with `--json`. A command that gains `--json` fails
    /// ``everyCommandWithJSONIsHeldToTheRule`` until it is added here, with a test.
    static let commandsWithJSON: Set<String> = ["send", "replay", "loadtest", "report merge", "capture", "proxy"]
    /// The commands with `--hexdump`, each run by ``hexdumpIsOneFormatOnStderrEverywhere``.
    static let commandsWithHexdump: Set<String> = ["connect", "listen", "send", "replay", "proxy"]

    @Test func everyCommandWithJSONIsHeldToTheRule() async throws {
        let model = try await CommandModel.load()
        func having(_ option: String) -> Set<String> {
            Set(model.runnable.filter { $0.arguments.contains { $0.longNames.contains(option) } }.map(\.description))
        }
        #expect(having("--json") == Self.commandsWithJSON)
        #expect(having("--hexdump") == Self.commandsWithHexdump)
    }

    // MARK: --json: stdout is JSON, people read stderr

    @Test func sendPrintsOneJSONDocumentAndTheRestOnStderr() async throws {
        let (echo, port) = try await Self.echo()
        let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "ping", "--framing", "line", "--json", "-v", "--hexdump"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let document = try Self.document(sent.stdout)
        #expect(document["ok"] as? Bool == true)
        #expect(sent.stderr.contains("connected to 127.0.0.1:\(port)"), "\(sent.stderr)")
        #expect(sent.stderr.contains("> sent to 127.0.0.1:\(port), 5 bytes"), "--hexdump combines with --json: \(sent.stderr)")
        try await Self.stop(echo)
    }

    @Test func loadtestJSONAloneIsStdoutWithTheReportOnStderr() async throws {
        let (echo, port) = try await Self.echo()
        for arguments in [["--json"], ["--json", "-"], ["--json", "-c", "2"]] {
            let result = try await run(try sockctlPath(), ["loadtest", "127.0.0.1:\(port)", "--requests", "20", "--framing", "line"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            let document = try Self.document(result.stdout)
            #expect(document["schema"] as? String == "sockctl.loadtest/2", "\(arguments)")
            #expect(result.stderr.contains("throughput  "), "\(arguments): the text report is on stderr: \(result.stderr)")
        }
        try await Self.stop(echo)
    }

    @Test func loadtestJSONFileKeepsTheReportOnStdout() async throws {
        let scratch = try Scratch()
        let (echo, port) = try await Self.echo()
        let result = try await run(try sockctlPath(), ["loadtest", "127.0.0.1:\(port)", "--json", scratch.path("r.json"), "--requests", "20", "--framing", "line"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("throughput  "))
        #expect(try jsonObject(atPath: scratch.path("r.json"))["schema"] as? String == "sockctl.loadtest/2")
        try await Self.stop(echo)
    }

    @Test func reportMergeFollowsTheSameRule() async throws {
        let scratch = try Scratch()
        let (echo, port) = try await Self.echo()
        for part in ["a.json", "b.json"] {
            let made = try await run(try sockctlPath(), ["loadtest", "127.0.0.1:\(port)", "--requests", "10", "--framing", "line", "--json", scratch.path(part)])
            #expect(made.status == 0, "\(made.stderr)")
        }
        try await Self.stop(echo)
        let parts = [scratch.path("a.json"), scratch.path("b.json")]
        let alone = try await run(try sockctlPath(), ["report", "merge"] + parts + ["--json"])
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(number(try Self.document(alone.stdout), "messages/sent") == 20)
        #expect(alone.stderr.contains("(2 runs merged)"), "\(alone.stderr)")
        let toFile = try await run(try sockctlPath(), ["report", "merge"] + parts + ["--json", scratch.path("total.json")])
        #expect(toFile.status == 0, "\(toFile.stderr)")
        #expect(String(decoding: toFile.stdout, as: UTF8.self).contains("(2 runs merged)"))
        #expect(number(try jsonObject(atPath: scratch.path("total.json")), "messages/sent") == 20)

        // A bare --json before the files takes the first file as its output: refused, the file
        // untouched (a merged result, though, may be written again).
        let before = FileManager.default.contents(atPath: parts[0])
        let misread = try await run(try sockctlPath(), ["report", "merge", "--json"] + parts)
        #expect(misread.status == 2)
        #expect(misread.stderr.contains("--json \(parts[0]) would overwrite the result of a run"), "\(misread.stderr)")
        #expect(FileManager.default.contents(atPath: parts[0]) == before)
        let again = try await run(try sockctlPath(), ["report", "merge"] + parts + ["--json", scratch.path("total.json")])
        #expect(again.status == 0, "a merged result is written again: \(again.stderr)")
    }

    @Test func captureJSONIsOneObjectPerPacket() async throws {
        let scratch = try Scratch()
        let capture = try await recordedEchoSession(in: scratch)
        let read = try await run(try sockctlPath(), ["capture", "-r", capture, "--json"])
        #expect(read.status == 0, "\(read.stderr)")
        let lines = Self.lines(read.stdout)
        #expect(lines.count >= 4 && jsonLines(lines.joined(separator: "\n")).count == lines.count, "\(lines)")
        #expect(read.stderr.contains("reading from file"), "\(read.stderr)")
    }

    @Test func replayJSONIsOneDocumentAndItsListOneObjectPerStream() async throws {
        let scratch = try Scratch()
        let capture = try await recordedEchoSession(in: scratch)
        let listed = try await run(try sockctlPath(), ["replay", capture, "--list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let streams = jsonLines(String(decoding: listed.stdout, as: UTF8.self))
        #expect(streams.count == 1 && Self.lines(listed.stdout).count == 1, "\(String(decoding: listed.stdout, as: UTF8.self))")
        #expect(streams.first?["end"] as? String == "FIN")

        let (echo, port) = try await Self.echo()
        let replayed = try await run(try sockctlPath(), ["replay", capture, "127.0.0.1:\(port)", "--framing", "line", "--verify", "--topspeed", "--json", "--hexdump"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let document = try Self.document(replayed.stdout)
        #expect(document["ok"] as? Bool == true)
        #expect(number(document, "verify/matched") == 2)
        #expect(replayed.stderr.contains("sent 2 messages (8 bytes)"), "the summary is on stderr: \(replayed.stderr)")
        try await Self.stop(echo)

        // A mismatch: the JSON has both frames; the side-by-side dump for people goes to stderr.
        let other = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--framing", "line", "--respond", "/dev/null", "-k"], name: "other")
        let otherPort = try await other.listeningPort()
        let mismatched = try await run(try sockctlPath(), ["replay", capture, "127.0.0.1:\(otherPort)", "--framing", "line", "--verify", "--topspeed", "--json"])
        #expect(mismatched.status == 1, "\(mismatched.stderr)")
        let failed = try Self.document(mismatched.stdout)
        #expect(failed["ok"] as? Bool == false)
        #expect(number(failed, "verify/first_mismatch/frame") == 1)
        #expect(mismatched.stderr.contains("mismatch in frame 1"), "\(mismatched.stderr)")
        try await Self.stop(other)
    }

    @Test func proxyJSONIsOneObjectPerEventWithTheLogOnStderr() async throws {
        let (echo, port) = try await Self.echo()
        let proxy = try await RunningProxy(to: "127.0.0.1:\(port)", ["--json", "--hexdump", "--framing", "line", "--print-messages"])
        let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(proxy.port)", "hello", "--framing", "line"])
        #expect(sent.status == 0, "\(sent.stderr)")
        try await proxy.child.waitForStderr("disconnected after")
        #expect(try await proxy.interrupt() == 0)
        let lines = Self.lines(proxy.child.stdout)
        let events = jsonLines(proxy.child.stdoutText)
        #expect(!events.isEmpty && events.count == lines.count, "stdout is JSON lines only: \(proxy.child.stdoutText)")
        #expect(events.last?["event"] as? String == "summary")
        let log = proxy.child.stderr
        #expect(log.contains("client 1 connected from 127.0.0.1:"), "\(log)")
        #expect(log.contains("client 1 > hello\n"), "--print-messages with --json: on stderr: \(log)")
        #expect(log.contains("to upstream, 6 bytes\n\t0x0000:  "), "--hexdump: on stderr: \(log)")
        #expect(log.contains("summary: 1 client, 6 bytes up, 6 bytes down"), "\(log)")
        try await Self.stop(echo)
    }

    // MARK: --hexdump: one format, on stderr

    /// connect, listen, send, replay and proxy each print a chunk with the same header — time,
    /// `>` or `<`, whose bytes, `N bytes` — and the tcpdump -X rows, on stderr.
    @Test func hexdumpIsOneFormatOnStderrEverywhere() async throws {
        let scratch = try Scratch()
        let capture = try await recordedEchoSession(in: scratch)
        let (listener, port) = try await Self.echo(["--hexdump"])
        let proxy = try await RunningProxy(to: "127.0.0.1:\(port)", ["--hexdump"])
        var dumps: [String: (stdout: String, stderr: String)] = [:]
        let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(proxy.port)", "one", "--framing", "line", "--hexdump"])
        dumps["send"] = (String(decoding: sent.stdout, as: UTF8.self), sent.stderr)
        let connected = try await Child(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--hexdump"], stdin: .pipe, name: "connect")
        try connected.send("one\n")
        try await connected.waitForStdout("one\n")
        connected.closeStdin()
        #expect(try await connected.wait() == 0, "\(connected.stderr)")
        dumps["connect"] = (connected.stdoutText, connected.stderr)
        let replayed = try await run(try sockctlPath(), ["replay", capture, "127.0.0.1:\(port)", "--framing", "line", "--topspeed", "--hexdump"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        dumps["replay"] = (String(decoding: replayed.stdout, as: UTF8.self), replayed.stderr)
        try await proxy.child.waitForStderr("disconnected after")
        #expect(try await proxy.interrupt() == 0)
        dumps["proxy"] = (proxy.child.stdoutText, proxy.child.stderr)
        try await Self.stop(listener)
        dumps["listen"] = ("", listener.stderr)

        let header = #"^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} [<>] [^\t]+, [0-9]+ bytes?$"#
        for (command, output) in dumps {
            let lines = output.stderr.split(separator: "\n")
            let headers = lines.indices.filter { lines[$0].range(of: header, options: .regularExpression) != nil }
            #expect(headers.count >= 2, "\(command): \(output.stderr)")
            for index in headers {
                #expect(index + 1 < lines.count && lines[index + 1].hasPrefix("\t0x0000:  "), "\(command): \(output.stderr)")
            }
            #expect(!output.stdout.contains("0x0000:"), "\(command): the dump is not on stdout: \(output.stdout)")
        }
        #expect(dumps["connect"]?.stderr.contains("> sent to 127.0.0.1:\(port), 4 bytes") == true)
        #expect(dumps["listen"]?.stderr.contains("< received from 127.0.0.1:") == true)
    }

    /// What cannot combine is refused with a message, exit 2: a list sends nothing to dump, and
    /// `-w -` puts the capture itself on stdout.
    @Test func outputOptionsThatCannotCombineAreRefused() async throws {
        let scratch = try Scratch()
        let capture = try await recordedEchoSession(in: scratch)
        let listed = try await run(try sockctlPath(), ["replay", capture, "--list", "--hexdump"])
        #expect(listed.status == 2)
        #expect(listed.stderr.contains("--hexdump shows traffic; --list sends none"), "\(listed.stderr)")
        let mixed = try await run(try sockctlPath(), ["capture", "-r", capture, "-w", "-", "--print"])
        #expect(mixed.status == 2)
        #expect(mixed.stderr.contains("--print would mix text into them"), "\(mixed.stderr)")
        #expect(mixed.stdout.isEmpty)
    }

    // MARK: Helpers

    /// `sockctl listen --echo --framing line -k` and its port.
    static func echo(_ extra: [String] = []) async throws -> (Child, Int) {
        let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line", "-k"] + extra, name: "echo")
        return (echo, try await echo.listeningPort())
    }

    static func stop(_ server: Child) async throws {
        server.signal(SIGINT)
        #expect(try await server.wait() == 0)
    }

    /// stdout as exactly one JSON object (whitespace around it allowed).
    static func document(_ stdout: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: stdout) as? [String: Any] else {
            throw HarnessError("stdout is not one JSON object: \(String(decoding: stdout, as: UTF8.self))")
        }
        return object
    }

    static func lines(_ stdout: Data) -> [Substring] {
        String(decoding: stdout, as: UTF8.self).split(separator: "\n")
    }
}
