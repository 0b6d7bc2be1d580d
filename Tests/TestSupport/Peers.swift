import CTestStartup
import Foundation

import Glibc

/// Where the package lives, from this file's path (Tests/TestSupport/Peers.swift).
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The sockctl binary under test: `$SOCKCTL_BIN`, or the debug build. `make test` builds the
/// release build and points `SOCKCTL_BIN` at it (the binary users run, and 10-40× less CPU per
/// command line than a debug build); a missing binary fails the test.
public func sockctlPath() throws -> String {
    let path = ProcessInfo.processInfo.environment["SOCKCTL_BIN"] ?? packageRoot.appendingPathComponent(".build/debug/sockctl").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw HarnessError("sockctl binary not found at \(path): run `swift build` (make test does) first")
    }
    return path
}

/// A required external peer (ncat, socat, nc, tcpdump …), installed by `make test`.
public func tool(_ name: String) throws -> String {
    for directory in ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin"] {
        let path = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    throw HarnessError("\(name) is not installed: run `make test`, which installs the test peers")
}

/// The soft descriptor limit the test process raised itself to when it started (its hard limit).
public var startupDescriptorLimit: Int { ctest_startup_descriptor_limit() }

/// A scratch directory removed when the test ends.
public final class Scratch: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sockctl-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Runs a command to its end and returns its status and output.
public func run(
    _ executable: String, _ arguments: [String], stdin: Child.StandardInput = .null, environment: [String: String] = [:],
    workingDirectory: String? = nil
) async throws -> (status: Int32, stdout: Data, stderr: String) {
    let child = try await Child(executable, arguments, stdin: stdin, environment: environment, workingDirectory: workingDirectory)
    let status = try await child.wait()
    return (status, child.stdout, child.stderr)
}

extension Child {
    /// The port a `sockctl listen` printed in its "listening on" line.
    public func listeningPort() async throws -> Int {
        let text = try await waitForStderr("listening on")
        guard let line = text.split(separator: "\n").first(where: { $0.contains("listening on") }),
              let colon = line.split(separator: ",")[0].lastIndex(of: ":"),
              let port = Int(line.split(separator: ",")[0][line.index(after: colon)...].prefix { $0.isNumber })
        else { throw HarnessError("no port in: \(text)") }
        return port
    }

    /// The port socat (started with `-d -d` and `TCP-LISTEN:0` or `UDP-LISTEN:0`) reported:
    /// `listening on AF=2 127.0.0.1:PORT` (`listening on UDP AF=2 …` for UDP).
    public func socatPort() async throws -> Int {
        let text = try await waitForStderr(" AF=")
        guard let line = text.split(separator: "\n").first(where: { $0.contains("listening on") && $0.contains(" AF=") }),
              let port = line.split(separator: ":").last.flatMap({ Int($0.prefix { $0.isNumber }) })
        else { throw HarnessError("no port in socat's: \(text)") }
        return port
    }

    /// The TCP port this process listens on, from its own sockets in /proc: for peers that bind
    /// port 0 and do not say which port they got (ncat prints `Listening on 127.0.0.1:0`). Call it
    /// once the peer has said it listens.
    public func listeningTCPPort() throws -> Int {
        let inodes = Set(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).compactMap { entry -> String? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(entry)"),
                  target.hasPrefix("socket:[") else { return nil }
            return String(target.dropFirst(8).dropLast())
        })
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            for line in readProcFile(table).split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])),
                      let port = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
                else { continue }
                return port
            }
        }
        throw HarnessError("\(name) (pid \(pid)) listens on no TCP port")
    }

    /// The UDP port this process has bound, from its own sockets in /proc.
    public func boundUDPPort() throws -> Int {
        let inodes = Set(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).compactMap { entry -> String? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(entry)"),
                  target.hasPrefix("socket:[") else { return nil }
            return String(target.dropFirst(8).dropLast())
        })
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            for line in readProcFile(table).split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, inodes.contains(String(fields[9])),
                      let port = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }), port != 0
                else { continue }
                return port
            }
        }
        throw HarnessError("\(name) (pid \(pid)) has bound no UDP port")
    }
}

/// A /proc file read to its end: Foundation's String(contentsOfFile:) stops after its first
/// read of a procfs file (which reports size 0), so a table of many sockets came back cut.
public func readProcFile(_ path: String) -> String {
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

/// Random bytes written to a file, for transfer tests: one read of /dev/urandom, on a thread
/// of its own (a big payload made on the cooperative pool would hold up the tests beside it).
public func randomFile(_ path: String, bytes: Int) async throws -> Data {
    try await onOwnThread {
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
}
