import Foundation
import TestSupport
import Testing

/// One tool, one vocabulary: a long option name means one thing in every command that has it,
/// and every short option — some letters mean two things, one per peer tool — is in the README's
/// table with the command and the meaning it has there.
@Suite("naming", .hangGuard)
struct NamingTests {
    /// The one meaning of every long name that more than one command has: each command's help
    /// for it begins with this text, after a context that says when it applies ("With --follow: ");
    /// what follows says what differs (a default, where the output goes).
    ///
    /// This table is the documentation of those meanings. A new name shared by two commands
    /// fails the test until it is added here; a command whose help says something else fails
    /// it until the help — or the name — is changed.
    static let meanings: [String: String] = [
        "--allow": "Only admit clients from this network",
        "--binary": "Send binary messages instead of text",
        "--cafile": "Also trust the CA certificates in this PEM file",
        "--keylog": "TLS key log file (NSS format, as SSLKEYLOGFILE)",
        "--cert": "The certificate chain (PEM) this side presents",
        "--exec": "Run PROGRAM ARGS with its stdin and stdout on the connection",
        "--sh-exec": "Run this line with /bin/sh -c, its stdin and stdout on the connection",
        "--client-ca": "Require client certificates signed by a CA in this PEM file",
        "--color": "Colour the warning and error labels",
        "--close-code": "Close code sent when this side ends the WebSocket",
        "--close-reason": "Close reason sent with it",
        "--connect-timeout": "Give up connecting after this long, across all addresses",
        "--correlate": "Match each reply to its message by this key in both, not by order",
        "--deny": "Refuse clients from this network",
        "--framing": "Message boundaries",
        "--handshake-timeout": "Close (and count as refused) a client whose TLS handshake or WebSocket upgrade is not done",
        "--header": "Extra header on what this side sends",
        "--help": "Show help information",
        "--hexdump": "Print all traffic in the tcpdump -X layout (hex and ASCII)",
        "--idle-timeout": "Close a connection once nothing was received or sent for this long",
        "--ignore": "Leave text matching this regular expression out of the comparison",
        "--insecure": "Do not verify the server's certificate",
        "--interface": "Send through this network interface",
        "--json": "Write the result as JSON",
        "--key": "The private key (PEM) of --cert",
        "--max-clients": "Refuse clients beyond this many at once",
        "--max-frame": "Largest message accepted; a longer one closes that connection with an error",
        "--max-message": "Largest WebSocket message accepted",
        "--method": "HTTP request method",
        "--metrics-listen": "Serve Prometheus metrics at http://ADDR/metrics",
        "--min-rate": "When --max-clients are connected, a newcomer takes the place of the slowest client",
        "--no-compression": "Do not offer (connect, send) or accept (listen) permessage-deflate",
        "--origin": "Origin header of the WebSocket handshake",
        "--pin": "Also require this public key",
        "--ping-interval": "Send a WebSocket ping this often",
        "--rate-window": "How long --min-rate is judged over",
        "--proxy": "Connect through this proxy",
        "--quiet": "No per-client log lines",
        "--record": "Write the traffic to this pcap file",
        "--recv-only": "Only receive: never read stdin",
        "--resolve": "Resolve HOST to these addresses instead of asking DNS",
        "--servername": "Send this name (SNI) and check it in the certificate",
        "--source": "Bind the local end to this address",
        "--speed": "Replay this many times faster than recorded",
        "--subprotocol": "Subprotocol to offer (connect, send) or accept (listen)",
        "--threshold": "Fail (exit 1) unless this holds",
        "--topspeed": "Ignore the recorded gaps",
        "--udp": "UDP, as nc -u",
        "--verbose": "Print more on stderr",
        "--version": "Show the version",
    ]

    /// Every long name two commands share has one meaning, the table's; the table holds no name
    /// that only one command has.
    @Test func everySharedLongNameHasOneMeaning() async throws {
        let model = try await CommandModel.load()
        var uses: [String: [(command: String, abstract: String)]] = [:]
        for command in model.runnable {
            for argument in command.arguments where argument.kind != .positional && argument.isVisible {
                for name in argument.longNames {
                    uses[name, default: []].append((command.description, argument.abstract))
                }
            }
        }
        let shared = uses.filter { Set($0.value.map(\.command)).count > 1 }
        for (name, commands) in shared.sorted(by: { $0.key < $1.key }) {
            let list = commands.map(\.command).joined(separator: ", ")
            guard let meaning = Self.meanings[name] else {
                Issue.record("\(name) is used by \(list): add its one meaning to NamingTests.meanings (the help every command gives it begins with it)")
                continue
            }
            for use in commands where !Self.says(use.abstract, meaning) {
                Issue.record("\(use.command) \(name) means something else: its help \"\(use.abstract)\" does not begin with \"\(meaning)\" — say the same, or give it another name")
            }
        }
        for name in Self.meanings.keys.sorted() where shared[name] == nil {
            let users = uses[name].map { $0.map(\.command).joined(separator: ", ") } ?? "no command"
            Issue.record("\(name) is in NamingTests.meanings but only \(users) has it: remove it")
        }
    }

