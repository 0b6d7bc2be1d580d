import CTestStartup
import Foundation
import Subprocess
import SocketEngine
import Synchronization

import Glibc

import SystemPackage

/// A process a test started: sockctl itself or a peer (ncat, socat, tcpdump, Python …).
///
/// Everything about it is an event the test waits on, never a duration: a piece of text on its
/// stdout or stderr (read as it comes by a thread of its own, so a busy cooperative pool does not
/// delay it), its exit (from swift-subprocess's process monitor). A wait for text fails at once
/// if the stream ends without it, with what the stream did say. Children get a clean signal mask
/// (swift-subprocess resets it), and are killed by their PID when the test lets go of them, so no
/// test leaves processes behind. Hangs are caught by the suite's time limit, not here.
public final class Child: Sendable {
    public enum StandardInput: Sendable {
        /// /dev/null.
        case null
        /// Read from this file.
        case file(String)
        /// A pipe the test writes to with ``send(_:)`` and closes with ``closeStdin()``.
        case pipe
    }

    public let name: String
    public let pid: Int32
    private let output: OutputCollector
    private let errors: OutputCollector
    private let exit: AsyncMonitor<Result<Int32, HarnessError>?>
    private let stdinWriter: Mutex<Int32?>
    /// The read end of a pipe nobody reads (``init(_:_:stdin:name:environment:stalledStdout:)``).
    private let stalledReader: Int32?

    /// Starts `executable` with `arguments`; returns once it runs.
    ///
    /// - Parameter stalledStdout: stdout is a pipe that is already full and that nobody reads:
    ///   the child's first write to it blocks, for good (a stalled consumer, a paused pager).
    /// - Parameter workingDirectory: where it runs (the test's own by default).
    public init(
        _ executable: String, _ arguments: [String], stdin: StandardInput = .null, name: String? = nil,
        environment: [String: String] = [:], stalledStdout: Bool = false, workingDirectory: String? = nil
    ) async throws {
        self.name = name ?? URL(fileURLWithPath: executable).lastPathComponent
        let outPipe = try Self.makePipe()
        if stalledStdout { try Self.fill(outPipe.write) }
        let errPipe = try Self.makePipe()
        var inputFD: Int32?
        var writer: Int32?
        switch stdin {
        case .null:
            break
        case .file(let path):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw HarnessError("cannot open \(path) for \(self.name)'s stdin") }
            inputFD = descriptor
        case .pipe:
            let pipe = try Self.makePipe()
            inputFD = pipe.read
            writer = pipe.write
        }
        stdinWriter = Mutex(writer)
        stalledReader = stalledStdout ? outPipe.read : nil
        output = OutputCollector(name: "\(self.name)'s stdout")
        errors = OutputCollector(name: "\(self.name)'s stderr")
        if !stalledStdout { output.drain(outPipe.read) } else { output.finishUnread() }
        errors.drain(errPipe.read)

