import NIOCore

/// The control socket of a running relay (`proxy --control unix:PATH`): one command per line,
/// one answer line per command, so `sockctl send unix:PATH 'add latency=50ms' --framing line` or
/// `socat - UNIX-CONNECT:PATH` can drive it.
///
/// ```
/// add SPEC      ok 3 latency=50ms          (the new fault's number and specification)
/// remove N      ok removed 3
/// list          ok 2 faults: 3 latency=50ms,dir=up; 4 drop=2%
/// clear         ok removed 2 faults
/// ```
///
/// A command that cannot be done is answered `error: REASON` and changes nothing.
public final class RelayControl: Sendable {
    private let listener: Listener
    private let faults: RelayFaultSet
    /// Where the control socket listens.
    public let path: String

    private init(listener: Listener, faults: RelayFaultSet, path: String) {
        self.listener = listener
        self.faults = faults
        self.path = path
    }

    /// Listens on the Unix socket `path` for commands that change `faults`.
    public static func bind(path: String, faults: RelayFaultSet) async throws -> RelayControl {
        var options = ListenOptions()
        options.maximumClients = 16
        let listener = try await Listener.bind(Endpoint(transport: .unix, path: path), options: options)
        return RelayControl(listener: listener, faults: faults, path: path)
    }

    /// Answers commands until ``close()``.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await connection in listener.connections {
                group.addTask { await self.serve(connection) }
            }
        }
    }

    /// Stops listening and removes the socket file.
    public func close() async {
        await listener.close()
    }

    /// The longest command line; a longer one ends that client (the engine closes a stream whose
    /// frame is over its limit: it cannot be resynchronised), and the relay goes on.
    public static let maximumLineLength = 4096

    private func serve(_ connection: Connection) async {
        do {
            while let line = try await connection.readFrame(.line, maxFrameSize: Self.maximumLineLength) {
                let answer = String(validating: line.readableBytesView, as: UTF8.self).map { Self.execute($0, on: faults) }
                    ?? "error: a command is UTF-8 text (expected add, remove, list or clear)"
                try await connection.write(ByteBuffer(string: answer + "\n"))
            }
            try await connection.closeWrite()
        } catch {
            // A client that sent a line too long or went away: nothing more to answer.
        }
        await connection.close()
    }

    /// Carries out one command line on `faults`; returns the answer (without the last newline).
    public static func execute(_ line: String, on faults: RelayFaultSet) -> String {
        let words = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let verb = words.first else { return "error: empty command (expected add, remove, list or clear)" }
        let argument = words.count > 1 ? words[1].trimming([" ", "\t"]) : ""
        switch verb {
        case "add":
            guard !argument.isEmpty else { return "error: add needs a fault, e.g. add latency=50ms" }
            do {
                let fault = try RelayFault(parsing: argument)
                let id = faults.add(fault)
                return "ok \(id) \(fault)"
            } catch {
                return "error: \(error.message)"
            }
        case "remove":
            guard let id = Int(argument), id > 0 else { return "error: remove needs a fault number, e.g. remove 2" }
            return faults.remove(id) ? "ok removed \(id)" : "error: no fault \(id) (list shows them)"
        case "list":
            guard argument.isEmpty else { return "error: list takes no argument" }
            let entries = faults.entries
            let listed = entries.map { "\($0.id) \($0.fault)" }.joined(separator: "; ")
            return "ok \(plural(entries.count, "fault"))" + (entries.isEmpty ? "" : ": " + listed)
        case "clear":
            guard argument.isEmpty else { return "error: clear takes no argument" }
            return "ok removed \(plural(faults.clear(), "fault"))"
        default:
            return "error: unknown command '\(visible(verb))' (expected add, remove, list or clear)"
        }
    }

    /// A word as it can be shown in an answer: control characters as `\xNN` (an answer may end
    /// up on a terminal), and at most 64 characters of it.
    static func visible(_ word: Substring) -> String {
        var shown = ""
        for scalar in word.unicodeScalars.prefix(64) {
            if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) {
                shown += "\\x" + padded(Int(scalar.value), 2, radix: 16)
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return word.unicodeScalars.count > 64 ? shown + "…" : shown
    }
}
