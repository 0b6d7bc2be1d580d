import ArgumentParser
import Foundation

/// The command line as the argument parser itself describes it (the JSON of
/// `--experimental-dump-help`): every command, its subcommands, and the names and value names of
/// its options. Read only when a command line did not parse or a command failed, to name the
/// command in the error line and to suggest what was meant.
struct CommandLineModel: Sendable {
    /// One command: `connect`, `report`, `report merge`, or the top level (`path` empty).
    struct Command: Sendable {
        /// The words after `sockctl` that run it.
        let path: [String]
        let options: [Option]
        /// The value names of its positional arguments, in order (`endpoint`, `message`).
        let positionals: [String]
        let subcommands: [Command]

        /// `sockctl connect: error:` needs `connect`; the top level has no name.
        var name: String { path.joined(separator: " ") }

        /// The option spelled `name` (`--json`, `-c`), if this command has it.
        func option(named name: String) -> Option? {
            options.first { $0.names.contains(name) }
        }

        func subcommand(named name: String) -> Command? {
            subcommands.first { $0.path.last == name }
        }
    }

    /// One option or flag.
    struct Option: Sendable {
        /// Every spelling: `--connections`, `-c`.
        let names: [String]
        /// What help calls its value (`n`, `dur`); nil for a flag.
        let valueName: String?

        var takesValue: Bool { valueName != nil }
        /// The long spelling when there is one (`--connections` for `-c`).
        var longName: String? { names.first { $0.hasPrefix("--") } }
    }

    let root: Command

    /// The options the parser answers on every command without listing them in its description.
    static let builtIns = ["-h", "--help", "--help-hidden", "--version", "--experimental-dump-help", "--generate-completion-script"]

    /// The model of `sockctl` itself, from the parser's own description; nil only if the parser
    /// stopped describing itself (the errors are then worded without it).
    static func sockctl() -> CommandLineModel? {
        do {
            _ = try Sockctl.parseAsRoot(["--experimental-dump-help"])
            return nil
        } catch {
            return try? CommandLineModel(json: Data(Sockctl.message(for: error).utf8))
        }
    }

    /// The name of the command `arguments` run (`report merge`), empty when they name none: for
    /// the `sockctl CMD: error:` of a failure outside any command's own diagnostics. Read from
    /// the commands' own configurations, not from the full description (``sockctl()``), which
    /// costs seconds of CPU in a debug build: most errors need the name alone.
    static func commandName(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> String {
        var command: any ParsableCommand.Type = Sockctl.self
        var path: [String] = []
        for word in arguments {
            guard let subcommand = command.configuration.subcommands.first(where: { $0._commandName == word }) else { break }
            path.append(word)
            command = subcommand
        }
        return path.joined(separator: " ")
    }

    init(json: Data) throws {
        root = Self.command(try JSONDecoder().decode(Dump.self, from: json).command, path: [])
    }

    /// The command the leading words of `arguments` name, and the index of the first argument
    /// after them (`["report", "merge", "a.json"]` → `report merge`, 2).
    func command(for arguments: [String]) -> (command: Command, next: Int) {
        var command = root
        var index = 0
        while index < arguments.count, let subcommand = command.subcommand(named: arguments[index]) {
            command = subcommand
            index += 1
        }
        return (command, index)
    }

    /// Every command, the top level first.
    var commands: [Command] {
        var all: [Command] = []
        func walk(_ command: Command) {
            all.append(command)
            command.subcommands.forEach(walk)
        }
        walk(root)
        return all
    }

    private static func command(_ info: Dump.CommandInfo, path: [String]) -> Command {
        let arguments = info.arguments ?? []
        return Command(
            path: path,
            options: arguments.filter { $0.kind != "positional" }.map { argument in
                Option(
                    names: (argument.names ?? []).map(\.spelled),
                    valueName: argument.kind == "option" ? argument.valueName ?? "value" : nil)
            },
            positionals: arguments.filter { $0.kind == "positional" }.map { $0.valueName ?? "value" },
            subcommands: (info.subcommands ?? []).filter { $0.commandName != "help" }.map { command($0, path: path + [$0.commandName]) }
        )
    }

    // The parts of the `--experimental-dump-help` JSON read here.
    private struct Dump: Decodable {
        struct Name: Decodable {
            let kind: String
            let name: String
            var spelled: String { kind == "long" ? "--\(name)" : "-\(name)" }
        }

        struct ArgumentInfo: Decodable {
            let kind: String
            let names: [Name]?
            let valueName: String?
        }

        final class CommandInfo: Decodable {
            let commandName: String
            let arguments: [ArgumentInfo]?
            let subcommands: [CommandInfo]?
        }

        let command: CommandInfo
    }
}