        let exit = AsyncMonitor<Result<Int32, HarnessError>?>(nil)
        self.exit = exit
        let started = AsyncMonitor<Result<Int32, HarnessError>?>(nil)
        let label = self.name
        let variables = environment.reduce(into: [Subprocess.Environment.Key: String?]()) { $0[.init(stringLiteral: $1.key)] = $1.value }
        let input = inputFD
        Task.detached {
            do {
                let result = try await Subprocess.run(
                    .path(FilePath(executable)),
                    arguments: Arguments(arguments),
                    environment: .inherit.updating(variables),
                    workingDirectory: workingDirectory.map { FilePath($0) },
                    input: input.map { .fileDescriptor(FileDescriptor(rawValue: $0), closeAfterSpawningProcess: true) } ?? .fileDescriptor(FileDescriptor(rawValue: Self.devNull()), closeAfterSpawningProcess: true),
                    output: .fileDescriptor(FileDescriptor(rawValue: outPipe.write), closeAfterSpawningProcess: true),
                    error: .fileDescriptor(FileDescriptor(rawValue: errPipe.write), closeAfterSpawningProcess: true)
                ) { execution in
                    started.update { $0 = .success(execution.processIdentifier.value) }
                }
                let status: Int32
                switch result.terminationStatus {
                case .exited(let code): status = code
                case .signaled(let signal): status = 128 + signal
                }
                exit.update { $0 = .success(status) }
            } catch {
                let failure = HarnessError("\(label) could not be started: \(error)")
                started.update { if $0 == nil { $0 = .failure(failure) } }
                exit.update { $0 = .failure(failure) }
            }
        }
        pid = try await started.wait { $0 }.get()
    }

    deinit {
        if isRunning { kill(pid, SIGKILL) }
        if let writer = stdinWriter.withLock({ $0 }) { close(writer) }
        if let stalledReader { close(stalledReader) }
    }

    // MARK: Output

    /// Everything written to stdout so far.
    public var stdout: Data { Data(output.bytes) }
    public var stdoutText: String { String(decoding: output.bytes, as: UTF8.self) }
    /// Everything written to stderr so far.
    public var stderr: String { String(decoding: errors.bytes, as: UTF8.self) }

    /// Waits until stderr contains `text`; returns all of stderr then.
    @discardableResult
    public func waitForStderr(_ text: String) async throws -> String {
        try await errors.wait(for: text)
    }

    /// Waits until stdout contains `text`; returns all of stdout then.
    @discardableResult
    public func waitForStdout(_ text: String) async throws -> String {
        try await output.wait(for: text)
    }

    /// Waits until `text` appears `count` times on stdout.
    public func waitForStdout(_ text: String, count: Int) async throws {
        _ = try await output.wait(for: text, count: count)
    }

    /// Waits until `text` appears `count` times on stderr.
    public func waitForStderr(_ text: String, count: Int) async throws {
        _ = try await errors.wait(for: text, count: count)
    }

    /// Waits until stdout ends (the process closed it, usually by exiting).
    public func waitForEndOfStdout() async throws {
        try await output.waitForEnd()
    }

    // MARK: Input

    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    public func send(_ bytes: [UInt8]) throws {
        guard let writer = stdinWriter.withLock({ $0 }) else { throw HarnessError("\(name) has no stdin pipe") }
        if let failure = bytes.withUnsafeBytes({ writeFully($0, to: writer) }) {
            throw HarnessError("writing to \(name)'s stdin: \(String(cString: strerror(failure)))")
        }
    }

    public func closeStdin() {
        if let writer = stdinWriter.withLock({ descriptor -> Int32? in
            defer { descriptor = nil }
            return descriptor
        }) {
            close(writer)
        }
    }

    // MARK: Life

    public var isRunning: Bool { exit.value == nil }

    /// Waits for the process to exit, and for all it wrote to stdout and stderr to be read,
    /// and returns its status (128 + N when signal N ended it).
    @discardableResult
    public func wait() async throws -> Int32 {
        let status: Int32
        do {
            status = try await exit.wait { $0 }.get()
        } catch is CancellationError {
            throw HarnessError.cancelled("waiting for \(name) (pid \(pid)) to exit; its stderr: \(stderr)")
        }
        try await output.waitForEnd()
        try await errors.waitForEnd()
        return status
    }

    /// Sends `number` to the process, if it still runs.
    public func signal(_ number: Int32) {
        if isRunning { kill(pid, number) }
    }

    // MARK: Plumbing

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard ctest_pipe_cloexec(&descriptors) == 0 else { throw HarnessError("pipe: \(String(cString: strerror(errno)))") }
        return (descriptors[0], descriptors[1])
    }

    /// Shrinks the pipe to one page and fills it, so the next write to it blocks.
    private static func fill(_ writeEnd: Int32) throws {
        _ = fcntl(writeEnd, 1031 /* F_SETPIPE_SZ */, 4096)
        let flags = fcntl(writeEnd, F_GETFL)
        _ = fcntl(writeEnd, F_SETFL, flags | O_NONBLOCK)
        let page = [UInt8](repeating: 0x2E, count: 4096)
        while page.withUnsafeBytes({ write(writeEnd, $0.baseAddress, $0.count) }) > 0 {}
        guard errno == EAGAIN else { throw HarnessError("filling a pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(writeEnd, F_SETFL, flags)
    }

    private static func devNull() -> Int32 {
        open("/dev/null", O_RDONLY | O_CLOEXEC)
    }
}

/// What a child wrote to one of its output streams, collected by a thread of its own.
final class OutputCollector: Sendable {
    private struct State: Sendable {
        var bytes: [UInt8] = []
        var ended = false
    }

    let name: String
    private let state = AsyncMonitor(State())

    init(name: String) {
        self.name = name
    }

    var bytes: [UInt8] { state.value.bytes }

    /// Reads `descriptor` on a new thread until end of file, then closes it.
    func drain(_ descriptor: Int32) {
        let state = self.state
        let thread = Thread {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                state.update { $0.bytes += chunk[0..<count] }
            }
            close(descriptor)
            state.update { $0.ended = true }
        }
        thread.start()
    }

    /// The stream is never read (a stalled consumer): it has nothing and ends at once.
    func finishUnread() {
        state.update { $0.ended = true }
    }

    func wait(for text: String, count: Int = 1) async throws -> String {
        let needle = Array(text.utf8)
        let name = self.name
        let what = "\(count == 1 ? "" : "\(count) × ")'\(text)'"
        return try await explained("waiting for \(what)") {
            try await state.wait { state -> String? in
                if Self.occurrences(of: needle, in: state.bytes) >= count { return String(decoding: state.bytes, as: UTF8.self) }
                if state.ended {
                    throw HarnessError("\(name) ended without \(what); it said: \(String(decoding: state.bytes, as: UTF8.self))")
                }
                return nil
            }
        }
    }

    func waitForEnd() async throws {
        try await explained("waiting for its end") { try await state.wait { $0.ended ? () : nil } }
    }

    /// Runs `body`; if the test's time limit cancels it, says what was awaited and what the
    /// stream held by then (a bare `CancellationError` would not say where a test hung).
    private func explained<R>(_ activity: String, _ body: () async throws -> R) async throws -> R {
        do {
            return try await body()
        } catch is CancellationError {
            throw HarnessError.cancelled("\(activity) in \(name); it said: \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    private static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        guard !needle.isEmpty, haystack.count >= needle.count else { return 0 }
        var found = 0
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) {
                found += 1
                index += needle.count
            } else {
                index += 1
            }
        }
        return found
    }
}

/// A problem in the test harness itself (a peer missing, a process that would not start).
public struct HarnessError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// A wait cancelled (by the test's time limit): the error,
    /// also printed on stderr at once — Swift Testing records the time limit and drops what the
    /// test throws after it, and this line is then the only word of where the test hung.
    static func cancelled(_ what: String) -> HarnessError {
        let error = HarnessError("cancelled \(what)")
        FileHandle.standardError.write(Data("harness: \(error.description)\n".utf8))
        return error
    }
}
