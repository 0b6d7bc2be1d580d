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

/// Status lines on stderr: `sockctl: 12:00:01.123456 connected to ...`, colour only on a
/// terminal and never with `NO_COLOR`.
struct Diagnostics: Sendable {
    let command: String
    let verbose: Bool
    private let colour: Bool

    init(command: String, verbose: Bool) {
        self.command = command
        self.verbose = verbose
        let noColour = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        self.colour = !noColour && FileDescriptorWriter.standardError.isTerminal
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

    /// Prints a failure and returns the error to throw, with the status ``ExitStatus`` gives it.
    /// `labelled: false` prints it as tcpdump does, without the `error:` label (capture).
    func fail(_ error: any Error, labelled: Bool = true) -> CommandFailed {
        let (line, detail) = ExitStatus.message(error)
        if labelled { self.error(line) } else { note(line) }
        if let detail { FileDescriptorWriter.standardError.write(detail) }
        return CommandFailed(status: ExitStatus.of(error))
    }
}

extension Duration {
    /// Milliseconds with three decimals, for reports.
    var milliseconds: Double { Double(nanosecondsClamped) / 1e6 }
}

extension Diagnostics {
    /// What a `--record` file holds (`-v`) and, always, what it lost.
    func report(recording totals: SessionRecorder.Totals, of recorder: SessionRecorder) {
        event("recorded \(plural(totals.connections, "connection")), \(plural(totals.packets, "packet")) to \(recorder.name)")
        if totals.droppedBytes > 0 {
            warning(
                "--record: \(totals.droppedBytes) bytes in \(plural(totals.droppedEvents, "chunk")) were not written to \(recorder.name)"
                    + " (the writer fell more than \(formatBytes(recorder.bufferLimit)) behind); the file shows them as missing"
            )
        }
        if let error = totals.writeError {
            warning("--record: writing \(recorder.name) failed: \(error); the file is incomplete")
        }
    }
}
