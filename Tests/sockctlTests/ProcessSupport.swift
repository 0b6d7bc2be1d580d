import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where the package lives, from this file's path (Tests/sockctlTests/ProcessSupport.swift).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The sockctl binary under test: `$SOCKCTL_BIN`, or the debug build.
/// `make test` builds it before running the tests; a missing binary fails the test.
func sockctlPath() throws -> String {
    let path = ProcessInfo.processInfo.environment["SOCKCTL_BIN"] ?? packageRoot.appendingPathComponent(".build/debug/sockctl").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw HarnessError("sockctl binary not found at \(path): run `swift build` (make test does) first")
    }
    return path
}

/// A required external peer (ncat, socat, nc, tcpdump …), installed by `make test`.
func tool(_ name: String) throws -> String {
    for directory in ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin"] {
        let path = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    throw HarnessError("\(name) is not installed: run `make test`, which installs the test peers")
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a cleanup command without blocking the caller (for `deinit`s on cooperative threads).
func runDetached(_ executable: String, _ arguments: [String]) {
    let thread = Thread {
        if let process = try? Process.run(URL(fileURLWithPath: executable), arguments: arguments) {
            process.waitUntilExit()
        }
    }
    thread.start()
}

/// A scratch directory removed when the test ends.
final class Scratch: @unchecked Sendable {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sockctl-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A child process with stdout and stderr captured to files; killed (by its PID) if a test
/// forgets it, so no test leaves processes behind.
/// A process the test started (killed when the test lets go of it).
///
/// Children inherit the signal mask of the thread that starts them, and the tests' threads
/// block most signals: `timeout(1)`, for one, never gets its SIGALRM in a child. Bound a child
/// with ``wait(timeout:)`` and drive peers as children of their own, not in `sh -c` pipelines.
final class Child: @unchecked Sendable {
    let process = Process()
    let stdoutPath: String
    let stderrPath: String
    private var stdinPipe: Pipe?
    private var stalledPipe: Pipe?
    let name: String

    /// Starts `executable` with `arguments`. `stdin` is a file path, `.pipe` (write with
    /// ``send(_:)``), or nil for /dev/null.
    /// With `stalledStdout`, stdout is a pipe that nobody reads (to test a blocked consumer).
    init(_ executable: String, _ arguments: [String], stdin: StandardInput = .null, scratch: Scratch, name: String? = nil, environment: [String: String]? = nil, stalledStdout: Bool = false) throws {
        let label = name ?? URL(fileURLWithPath: executable).lastPathComponent
        self.name = label
        let unique = UUID().uuidString.prefix(6)
        stdoutPath = scratch.path("\(label)-\(unique).out")
        stderrPath = scratch.path("\(label)-\(unique).err")
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if stalledStdout {
            let pipe = Pipe()
            stalledPipe = pipe
            process.standardOutput = pipe
        } else {
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        switch stdin {
        case .null:
            process.standardInput = FileHandle.nullDevice
        case .file(let path):
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        case .pipe:
            let pipe = Pipe()
            stdinPipe = pipe
            process.standardInput = pipe
        }
        try process.run()
    }

    enum StandardInput {
        case null
        case file(String)
        case pipe
    }

    var pid: Int32 { process.processIdentifier }

    func send(_ text: String) throws {
        try stdinPipe?.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    func closeStdin() throws {
        try stdinPipe?.fileHandleForWriting.close()
    }

    var stdout: Data { (try? Data(contentsOf: URL(fileURLWithPath: stdoutPath))) ?? Data() }
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderr: String { String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: stderrPath))) ?? Data(), as: UTF8.self) }

    /// Waits until stderr contains `text`; fails after `timeout`.
    @discardableResult
    func waitForStderr(_ text: String, timeout: Duration = .seconds(10)) async throws -> String {
        try await waitFor(timeout: timeout, what: "'\(text)' on \(name)'s stderr") { self.stderr.contains(text) ? self.stderr : nil }
    }

    /// Waits until stdout contains `text`.
    @discardableResult
    func waitForStdout(_ text: String, timeout: Duration = .seconds(10)) async throws -> String {
        try await waitFor(timeout: timeout, what: "'\(text)' on \(name)'s stdout") { self.stdoutText.contains(text) ? self.stdoutText : nil }
    }

    /// The port a `sockctl listen` printed in its "listening on" line.
    func listeningPort(timeout: Duration = .seconds(10)) async throws -> Int {
        let text = try await waitForStderr("listening on", timeout: timeout)
        guard let line = text.split(separator: "\n").first(where: { $0.contains("listening on") }),
              let colon = line.split(separator: ",")[0].lastIndex(of: ":"),
              let port = Int(line.split(separator: ",")[0][line.index(after: colon)...].prefix { $0.isNumber })
        else { throw HarnessError("no port in: \(text)") }
        return port
    }

    /// Waits for the process to exit and returns its status; kills it and fails after `timeout`.
    @discardableResult
    func wait(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning {
            if clock.now >= deadline {
                // Polled, not `waitUntilExit()`: off the main thread that spins a run loop.
                kill(process.processIdentifier, SIGKILL)
                for _ in 0..<500 where process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
                throw HarnessError("\(name) did not exit within \(timeout); stderr: \(stderr)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationStatus
    }

    var isRunning: Bool { process.isRunning }

    func signal(_ number: Int32) {
        if process.isRunning { kill(process.processIdentifier, number) }
    }

    deinit {
        // Never block here (deinit runs on the tests' cooperative threads): kill and let
        // Foundation's process monitor reap it.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

@discardableResult
func waitFor<T>(timeout: Duration, what: String, _ probe: () throws -> T?) async throws -> T {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        if let value = try probe() { return value }
        if clock.now >= deadline { throw HarnessError("timed out after \(timeout) waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// Runs a command to completion.
func run(_ executable: String, _ arguments: [String], stdin: Child.StandardInput = .null, timeout: Duration = .seconds(30), scratch: Scratch) async throws -> (status: Int32, stdout: Data, stderr: String) {
    let child = try Child(executable, arguments, stdin: stdin, scratch: scratch)
    let status = try await child.wait(timeout: timeout)
    return (status, child.stdout, child.stderr)
}

/// A TCP/UDP port that is free on 127.0.0.1 right now (for peers that cannot pick their own).
func freePort(udp: Bool = false) throws -> Int {
    // Below the ephemeral range (32768+): a port the kernel hands out for bind(0) can be taken
    // by any test's outgoing connection before the peer that was meant to get it binds it.
    // Each call of this process gets a port of its own, checked free right now.
    for _ in 0..<(portRange.count) {
        let port = nextPort.withLock { next -> Int in
            defer { next = next + 1 >= portRange.upperBound ? portRange.lowerBound : next + 1 }
            return next
        }
        if canBind(port: port, udp: udp) { return port }
    }
    throw HarnessError("no free port in \(portRange)")
}

private let portRange = 20_000..<32_000
private let nextPort = Mutex(20_000 + Int(getpid() % 100) * 120)

private func canBind(port: Int, udp: Bool) -> Bool {
    let descriptor = socket(AF_INET, Int32(udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let length = socklen_t(MemoryLayout<sockaddr_in>.size)
    return withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 }
    }
}

/// Waits until a socket listens on TCP `port` (read from /proc/net, without connecting, so a
/// one-shot peer like `ncat -l` is not used up by the probe).
func waitForTCPListener(port: Int, timeout: Duration = .seconds(10)) async throws {
    let hexPort = String(format: ":%04X ", port)
    do {
        try await probeTCPListener(hexPort: hexPort, port: port, timeout: timeout)
    } catch {
        // Say who was meant to listen there, and in what state it is.
        var seen: [String] = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where entry.allSatisfy(\.isNumber) {
            guard let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let command = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
            guard command.contains("\(port)") else { continue }
            let status = (try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8))?
                .split(separator: "\n").first { $0.hasPrefix("State:") } ?? "?"
            seen.append("\(entry) [\(status)] \(command)")
        }
        throw HarnessError("\(error); processes naming the port: \(seen.isEmpty ? "none" : seen.joined(separator: "; "))")
    }
}

private func probeTCPListener(hexPort: String, port: Int, timeout: Duration) async throws {
    try await waitFor(timeout: timeout, what: "a listener on port \(port)") { () -> Bool? in
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            let text = readProcFile(table)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count > 3, fields[1].hasSuffix(hexPort.dropLast()), fields[3] == "0A" { return true }
            }
        }
        return nil
    }
}

/// A /proc file read to its end: Foundation's String(contentsOfFile:) stops after its first
/// read of a procfs file (which reports size 0), so a table of many sockets came back cut.
func readProcFile(_ path: String) -> String {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return "" }
    defer { close(descriptor) }
    var bytes = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Random bytes written to a file, for transfer tests (one read of /dev/urandom: a loop of
/// per-word random calls would hold a cooperative thread for seconds and starve other tests).
func randomFile(_ path: String, bytes: Int) throws -> Data {
    guard let source = FileHandle(forReadingAtPath: "/dev/urandom") else { throw HarnessError("no /dev/urandom") }
    defer { try? source.close() }
    var data = Data()
    while data.count < bytes {
        guard let chunk = try source.read(upToCount: bytes - data.count), !chunk.isEmpty else { break }
        data.append(chunk)
    }
    try data.write(to: URL(fileURLWithPath: path))
    return data
}
