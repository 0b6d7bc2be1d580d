import Foundation

/// A command line as a POSIX shell splits it — as much of the shell as README's examples use:
/// words in single or double quotes or with backslashes, `|` between commands, a `< FILE`
/// redirection, a trailing `&`, a leading `sudo` and a `#` comment.
///
/// Not a shell: no variables, globs, `$(…)`, `&&` or `;` (a word holding one of those parses as
/// text, and the README example that needs it gets no runner until this learns it).
struct ShellCommand: Sendable, Equatable {
    /// One command of a pipeline.
    struct Stage: Sendable, Equatable {
        /// The program and its arguments, quotes removed (`sudo` dropped: the tests run as root).
        var words: [String]
        /// The file of a `< FILE` redirection.
        var input: String?
        /// The stage as written (for `echo '…'` before a pipe, run by /bin/sh as it stands).
        var text: String

        var program: String? { words.first }
    }

    var stages: [Stage]
    /// Ends in `&`: started in the background.
    var background: Bool

    /// The stage that runs sockctl (the first whose program is `sockctl`).
    var sockctlStage: Int? { stages.firstIndex { $0.program == "sockctl" } }

    /// What a shell would run for `text`, or the reason it cannot be read.
    static func parse(_ text: String) throws(ShellSyntaxError) -> ShellCommand {
        var stages: [Stage] = []
        var words: [String] = []
        var word = ""
        var inWord = false
        var input: String?
        var expectingInput = false
        var background = false
        var stageStart = text.startIndex
        var index = text.startIndex

        func endWord() throws(ShellSyntaxError) {
            guard inWord else { return }
            if background { throw ShellSyntaxError("text after '&'") }
            if expectingInput {
                input = word
                expectingInput = false
            } else {
                words.append(word)
            }
            word = ""
            inWord = false
        }
        func endStage(at end: String.Index) throws(ShellSyntaxError) {
            try endWord()
            if expectingInput { throw ShellSyntaxError("'<' without a file") }
            if words.first == "sudo" { words.removeFirst() }
            guard !words.isEmpty else { throw ShellSyntaxError("an empty command in a pipeline") }
            let written = text[stageStart..<end].trimmingCharacters(in: .whitespaces)
            stages.append(Stage(words: words, input: input, text: written))
            words = []
            input = nil
        }

        while index < text.endIndex {
            let character = text[index]
            switch character {
            case "'":
                guard let close = text[text.index(after: index)...].firstIndex(of: "'") else {
                    throw ShellSyntaxError("an unterminated single quote")
                }
                word += text[text.index(after: index)..<close]
                inWord = true
                index = close
            case "\"":
                var cursor = text.index(after: index)
                var closed = false
                while cursor < text.endIndex {
                    let inside = text[cursor]
                    if inside == "\"" { closed = true; break }
                    if inside == "\\", text.index(after: cursor) < text.endIndex,
                       "\"\\$`".contains(text[text.index(after: cursor)]) {
                        cursor = text.index(after: cursor)
                    } else if inside == "$" || inside == "`" {
                        throw ShellSyntaxError("a substitution inside double quotes")
                    }
                    word.append(text[cursor])
                    cursor = text.index(after: cursor)
                }
                guard closed else { throw ShellSyntaxError("an unterminated double quote") }
                inWord = true
                index = cursor
            case "\\":
                let next = text.index(after: index)
                guard next < text.endIndex else { throw ShellSyntaxError("a backslash at the end") }
                word.append(text[next])
                inWord = true
                index = next
            case " ", "\t":
                try endWord()
            case "#" where !inWord:
                index = text.endIndex
                continue
            case "|":
                try endStage(at: index)
                stageStart = text.index(after: index)
            case "<":
                try endWord()
                expectingInput = true
            case "&":
                try endWord()
                background = true
            case ";", "$", "`", ">", "(", ")", "*", "?":
                throw ShellSyntaxError("'\(character)' (this reader knows quotes, |, <, & and # only)")
            default:
                word.append(character)
                inWord = true
            }
            index = text.index(after: index)
        }
        let end = text.firstUnquotedComment ?? text.endIndex
        try endStage(at: background ? (text[..<end].lastIndex(of: "&") ?? end) : end)
        return ShellCommand(stages: stages, background: background)
    }
}

/// Why a command line could not be read.
struct ShellSyntaxError: Error, CustomStringConvertible, Sendable {
    let description: String
    init(_ description: String) { self.description = description }
}

extension String {
    /// Where a `#` comment starts (a `#` that begins a word, outside quotes), if there is one.
    var firstUnquotedComment: String.Index? {
        var quote: Character?
        var previous: Character = " "
        var index = startIndex
        while index < endIndex {
            let character = self[index]
            if let open = quote {
                if character == open { quote = nil }
                else if open == "\"", character == "\\" { index = self.index(after: index) }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "\\" {
                index = self.index(after: index)
            } else if character == "#", previous == " " || previous == "\t" {
                return index
            }
            if index < endIndex { previous = self[index] }
            index = index < endIndex ? self.index(after: index) : index
        }
        return nil
    }

    /// The text without its `#` comment and the blanks around it.
    var withoutShellComment: String {
        String(self[..<(firstUnquotedComment ?? endIndex)]).trimmingCharacters(in: .whitespaces)
    }
}
