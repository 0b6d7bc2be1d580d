import Foundation
import TestSupport

import Glibc

/// One README example being run: its working directory with the files it names, the loopback
/// servers it talks to, the mapping of its hosts onto them, and the sockctl process itself.
///
/// A runner (``ReadmeRunner``) sets the scene — files, servers, ``replace(_:with:)`` — then
/// starts the command as written (its pipeline too: `echo … |` feeds stdin, `| jq .` reads what
/// it printed), pokes it and checks what it did. Every check throws an ``ExampleFailure`` that
/// says what went wrong; the test adds which example, the command actually run and its output.
/// Nothing waits for a duration: each wait is for an event (a line, an exit, a port).
final class ExampleRun {
    let example: ReadmeExample
    private let scratch: Scratch
    /// The directory every command of the example runs in; the files it names are put here.
    var directory: String { scratch.url.path }
    private var replacements: [(written: String, actual: String)] = []
    private var added: [String] = []
    private var servers: [Child] = []
    /// The example's sockctl, once started.
    private(set) var process: Child?
    /// The command line actually run, once started (for failure messages).
    private(set) var ranCommand: String?
    private var consumers: [ShellCommand.Stage] = []
    private var outputMappings: [(actual: String, written: String)] = []
    /// What the last command the example pipes its output into (`| jq .x`) printed.
    private(set) var consumerOutput = ""

    init(_ example: ReadmeExample) throws {
        self.example = example
        scratch = try Scratch()
    }

    // MARK: Files

