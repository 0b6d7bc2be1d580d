import ArgumentParser
import NIOCore
import PacketDecoding
import Recording
import SocketEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Status lines on stderr: `sockctl: 12:00:01.123456 connected to ...`; the `warning` and
/// `error` labels coloured as ``TerminalStyle`` decides (`--color`, `NO_COLOR`, `TERM=dumb`).
struct Diagnostics: Sendable {
    let command: String
    let verbose: Bool
    private let colour: Bool

    init(command: String, verbose: Bool) {
        self.command = command
        self.verbose = verbose
        self.colour = TerminalStyle.colours(.standardError)
    }

    /// A `-v` event line, with a timestamp.
    func event(_ text: String) {
        guard verbose else { return }
        FileDescriptorWriter.standardError.write("sockctl \(command): \(Timestamp.now()) \(text)\n")
    }

    /// A line the user always sees (listen's client log, summaries).
    func note(_ text: String) {
        FileDescriptorWriter.standardError.write("sockctl \(command): \(text)\n")
    }

    func warning(_ text: String) {
        let label = colour ? "\u{1B}[33mwarning\u{1B}[0m" : "warning"
        FileDescriptorWriter.standardError.write("sockctl \(command): \(label): \(text)\n")
    }

    func error(_ text: String) {
        let label = colour ? "\u{1B}[31merror\u{1B}[0m" : "error"
        FileDescriptorWriter.standardError.write("sockctl \(command): \(label): \(text)\n")
    }

    /// Prints an engine event's lines, each at its level.
    func log(_ lines: [LogLine]) {
        for line in lines {
            switch line.level {
            case .note: note(line.text)
            case .event: event(line.text)
            case .warning: warning(line.text)
            }
        }
    }

    func log(_ line: LogLine?) {
        if let line { log([line]) }
    }

    /// Prints a failure and returns the error to throw, with the status ``ExitStatus`` gives it.
    /// `labelled: false` prints it as tcpdump does, without the `error:` label (capture).
    func fail(_ error: any Error, labelled: Bool = true) -> CommandFailed {
        let (line, detail) = ExitStatus.message(error)
        if labelled { self.error(line) } else { note(line) }
        if let detail { FileDescriptorWriter.standardError.write(detail) }
        return CommandFailed(status: ExitStatus.of(error))
    }
}
