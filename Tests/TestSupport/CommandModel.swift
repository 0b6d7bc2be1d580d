import Foundation

/// Every subcommand and option of sockctl as the argument parser itself describes them
/// (`sockctl --experimental-dump-help`), for tests that check conventions across the whole
/// command line: names, value forms, help, errors.
public struct CommandModel: Sendable {
    /// One command (`connect`, `report merge`, …).
    public struct Command: Sendable, CustomStringConvertible {
        /// The words after `sockctl` that run it (`["report", "merge"]`).
        public let path: [String]
        public let abstract: String
        public let discussion: String
        public let arguments: [Argument]
        /// Whether it runs something (a group such as `report` only holds subcommands).
        public let isRunnable: Bool

        public var description: String { path.joined(separator: " ") }
    }

    /// One positional argument, option or flag.
    public struct Argument: Sendable, CustomStringConvertible {
        public enum Kind: String, Sendable, Decodable {
            case positional, option, flag
        }

        public let kind: Kind
        /// Every spelling, `--long` and `-s` (empty for a positional).
        public let names: [String]
        /// The spelling help shows first.
        public let preferredName: String?
        /// The value's name in help (`dur`, `file`); for a flag, its own name.
        public let valueName: String?
        public let abstract: String
        public let defaultValue: String?
        public let allValues: [String]
        public let isRepeating: Bool
        public let isOptional: Bool
        /// Whether help shows it.
        public let isVisible: Bool

        /// Long spellings (`--json`), without short ones.
        public var longNames: [String] { names.filter { $0.hasPrefix("--") } }
        /// Short spellings (`-k`).
        public var shortNames: [String] { names.filter { !$0.hasPrefix("--") } }
        public var description: String { preferredName ?? "<\(valueName ?? "?")>" }
    }

    /// Every command, the top level (`path` empty) first.
    public let commands: [Command]

    /// Commands that run something (not groups, not the generated `help`).
    public var runnable: [Command] { commands.filter { $0.isRunnable && !$0.path.isEmpty && $0.path != ["help"] } }

    /// Reads the model from the sockctl binary under test.
    public static func load() async throws -> CommandModel {
        let dump = try await run(try sockctlPath(), ["--experimental-dump-help"])
        guard dump.status == 0 else { throw HarnessError("--experimental-dump-help failed: \(dump.stderr)") }
        return try CommandModel(json: dump.stdout)
    }

    public init(json: Data) throws {
        let root = try JSONDecoder().decode(Dump.self, from: json)
        var commands: [Command] = []
        func walk(_ command: Dump.CommandInfo, path: [String]) {
            let subcommands = command.subcommands ?? []
            commands.append(Command(
                path: path, abstract: command.abstract ?? "", discussion: command.discussion ?? "",
                arguments: (command.arguments ?? []).map(Argument.init),
                isRunnable: subcommands.isEmpty))
            for subcommand in subcommands { walk(subcommand, path: path + [subcommand.commandName]) }
        }
        walk(root.command, path: [])
        self.commands = commands
    }

    // The JSON of `--experimental-dump-help` (the fields read here).
    fileprivate struct Dump: Decodable {
        struct Name: Decodable {
            let kind: String
            let name: String
            var spelled: String { kind == "short" ? "-\(name)" : kind == "longWithSingleDash" ? "-\(name)" : "--\(name)" }
        }

        struct ArgumentInfo: Decodable {
            let kind: Argument.Kind
            let names: [Name]?
            let preferredName: Name?
            let valueName: String?
            let abstract: String?
            let defaultValue: String?
            let allValues: [String]?
            let isRepeating: Bool?
            let isOptional: Bool?
            let shouldDisplay: Bool?
        }

        final class CommandInfo: Decodable {
            let commandName: String
            let abstract: String?
            let discussion: String?
            let arguments: [ArgumentInfo]?
            let subcommands: [CommandInfo]?
        }

        let command: CommandInfo
    }
}

extension CommandModel.Argument {
    fileprivate init(_ info: CommandModel.Dump.ArgumentInfo) {
        kind = info.kind
        names = (info.names ?? []).map(\.spelled)
        preferredName = info.preferredName?.spelled
        valueName = info.valueName
        abstract = info.abstract ?? ""
        defaultValue = info.defaultValue
        allValues = info.allValues ?? []
        isRepeating = info.isRepeating ?? false
        isOptional = info.isOptional ?? false
        isVisible = info.shouldDisplay ?? true
    }
}
