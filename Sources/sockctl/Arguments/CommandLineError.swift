/// A command line the argument parser refused, worded as the one line after
/// `sockctl CMD: error: `, the way every other error is worded: what is wrong, and what to type.
///
/// The arguments are read again first, against the parser's own description of the command
/// line (``CommandLineModel``), for the mistakes the parser words poorly or not at all: a
/// mistyped subcommand (`unknown subcommand 'conect' (did you mean connect?)`), an option this
/// command does not have, wherever it stands (`unknown option '--cafile' for proxy (did you mean
/// --upstream-cafile?)`), a negative number after an option (`-c must not be negative (got -5)`,
/// where the parser takes `-5` for an option). Otherwise the parser's own message is reworded:
/// never nested (`The value 'x' is invalid for '<endpoint>': invalid endpoint 'x': …` becomes
/// the reason alone), a bad value with its expected form (``ValueForm``), one line.
struct CommandLineError {
    /// The command the words named (`report merge`), empty when none was recognised.
    let command: String
    let message: String

    init(parserMessage: String, arguments: [String], model: CommandLineModel?) {
        guard let model else {
            command = ""
            message = Self.oneLine(parserMessage)
            return
        }
        let (command, next) = model.command(for: arguments)
        self.command = command.name
        let words = Array(arguments[next...].prefix { $0 != "--" })
        message = Self.misspelledSubcommand(words, in: command)
            ?? Self.misreadOption(words, in: command, model: model)
            ?? Self.reworded(parserMessage, words: words, in: command)
    }

    /// Parser messages can span lines (a list of choices): one line, always. A line that ends
    /// a sentence or announces a list runs on after a space, others after `; `.
    static func oneLine(_ message: String) -> String {
        let lines = message.split(separator: "\n").map { $0.trimmingCharacters(in: " ") }.filter { !$0.isEmpty }
        var text = ""
        for line in lines {
            if let last = text.last { text += last == "." || last == ":" ? " " : "; " }
            text += line
        }
        return text
    }

    // MARK: What the arguments show

    /// A group (`sockctl`, `sockctl report`) followed by a word that is none of its subcommands.
    private static func misspelledSubcommand(_ words: [String], in command: CommandLineModel.Command) -> String? {
        guard !command.subcommands.isEmpty, let word = words.first, !word.hasPrefix("-"), word != "help" else { return nil }
        let names = command.subcommands.compactMap(\.path.last)
        let hint = NameSuggestion.question(NameSuggestion.nearest(to: word, among: names))
            ?? "expected one of \(names.joined(separator: ", "))"
        return "unknown subcommand '\(word)' (\(hint))"
    }

