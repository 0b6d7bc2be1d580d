import Foundation
import TestSupport
import Testing

/// One example of README.md: a command in a code block that runs sockctl, where it stands, and
/// the output the README shows beneath it.
///
/// What counts as an example: in a code block holding `$ ` prompts, every prompt line whose
/// command runs sockctl (its continuation lines joined), with the lines up to the next prompt as
/// its shown output; in a `sh` block without prompts, every command line that runs sockctl.
/// Blocks of other languages (`swift`, `json`, `yaml`) and blocks of output alone hold none.
struct ReadmeExample: Sendable, CustomTestStringConvertible, CustomStringConvertible {
    /// The README line the command starts on.
    let line: Int
    /// The command as written, continuation lines joined by one space, its `#` comment dropped:
    /// the key of its runner in ``ReadmeRunners``.
    let command: String
    /// The lines the README shows as its output (beneath a `$ ` prompt), as written.
    let shownOutput: [ShownLine]

    var description: String { "README.md:\(line): \(command)" }
    var testDescription: String { "README.md:\(line) \(command)" }

    /// Where a failure of this example points: the README line of the command.
    var sourceLocation: SourceLocation {
        SourceLocation(fileID: "sockctl/README.md", filePath: ReadmeExamples.path, line: line, column: 1)
    }
}

/// A line of output the README shows, and its line number.
struct ShownLine: Sendable {
    let line: Int
    let text: String
}

/// The examples of README.md (``ReadmeExample``).
enum ReadmeExamples {
    static let path = packageRoot.appendingPathComponent("README.md").path

    /// Every example of the README, in order; none when it cannot be read (the test that counts
    /// them fails then).
    static let all: [ReadmeExample] = {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return extract(fromMarkdown: text)
    }()

    /// The examples in a Markdown text.
    static func extract(fromMarkdown text: String) -> [ReadmeExample] {
        codeBlocks(in: text).flatMap(examples(in:))
    }

    /// A fenced code block: its language and its lines with their line numbers.
    struct CodeBlock {
        var language: String
        var lines: [(number: Int, text: String)]
    }

    static func codeBlocks(in text: String) -> [CodeBlock] {
        var blocks: [CodeBlock] = []
        var open: CodeBlock?
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                if let block = open {
                    blocks.append(block)
                    open = nil
                } else {
                    open = CodeBlock(language: String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces), lines: [])
                }
            } else if open != nil {
                open?.lines.append((offset + 1, String(line)))
            }
        }
        return blocks
    }

    static func examples(in block: CodeBlock) -> [ReadmeExample] {
        guard ["", "sh", "bash", "console", "shell"].contains(block.language) else { return [] }
        let prompted = block.lines.contains { $0.text.hasPrefix("$ ") }
        if !prompted && block.language != "sh" && block.language != "bash" { return [] }
        var examples: [ReadmeExample] = []
        var index = 0
        while index < block.lines.count {
            let (number, text) = block.lines[index]
            index += 1
            if prompted && !text.hasPrefix("$ ") { continue }
            var command = prompted ? String(text.dropFirst(2)) : text
            // Continuation lines: a line ending in a backslash goes on with the next.
            while command.withoutShellComment.hasSuffix("\\"), index < block.lines.count {
                command = String(command.withoutShellComment.dropLast()).trimmingCharacters(in: .whitespaces)
                    + " " + block.lines[index].text.trimmingCharacters(in: .whitespaces)
                index += 1
            }
            command = command.withoutShellComment
            var shown: [ShownLine] = []
            if prompted {
                while index < block.lines.count, !block.lines[index].text.hasPrefix("$ ") {
                    shown.append(ShownLine(line: block.lines[index].number, text: block.lines[index].text))
                    index += 1
                }
                while shown.last?.text.trimmingCharacters(in: .whitespaces).isEmpty == true { shown.removeLast() }
            }
            guard runsSockctl(command) else { continue }
            examples.append(ReadmeExample(line: number, command: command, shownOutput: shown))
        }
        return examples
    }

    /// Whether a command line runs sockctl: one of its commands is `sockctl` (after a `sudo`).
    /// A line that does not parse counts when it starts so (its runner then says why not).
    static func runsSockctl(_ command: String) -> Bool {
        if let parsed = try? ShellCommand.parse(command) { return parsed.sockctlStage != nil }
        return command.hasPrefix("sockctl ") || command.hasPrefix("sudo sockctl ")
    }
}
