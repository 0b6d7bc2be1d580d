import Foundation
import TestSupport
import Testing

/// Every value the command line takes is refused the same way: for each option and positional
/// argument of every command (as the argument parser describes them, ``CommandModel``), a bad
/// value of its kind gives one line on stderr, `sockctl CMD: error: …`, that says what was
/// expected with an example (or, for a file, what is wrong with it), never the parser's
/// wrapping around it; exit status 2; nothing on stdout.
///
/// The kind of a value is its value name in `--help` (`<dur>`, `<size>`): ``kinds`` holds a bad
/// value of each. An option whose value name is not there fails the test, so a new option
/// declares its kind here (or takes one that is).
@Suite("value errors", .hangGuard)
struct ValueErrorTests {
    /// A value of one kind that no option of that kind accepts, and what its error shows.
    struct Kind: Sendable {
        /// nil: any value is one (free text), there is nothing to refuse.
        let bad: String?
        let evidence: Evidence

        init(_ bad: String?, _ evidence: Evidence = .expectedForm) {
            self.bad = bad
            self.evidence = evidence
        }
    }

    enum Evidence: Sendable {
        /// `expected …` with an example (`such as`, `e.g.`) or the list of choices (`one of`).
        case expectedForm
        /// Words that say what is wrong with it, for values that are names of files.
        case saying(String)

        func holds(in message: String) -> Bool {
            switch self {
            case .expectedForm:
                message.contains("expected") && ["such as", "e.g.", "one of"].contains { message.contains($0) }
            case .saying(let words):
                message.lowercased().contains(words)
            }
        }
    }

    /// Every value name sockctl uses, and a bad value of that kind.
    static let kinds: [String: Kind] = [
        "dur": Kind("soon"),
        "secs": Kind("soon"),
        "when": Kind("sometimes"),
        "size": Kind("lots"),
        "n": Kind("many"),
        "k": Kind("many"),
        "count": Kind("many"),
        "r": Kind("fast"),
        "rate": Kind("fast"),
        "fraction": Kind("half"),
        "x": Kind("fast"),
        "port": Kind("http"),
        "proxy": Kind("socks9://127.0.0.1:1080"),
        "snaplen": Kind("big"),
        "p%": Kind("150%"),
        "endpoint": Kind("localhost"),
        "target": Kind("localhost"),
        "upstream": Kind("localhost"),
        "listen": Kind("localhost"),
        "[host:]port": Kind("99999"),
        "addr": Kind("127.0.0.1:http"),
        "addr[:port]": Kind("127.0.0.1:99999"),
        "host:addr[,addr...]": Kind("nohost"),
        "cidr": Kind("10.0.0.0/33"),
        "dest": Kind("exa mple"),
        "user:pass": Kind("nocolon"),
        "framing": Kind("length:3"),
        "spec": Kind("bogus"),
        "expr": Kind("p99"),
        "key": Kind("xpath:$.id"),
        "pin": Kind("sha256//short"),
        "list": Kind("5-1"),
        "stages": Kind("30s"),
        "views": Kind("quic"),
        "type": Kind("BOGUS"),
        "auto|events|threads": Kind("fast"),
        "v1|v2": Kind("v3"),
        "'name: value'": Kind("no colon"),
        "code": Kind("600"),
        "method": Kind("a b"),
        "unix:path": Kind("/no/prefix"),
        "if": Kind("a-name-much-too-long-for-linux"),
        "interface": Kind("a-name-much-too-long-for-linux"),
        "user": Kind("no-such-user-sockctl"),
        "name": Kind("a b"),
        "origin": Kind("http://a\r\nX-Injected: 1"),
        "regex": Kind("("),
        "filter": Kind("tcp port x"),
        "payload": Kind("x\\q"),
        "file": Kind("/nonexistent/dir/x", .saying("no such")),
        "file.pcap": Kind("/nonexistent/dir/x.pcap", .saying("no such")),
        "pem": Kind("/nonexistent/x.pem", .saying("no such")),
        "text": Kind(nil),
        "seconds": Kind("soon"),
        "command": Kind(nil),
        "shell-line": Kind(nil),
        "message": Kind(nil),
        "k/n": Kind("one/three"),
        "time": Kind("tomorrow"),
        "dir": Kind("/dev/null/barrier", .saying("not a directory")),
    ]

    /// What each command is given besides the value under test: its positional arguments (a
    /// `wss://` endpoint, so that TLS and WebSocket options apply) and options. The port refuses
    /// connections and cannot be bound, so a value wrongly accepted fails at once, never hangs.
    struct Setting {
        let port: Int
        let certificates: String
        let pcap = GoldenCase.directory.appendingPathComponent("live-lo-tcp4.pcap").path
        let report = packageRoot.appendingPathComponent("Tests/Reports/closed-loop.json").path

        var endpoint: String { "wss://127.0.0.1:\(port)/" }