    /// The old name of a renamed option, on the command that renamed it, is one line pointing at
    /// the new one (exit status 2): the user brought it from a command where it means another
    /// thing, or from an older script.
    @Test(arguments: [
        (["loadtest", "127.0.0.1:1", "--timeout", "2s"], "sockctl loadtest: error: --timeout is not a loadtest option: a reply's wait is --reply-timeout\n"),
        (["loadtest", "127.0.0.1:1", "--timeout=2s"], "sockctl loadtest: error: --timeout is not a loadtest option: a reply's wait is --reply-timeout\n"),
        (["replay", "s.pcap", "127.0.0.1:1", "--timeout", "1s"],
         "sockctl replay: error: --timeout is not a replay option: the wait for the target (or, with --as-server, a client) to send is --idle-timeout\n"),
    ])
    func aNameThatMeansSomethingElseElsewherePointsAtTheRightOne(arguments: [String], expected: String) async throws {
        let result = try await run(try sockctlPath(), arguments)
        #expect(result.status == 2)
        #expect(result.stderr == expected)
    }

    /// The README's short-option table lists every short option once per meaning, with the
    /// commands that give it that meaning and its long name: a letter with two meanings has two
    /// rows, and a row for a letter or meaning that no longer exists fails too.
    @Test func everyShortOptionIsInTheReadmeTableWithEachMeaning() async throws {
        let model = try await CommandModel.load()
        let everyCommand = Set(model.runnable.map(\.description))
        // A short option's meaning, as the parser has it: its long name, or for a short-only
        // option its help.
        var meanings: [ShortOption: Set<String>] = [:]
        for command in model.runnable {
            for argument in command.arguments where argument.kind != .positional && argument.isVisible {
                for short in argument.shortNames {
                    let key = ShortOption(short: short, long: argument.longNames.first, help: argument.longNames.isEmpty ? argument.abstract : "")
                    meanings[key, default: []].insert(command.description)
                }
            }
        }
        let rows = try Self.readmeShortOptions()
        for (option, commands) in meanings.sorted(by: { $0.key.sortKey < $1.key.sortKey }) {
            let matching = rows.filter { $0.short == option.short && $0.long == option.long }
            let candidates = option.long == nil ? matching.filter { $0.commands == commands || ($0.commands == ["every command"] && commands == everyCommand) } : matching
            guard let row = candidates.first else {
                Issue.record("README short options: no row for \(option.short) \(option.long ?? "(no long name)") in \(commands.sorted().joined(separator: ", "))")
                continue
            }
            let listed = row.commands == ["every command"] ? everyCommand : row.commands
            #expect(listed == commands, "README: \(option.short) \(option.long ?? "") is listed for \(row.commands.sorted()), the commands give it in \(commands.sorted())")
        }
        for row in rows {
            let real = meanings.contains { key, commands in
                key.short == row.short && key.long == row.long && (row.commands == ["every command"] ? commands == everyCommand : commands == row.commands)
            }
            #expect(real, "README short options: the row \(row.short) \(row.long ?? "—") for \(row.commands.sorted()) matches no command's option")
        }
        let twoMeanings = Dictionary(grouping: meanings.keys, by: \.short).filter { $0.value.count > 1 }.keys.sorted()
        let listed = try Self.readmeLettersWithTwoMeanings()
        #expect(listed == twoMeanings, "\(listed) in the README's sentence before the table names the letters with two meanings")
    }

    /// `text`, after a context that says when it applies (`With --x: `), begins with `meaning`
    /// (the first letter's case aside).
    static func says(_ text: String, _ meaning: String) -> Bool {
        var text = Substring(text)
        if text.hasPrefix("With "), let colon = text.range(of: ": ") {
            text = text[colon.upperBound...]
        }
        let lower = { (s: Substring) in s.prefix(1).lowercased() + s.dropFirst() }
        return lower(text).hasPrefix(lower(Substring(meaning)))
    }

    /// The letters the README's sentence "... have two rows each" names, in order.
    static func readmeLettersWithTwoMeanings() throws -> [String] {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let end = readme.range(of: "below have two rows each") else { throw HarnessError("README.md: no sentence '... below have two rows each'") }
        let sentenceStart = readme[..<end.lowerBound].range(of: " — ", options: .backwards)?.upperBound ?? end.lowerBound
        return readme[sentenceStart..<end.lowerBound].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    struct ShortOption: Hashable {
        let short: String
        let long: String?
        let help: String
        var sortKey: String { "\(short) \(long ?? help)" }
    }

    struct ReadmeRow {
        let short: String
        let commands: Set<String>
        let long: String?
    }

    /// The rows of the README's short-option table (under "### Option names": `| short | command |
    /// long | meaning | as in |`).
    static func readmeShortOptions() throws -> [ReadmeRow] {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let section = readme.range(of: "### Option names") else { throw HarnessError("README.md has no '### Option names' section") }
        let lines = readme[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| short | command | long |") }) else {
            throw HarnessError("README.md: no short-option table under '### Option names'")
        }
        let strip = { (cell: Substring) in cell.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "") }
        return lines[(header + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map(strip)
            let long = cells.count > 2 && cells[2] != "—" ? cells[2] : nil
            let commands = cells.count > 1 ? Set(cells[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) : []
            return ReadmeRow(short: cells.first ?? "", commands: commands, long: long)
        }
    }
}