    /// The first option `command` does not have, or the first option taking a quantity that is
    /// given a negative number.
    private static func misreadOption(_ words: [String], in command: CommandLineModel.Command, model: CommandLineModel) -> String? {
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            guard word.hasPrefix("-"), word.count > 1, !isNegativeNumber(word) else { continue }
            let name = String(word.prefix { $0 != "=" })
            let hasValue = name.count < word.count
            if CommandLineModel.builtIns.contains(name) { continue }
            guard let option = command.option(named: name) else {
                // `-timeout` for `--timeout`.
                if name.hasPrefix("--") || name.count == 2 || command.option(named: "-" + name) != nil {
                    return unknownOption(name, in: command, model: model)
                }
                // A group of short flags (`-vvv`, `-XX`), or a letter in it that is none of them.
                if let unknown = unknownLetter(name, in: command) {
                    return unknownOption(unknown, in: command, model: model)
                }
                continue
            }
            guard option.takesValue, !hasValue, index < words.count else { continue }
            let value = words[index]
            if isNegativeNumber(value), let valueName = option.valueName {
                if ValueForm.isQuantity(valueName) { return "\(name) must not be negative (got \(value))" }
                return "\(name) needs a value; for one that starts with '-', write \(name)=\(value)"
            }
            if !value.hasPrefix("-") { index += 1 }
        }
        return nil
    }

    /// In a group of short options (`-vkz`), the first letter that is none of the command's.
    private static func unknownLetter(_ word: String, in command: CommandLineModel.Command) -> String? {
        word.dropFirst().map { "-\($0)" }.first { command.option(named: $0) == nil }
    }

    private static func unknownOption(_ name: String, in command: CommandLineModel.Command, model: CommandLineModel) -> String {
        let here = command.options.flatMap(\.names)
        let subject = command.path.isEmpty ? "'\(name)'" : "'\(name)' for \(command.name)"
        var candidates = NameSuggestion.nearest(to: name, among: here)
        if !name.hasPrefix("--"), name.count > 2, command.option(named: "-" + name) != nil {
            candidates = ["-" + name]
        }
        if let question = NameSuggestion.question(candidates) {
            return "unknown option \(subject) (\(question))"
        }
        let elsewhere = model.commands.filter { !$0.path.isEmpty && $0.option(named: name) != nil }.map(\.name)
        if !elsewhere.isEmpty {
            return "unknown option \(subject) (\(name) is an option of \(list(elsewhere)))"
        }
        return "unknown option \(subject) (see sockctl \(command.name.isEmpty ? "" : command.name + " ")--help)"
    }

    private static func isNegativeNumber(_ word: String) -> Bool {
        guard word.hasPrefix("-"), let next = word.dropFirst().first else { return false }
        return next.isNumber || next == "."
    }

    // MARK: The parser's message, reworded

    private static func reworded(_ parserMessage: String, words: [String], in command: CommandLineModel.Command) -> String {
        let message = oneLine(parserMessage)
        if let invalid = InvalidValue(message) {
            let subject = invalid.option ?? "<\(invalid.valueName ?? "value")>"
            // A transform's reason, alone when it names the value or the option, else after them.
            if let reason = invalid.reason {
                let named = reason.contains("'\(invalid.value)'") || invalid.option.map { reason.contains($0) } ?? false
                return named ? reason : "invalid \(subject) '\(invalid.value)': \(reason)"
            }
            if isNegativeNumber(invalid.value), let option = invalid.option, invalid.valueName.map(ValueForm.isQuantity) == true {
                return "\(option) must not be negative (got \(invalid.value))"
            }
            return "invalid \(subject) '\(invalid.value)'\(expected(invalid.valueName))"
        }
        if let synopsis = quoted(message, after: "Missing value for '") {
            let (option, valueName) = split(synopsis)
            let name = option ?? synopsis
            if let position = words.firstIndex(of: name), position + 1 < words.count, words[position + 1].hasPrefix("-") {
                let next = words[position + 1]
                return "\(name) needs a value\(expected(valueName)); for one that starts with '-', write \(name)=\(next)"
            }
            return "\(name) needs a value\(expected(valueName))"
        }
        if let synopsis = quoted(message, after: "Missing expected argument '") {
            return "missing \(synopsis)\(expected(split(synopsis).valueName))"
        }
        if let value = quoted(message, after: "Unexpected argument '") {
            // After an option whose value may be left out (`--reconnect many`): that value.
            if let position = words.firstIndex(of: value), position > 0, let option = command.option(named: words[position - 1]), option.takesValue {
                return "invalid \(words[position - 1]) '\(value)'\(expected(option.valueName))"
            }
            return "unexpected argument '\(value)'\(usage(command))"
        }
        if message.contains(" unexpected arguments: '") {
            return message + usage(command)
        }
        if let option = quoted(message, after: "The option '"), let value = quoted(message, after: "but '") {
            return "\(option) takes no value (got '\(value)')"
        }
        // The parser's other sentences (ours start as they mean to).
        if let first = message.first, parserSentences.contains(where: message.hasPrefix) {
            return first.lowercased() + message.dropFirst()
        }
        return message
    }

    /// How the parser's own messages that are not reworded above begin.
    private static let parserSentences = ["Missing required subcommand", "Value to be set with", "Invalid option", "Can't ", "Internal error", "Command '"]

    /// ` (expected a duration such as 500ms, 2s, 1m)` for `dur`; empty for a value name without a form.
    private static func expected(_ valueName: String?) -> String {
        valueName.flatMap(ValueForm.expected).map { " (expected \($0))" } ?? ""
    }

    /// ` (connect takes <endpoint>)`: what the command's positional arguments are.
    private static func usage(_ command: CommandLineModel.Command) -> String {
        guard !command.path.isEmpty else { return "" }
        if command.positionals.isEmpty { return " (\(command.name) takes no arguments besides its options)" }
        return " (\(command.name) takes " + command.positionals.map { "<\($0)>" }.joined(separator: " ") + ")"
    }

    /// The text between `prefix` and the next `'` that ends it (one followed by the end, `.`,
    /// `,`, `:` or a space).
    private static func quoted(_ message: String, after prefix: String) -> String? {
        guard let start = message.range(of: prefix)?.upperBound else { return nil }
        let rest = message[start...]
        var index = rest.startIndex
        while let quote = rest[index...].firstIndex(of: "'") {
            let after = rest.index(after: quote)
            if after == rest.endIndex || [".", ",", ":", " ", ";"].contains(rest[after]) {
                return String(rest[..<quote])
            }
            index = after
        }
        return nil
    }

    /// `--max-clients <n>` → (`--max-clients`, `n`); `<endpoint>` → (nil, `endpoint`).
    fileprivate static func split(_ synopsis: String) -> (option: String?, valueName: String?) {
        let option = synopsis.hasPrefix("-") ? String(synopsis.prefix { $0 != " " }) : nil
        guard let open = synopsis.firstIndex(of: "<"), synopsis.hasSuffix(">") else { return (option, nil) }
        return (option, String(synopsis[synopsis.index(after: open)..<synopsis.index(before: synopsis.endIndex)]))
    }

    private static func list(_ names: [String]) -> String {
        names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
    }
}

/// The parser's "The value 'V' is invalid for 'SYNOPSIS'" with what follows it: the reason a
/// transform gave (after `: `), or a list of choices, or nothing.
private struct InvalidValue {
    let value: String
    let option: String?
    let valueName: String?
    let reason: String?

    init?(_ message: String) {
        let head = "The value '"
        let middle = "' is invalid for '"
        guard message.hasPrefix(head), let split = message.range(of: middle) else { return nil }
        value = String(message[message.index(message.startIndex, offsetBy: head.count)..<split.lowerBound])
        let rest = message[split.upperBound...]
        // The synopsis ends with its value name's `>`: `--header <'name: value'>`.
        guard let end = rest.range(of: ">'") else { return nil }
        let synopsis = String(rest[..<end.lowerBound]) + ">"
        (option, valueName) = CommandLineError.split(synopsis)
        let after = rest[end.upperBound...]
        reason = after.hasPrefix(": ") ? String(after.dropFirst(2)) : nil
    }
}