        func positionals(_ command: String) -> [String] {
            switch command {
            case "connect", "loadtest": [endpoint]
            case "listen": [endpoint]
            case "send": [endpoint, "x"]
            case "proxy": [endpoint, endpoint]
            case "replay": [pcap, endpoint]
            case "report merge": [report]
            default: []
            }
        }

        func options(_ command: String, testing option: String) -> [String] {
            let serving = ["--cert", "\(certificates)/server.pem", "--key", "\(certificates)/server.key"]
            let client = ["\(certificates)/client.pem", "\(certificates)/client.key"]
            switch (command, option) {
            // A certificate is tested with its key, a key with its certificate.
            case ("proxy", "--upstream-cert"), ("proxy", "--upstream-key"):
                return serving + ["--upstream-cert", client[0], "--upstream-key", client[1]]
            case ("listen", _), ("proxy", _): return serving
            case (_, "--cert"), (_, "--key"): return ["--cert", client[0], "--key", client[1]] + (command == "loadtest" ? ["--duration", "1s"] : [])
            case ("loadtest", "--stages"): return []
            case ("loadtest", "--streams"), ("loadtest", "--verify-sample"), ("loadtest", "--scale"), ("loadtest", "--speed"):
                return ["--from-pcap", pcap]
            case ("loadtest", "--ignore"): return ["--from-pcap", pcap, "--verify-sample", "10%"]
            case ("loadtest", _): return ["--duration", "1s"]
            case ("replay", "--ignore"): return ["--verify"]
            // -i, -Z and -y are for live capture; the others read a file.
            case ("capture", "-i"), ("capture", "-Z"), ("capture", "-y"): return []
            case ("capture", _): return ["-r", pcap]
            default: return []
            }
        }
    }

    struct Case: Sendable, CustomStringConvertible {
        let command: String
        let argument: String
        let arguments: [String]
        let evidence: Evidence
        var description: String { "\(command) \(argument)" }
    }

    /// One case per option and positional argument that has a bad value; the value names that
    /// are not in ``kinds``.
    static func cases(_ model: CommandModel, _ setting: Setting) -> (cases: [Case], unknown: [String]) {
        var cases: [Case] = []
        var unknown: [String] = []
        for command in model.runnable {
            let name = command.description
            var positionalIndex = 0
            for argument in command.arguments where argument.kind != .flag {
                let index = positionalIndex
                if argument.kind == .positional { positionalIndex += 1 }
                guard let valueName = argument.valueName, let kind = kinds[valueName] else {
                    unknown.append("\(name) \(argument) <\(argument.valueName ?? "?")>")
                    continue
                }
                guard let bad = kind.bad else { continue }
                var positionals = setting.positionals(name)
                var options = setting.options(name, testing: argument.preferredName ?? "")
                if argument.kind == .positional {
                    if index < positionals.count { positionals[index] = bad } else { positionals.append(bad) }
                } else {
                    let option = argument.preferredName ?? ""
                    if let given = options.firstIndex(of: option) { options.removeSubrange(given...given + 1) }
                    options += [option, bad]
                }
                cases.append(Case(command: name, argument: argument.description, arguments: command.path + positionals + options, evidence: kind.evidence))
            }
        }
        return (cases, unknown)
    }

    @Test func aBadValueOfEveryKindSaysWhatWasExpected() async throws {
        let model = try await CommandModel.load()
        let closed = try ClosedPort()
        let setting = Setting(port: closed.port, certificates: try await TestCertificates.shared.directory())
        let (cases, unknown) = Self.cases(model, setting)
        #expect(unknown.isEmpty, "value names with no kind in ValueErrorTests.kinds: \(unknown)")
        #expect(cases.count > 100, "\(cases.count) cases")
        let binary = try sockctlPath()
        // A few at a time: each is a process that exits at once.
        try await withThrowingTaskGroup(of: (Case, Int32, Data, String).self) { group in
            var pending = cases[...]
            func start() {
                guard let next = pending.popFirst() else { return }
                group.addTask {
                    let result = try await run(binary, next.arguments)
                    return (next, result.status, result.stdout, result.stderr)
                }
            }
            for _ in 0..<4 { start() }
            while let (item, status, stdout, stderr) = try await group.next() {
                start()
                let prefix = "sockctl \(item.command): error: "
                #expect(status == 2, "\(item): status \(status): \(stderr)")
                #expect(stdout.isEmpty, "\(item): stdout \(String(decoding: stdout, as: UTF8.self))")
                #expect(stderr.hasSuffix("\n") && stderr.filter { $0 == "\n" }.count == 1, "\(item): not one line: \(stderr)")
                #expect(stderr.hasPrefix(prefix), "\(item): \(stderr)")
                #expect(item.evidence.holds(in: stderr), "\(item): does not say what was expected: \(stderr)")
                #expect(!stderr.contains("is invalid for '") && stderr.components(separatedBy: "error:").count == 2, "\(item): nested: \(stderr)")
            }
        }
        withExtendedLifetime(closed) {}
    }
}
