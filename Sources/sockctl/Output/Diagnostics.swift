import ArgumentParser
import NIOCore
import PacketDecoding
import Recording
import SocketEngine

import Glibc

/// Status lines on stderr: `sockctl connect: 12:00:01.123456 connected to ...`; the `warning`
/// and `error` labels coloured as ``TerminalStyle`` decides (`--color`, `NO_COLOR`,
/// `TERM=dumb`). Every line starts with the command's name (`sockctl report merge:`;
/// `sockctl:` when the command line named no command), errors included:
/// `sockctl connect: error: …`.
struct Diagnostics: Sendable {
    let command: String
    let verbose: Bool
    private let colour: Bool
    private var prefix: String { command.isEmpty ? "sockctl:" : "sockctl \(command):" }

    init(command: String, verbose: Bool) {
        self.command = command
        self.verbose = verbose
        self.colour = TerminalStyle.colours(.standardError)
    }

    /// A `-v` event line, with a timestamp.
    func event(_ text: String) {
        guard verbose else { return }
        FileDescriptorWriter.standardError.write("\(prefix) \(Timestamp.now()) \(text)\n")
    }

    /// A line the user always sees (listen's client log, summaries).
    func note(_ text: String) {
        FileDescriptorWriter.standardError.write("\(prefix) \(text)\n")
    }

    func warning(_ text: String) {
        let label = colour ? "\u{1B}[33mwarning\u{1B}[0m" : "warning"
        FileDescriptorWriter.standardError.write("\(prefix) \(label): \(text)\n")
    }

    /// An error line. It stays one line whatever it quotes: a value given with a line break or
    /// another control character in it is shown with escapes (`\r\n`, `\u{1B}`).
    func error(_ text: String) {
        let label = colour ? "\u{1B}[31merror\u{1B}[0m" : "error"
        FileDescriptorWriter.standardError.write("\(prefix) \(label): \(Self.escapingControlCharacters(text))\n")
    }

    static func escapingControlCharacters(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.properties.generalCategory == .control: out += scalar.escaped(asASCII: true)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Prints an engine event's lines, each at its level.
    func log(_ lines: [LogLine]) {
        for line in lines {
            switch line.level {
            case .note: note(OptionNames.render(line.text))
            case .event: event(OptionNames.render(line.text))
            case .warning: warning(OptionNames.render(line.text))
            }
        }
    }

    func log(_ line: LogLine?) {
        if let line { log([line]) }
    }

    /// Prints a failure and returns the error to throw, with the status ``ExitStatus`` gives it.
    func fail(_ error: any Error) -> CommandFailed {
        let (line, detail) = ExitStatus.message(error)
        self.error(line)
        if let detail { FileDescriptorWriter.standardError.write(detail) }
        return CommandFailed(status: ExitStatus.of(error))
    }
}
