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

/// A command-line mistake: printed as one line, exit status 2. (ArgumentParser's own type, so
/// that it keeps its meaning when thrown from `validate()`.)
typealias UsageError = ValidationError

/// The reason is already printed: exit status 1 (the operation failed) or 2 (the engine found
/// a usage error only at run time, such as an unknown interface).
struct CommandFailed: Error {
    var status: Int32 = 1
}

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

    /// Prints a failure and returns the error to throw: exit status 2 for usage errors, else 1.
    func fail(_ error: SocketEngineError) -> CommandFailed {
        self.error(error.message)
        return CommandFailed(status: error.isUsageError ? 2 : 1)
    }
}

/// Local wall-clock time as tcpdump prints it: `HH:MM:SS.uuuuuu`.
enum Timestamp {
    static func now() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        let micros = Int(now.tv_nsec / 1000)
        return "\(padded(Int(parts.tm_hour), 2)):\(padded(Int(parts.tm_min), 2)):\(padded(Int(parts.tm_sec), 2)).\(padded(micros, 6))"
    }
}

/// `--hexdump`: one header line per chunk (time, direction, peer, size) and the tcpdump -X
/// dump of its bytes.
final class HexdumpPrinter: Sendable {
    let output: FileDescriptorWriter

    init(output: FileDescriptorWriter) {
        self.output = output
    }

    func print(_ record: TrafficRecord) {
        let arrow = record.direction == .sent ? ">" : "<"
        let verb = record.direction == .sent ? "sent to" : "received from"
        var line = Array("\(Timestamp.now()) \(arrow) \(verb) \(record.connection), \(record.bytes.readableBytes) bytes".utf8)
        record.bytes.withUnsafeReadableBytes { HexDump.appendHexAndASCII($0, into: &line) }
        line.append(0x0A)
        output.write(line)
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