    /// Writes `text` to `name` in the working directory.
    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
    }

    /// Writes `bytes` to `name` in the working directory.
    func write(_ name: String, bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
    }

    /// Copies the test certificate or key `source` (``TestCertificates``: ca.pem, server.pem,
    /// server.key, client.pem, …) to `name` in the working directory.
    func certificate(_ source: String, as name: String? = nil) async throws {
        let from = try await TestCertificates.shared.directory() + "/" + source
        try FileManager.default.copyItem(atPath: from, toPath: path(name ?? source))
    }

    /// Copies a capture of `Tests/Goldens` to `name` in the working directory.
    func golden(_ file: String, as name: String) throws {
        try FileManager.default.copyItem(atPath: packageRoot.appendingPathComponent("Tests/Goldens/\(file)").path, toPath: path(name))
    }

    /// The absolute path of `name` in the working directory.
    func path(_ name: String) -> String { scratch.path(name) }

    /// The public key pin (`sha256//BASE64`) of a test certificate, as openssl computes it.
    func pin(of certificate: String) async throws -> String {
        let directory = try await TestCertificates.shared.directory()
        let script = "openssl x509 -pubkey -noout -in '\(directory)/\(certificate)' | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"
        let result = try await run("/bin/sh", ["-c", script])
        let base64 = String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !base64.isEmpty else { throw ExampleFailure("could not compute the pin of \(certificate): \(result.stderr)") }
        return "sha256//" + base64
    }

    // MARK: Servers

    /// Starts `sockctl listen ARGUMENTS` in the working directory and waits until it listens.
    @discardableResult
    func listen(_ arguments: String...) async throws -> ExampleServer {
        try await listen(arguments)
    }

    /// Starts another process the example needs (a peer, or a sockctl the README runs beside
    /// it); it is killed, if still running, when the run ends.
    @discardableResult
    func background(_ executable: String, _ arguments: [String], stdin: Child.StandardInput = .null, name: String) async throws -> Child {
        let child = try await Child(executable, arguments, stdin: stdin, name: name, workingDirectory: directory)
        servers.append(child)
        return child
    }

    /// Runs another sockctl to its end in the working directory (a client that pokes the
    /// example, or a step before it); fails unless it exits with `status`.
    @discardableResult
    func sockctl(_ arguments: [String], stdin: Child.StandardInput = .null, status expected: Int32 = 0) async throws -> (stdout: String, stderr: String) {
        let result = try await run(try sockctlPath(), arguments, stdin: stdin, workingDirectory: directory)
        let stdout = String(decoding: result.stdout, as: UTF8.self)
        guard result.status == expected else {
            throw ExampleFailure("the poke `sockctl \(arguments.joined(separator: " "))` exited with \(result.status), not \(expected)\n  its stdout: \(stdout)\n  its stderr: \(result.stderr)")
        }
        return (stdout, result.stderr)
    }

    // MARK: The command

    /// Runs the example with `written` (a host:port, a path, a pin …) replaced by `actual`: how
    /// the example's hosts are mapped onto the servers the run started. The example must hold
    /// `written`, so a changed README example fails here rather than run something else.
    func replace(_ written: String, with actual: String) {
        replacements.append((written, actual))
    }

    /// Reads `actual` in what the example printed as `written` before it is held against the
    /// output README shows: a port the runner chose printed where README shows its own
    /// (`127.0.0.1 40123 (tcp) open` for `127.0.0.1 7000 (tcp) open`).
    func showAs(_ actual: String, _ written: String) {
        outputMappings.append((actual, written))
    }

    /// Runs sockctl with `arguments` added at the end (a `--cafile` for the test CA, …).
    func add(_ arguments: String...) {
        added += arguments
    }

    /// How the example's stdin is fed.
    enum Input {
        /// As the example says (`echo … |`, `< FILE`), else a pipe held open that the runner
        /// types into with ``type(_:)`` — a terminal nobody types at.
        case asWritten
        /// Nothing: /dev/null.
        case null
    }

    /// Starts the example's sockctl (after its `echo …`/`printf …` producer, if it has one).
    func start(_ input: Input = .asWritten) async throws {
        var text = example.command
        for (written, actual) in replacements {
            guard text.contains(written) else {
                throw ExampleFailure("its runner replaces '\(written)', which the example does not hold: update the runner in ReadmeRunners")
            }
            text = text.replacingOccurrences(of: written, with: actual)
        }
        let command: ShellCommand
        do { command = try ShellCommand.parse(text) } catch {
            throw ExampleFailure("cannot read the command line: \(error)")
        }
        guard let stage = command.sockctlStage else { throw ExampleFailure("the command runs no sockctl") }
        let words = Array(command.stages[stage].words.dropFirst()) + added
        consumers = Array(command.stages[(stage + 1)...])
        ranCommand = "sockctl " + words.map(Self.quoted).joined(separator: " ") + (consumers.isEmpty ? "" : " | " + consumers.map(\.text).joined(separator: " | "))

        var stdin: Child.StandardInput = input == .null ? .null : .pipe
        if stage > 0 {
            let producer = command.stages[..<stage].map(\.text).joined(separator: " | ")
            let produced = try await run("/bin/sh", ["-c", producer], workingDirectory: directory)
            guard produced.status == 0 else { throw ExampleFailure("its input `\(producer)` failed: \(produced.stderr)") }
            try produced.stdout.write(to: URL(fileURLWithPath: path(".stdin")))
            stdin = .file(path(".stdin"))
        } else if let file = command.stages[stage].input {
            stdin = .file(file.hasPrefix("/") ? file : path(file))
        }
        process = try await Child(try sockctlPath(), words, stdin: stdin, name: "sockctl", workingDirectory: directory)
    }

    private var running: Child {
        get throws {
            guard let process else { throw ExampleFailure("the runner did not start the example") }
            return process
        }
    }

    /// Writes to the example's stdin, as if typed.
    func type(_ text: String) throws {
        try running.send(text)
    }

    /// Writes bytes to the example's stdin.
    func type(bytes: [UInt8]) throws {
        try running.send(bytes)
    }

    /// Ends the example's stdin (Ctrl-D).
    func endInput() throws {
        try running.closeStdin()
    }

    func waitForStdout(_ text: String, count: Int = 1) async throws {
        try await running.waitForStdout(text, count: count)
    }

    func waitForStderr(_ text: String, count: Int = 1) async throws {
        try await running.waitForStderr(text, count: count)
    }

    /// Waits for `event` of another process (a server's line, a client's output) while the
    /// example runs: if the example ends first, fails saying so instead of waiting for the hang
    /// guard.
    func whileRunning(_ what: String, _ event: @escaping @Sendable () async throws -> Void) async throws {
        let process = try running
        let happened = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await event()
                return true
            }
            group.addTask {
                _ = try await process.wait()
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        if !happened {
            throw ExampleFailure("it ended (exit status \(try await process.wait())) before \(what)")
        }
    }

    var stdout: String { process?.stdoutText ?? "" }
    var stderr: String { process?.stderr ?? "" }

    /// Waits for the example to end and checks its exit status, then runs what the example pipes
    /// its output into (`| jq .`) over what it printed, which must succeed too.
    func expectExit(_ expected: Int32...) async throws {
        try await finish(expecting: expected)
    }

    /// Runs the example to its end: started (stdin as written, else /dev/null) and awaited.
    func runToEnd(_ expected: Int32...) async throws {
        try await start(.null)
        try await finish(expecting: expected)
    }

    private func finish(expecting expected: [Int32]) async throws {
        let status = try await running.wait()
        guard expected.contains(status) else {
            throw ExampleFailure("exited with \(status), expected \(expected.map(String.init).joined(separator: " or "))")
        }
        for consumer in consumers {
            try (process?.stdout ?? Data()).write(to: URL(fileURLWithPath: path(".stdout")))
            let result = try await run("/bin/sh", ["-c", consumer.text], stdin: .file(path(".stdout")), workingDirectory: directory)
            guard result.status == 0 else {
                throw ExampleFailure("`\(consumer.text)` over its output exited with \(result.status): \(result.stderr)")
            }
            consumerOutput = String(decoding: result.stdout, as: UTF8.self)
        }
    }

    /// Ctrl-C: SIGINT, then its end with `expected` (0 for servers, 130 for clients).
    func interrupt(expecting expected: Int32) async throws {
        try running.signal(SIGINT)
        try await finish(expecting: [expected])
    }

    // MARK: Checks

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw ExampleFailure(message()) }
    }

    func expectStdout(contains text: String) throws {
        try expect(stdout.contains(text), "stdout does not contain '\(text)'")
    }

    func expectStderr(contains text: String) throws {
        try expect(stderr.contains(text), "stderr does not contain '\(text)'")
    }

    /// The file `name` exists in the working directory and is not empty.
    func expectFile(_ name: String) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: path(name))[.size] as? Int) ?? nil
        try expect((size ?? 0) > 0, "it did not write \(name)")
    }

    /// The JSON object of the file `name` (or of stdout for nil).
    func json(_ name: String? = nil) throws -> [String: Any] {
        let data = try name.map { try Data(contentsOf: URL(fileURLWithPath: path($0))) } ?? (process?.stdout ?? Data())
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ExampleFailure("\(name ?? "stdout") is not a JSON object: \(String(decoding: data.prefix(400), as: UTF8.self))")
        }
        return object
    }

    /// The output README shows beneath the command was printed (``ShownOutput``).
    func expectShownOutput(_ rules: ShownOutput.Rules = .varying) throws {
        guard !example.shownOutput.isEmpty else { throw ExampleFailure("README shows no output for it (its runner expects some)") }
        func mapped(_ text: String) -> String {
            outputMappings.reduce(text) { $0.replacingOccurrences(of: $1.actual, with: $1.written) }
        }
        if let mismatch = ShownOutput.mismatch(shown: example.shownOutput, stdout: mapped(stdout), stderr: mapped(stderr), rules: rules) {
            throw ExampleFailure(mismatch)
        }
    }

    /// What a failure report adds: the command run, where, and what it printed.
    var context: String {
        guard let ranCommand else { return "  (not started)" }
        func tail(_ text: String) -> String {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let shown = lines.suffix(25).joined(separator: "\n    ")
            return lines.count > 25 ? "(last 25 of \(lines.count) lines)\n    " + shown : shown
        }
        return """
              ran: \(ranCommand)
              in: \(directory)
              its stdout: \(tail(stdout))
              its stderr: \(tail(stderr))
            """
    }

    private static func quoted(_ word: String) -> String {
        word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=,@%+[]".contains($0) } && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A server a README example talks to.
struct ExampleServer: Sendable {
    let child: Child
    /// Its port (0 for a Unix socket).
    let port: Int
    /// `127.0.0.1:PORT`.
    var address: String { "127.0.0.1:\(port)" }
}

/// What went wrong with a README example.
struct ExampleFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
