import Foundation
import TestSupport
import Testing


/// One exit-status mapping: for every library's error type, a usage error (the command line
/// asked for something that cannot be) exits 2 and a failure of the operation exits 1, each
/// with one `sockctl CMD: error: …` line.
@Suite("exit status", .hangGuard)
struct ExitStatusTests {
    /// A file that is no capture and no report.
    static func junk(_ scratch: Scratch) throws -> String {
        let path = scratch.path("junk.bin")
        try Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func expect(_ arguments: [String], status: Int32, saying words: String, _ what: Comment) async throws {
        let result = try await run(try sockctlPath(), arguments)
        #expect(result.status == status, "\(what): \(arguments.joined(separator: " ")): \(result.stderr)")
        #expect(result.stderr.contains("error: ") && result.stderr.contains(words), "\(what): \(result.stderr)")
    }

    @Test func socketEngineErrors() async throws {
        try await Self.expect(["send", "127.0.0.1:1", "x", "--source", unresolvableHost], status: 2, saying: "source address", "usage")
        let closed = try ClosedPort()
        try await Self.expect(["send", "127.0.0.1:\(closed.port)", "x"], status: 1, saying: "connection refused", "failure")
        withExtendedLifetime(closed) {}
    }

    @Test func recordingErrors() async throws {
        let capture = GoldenCase.directory.appendingPathComponent("live-lo-tcp4.pcap").path
        try await Self.expect(["replay", capture, "127.0.0.1:1", "--stream", "99"], status: 2, saying: "no stream 99", "usage")
        let scratch = try Scratch()
        try await Self.expect(["replay", try Self.junk(scratch), "127.0.0.1:1"], status: 1, saying: "unknown file format", "failure")
    }

    @Test func loadGenErrors() async throws {
        try await Self.expect(["loadtest", "127.0.0.1:1", "--duration", "1s", "--threshold", "unmatched<lots"], status: 2, saying: "'lots' is not a number", "usage")
        let scratch = try Scratch()
        try await Self.expect(["report", "merge", try Self.junk(scratch)], status: 1, saying: "not a sockctl load-test result", "failure")
    }

    @Test func captureErrors() async throws {
        try await Self.expect(["capture", "-i", "nosuch0", "-c", "1"], status: 2, saying: "nosuch0", "usage")
        let scratch = try Scratch()
        try await Self.expect(["capture", "-r", try Self.junk(scratch), "tcp"], status: 1, saying: "unknown file format", "failure")
    }

    @Test func packetDecodingErrors() async throws {
        let scratch = try Scratch()
        try await Self.expect(["capture", "-r", try Self.junk(scratch)], status: 1, saying: "unknown file format", "failure")
    }

    /// `--metrics-listen` names no local address: the command line's mistake, before any
    /// connection (listen, proxy and loadtest alike); an address in use is a failure of the run.
    @Test(arguments: [["listen", "0"], ["proxy", "0", "127.0.0.1:1"], ["loadtest", "127.0.0.1:1", "--requests", "1"]])
    func metricsExportErrors(_ command: [String]) async throws {
        try await Self.expect(command + ["--metrics-listen", "999.0.0.1:1"], status: 2, saying: "--metrics-listen 999.0.0.1:1", "usage")
        let busy = try PortBlock(count: 1, open: [0])  // a port something listens on
        let port = busy.first
        try await Self.expect(command + ["--metrics-listen", "127.0.0.1:\(port)"], status: 1, saying: "address already in use", "failure")
        withExtendedLifetime(busy) {}
    }
}
