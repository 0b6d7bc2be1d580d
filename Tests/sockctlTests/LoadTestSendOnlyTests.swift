import Foundation
import TestSupport
import Testing

import Glibc

/// Send-only runs (no `--framing`): the connections write runs of messages prepared at once as
/// fast as the server takes them, on event loops and on threads of plain system calls.
extension LoadTestCommandTests {
    /// The bytes a `listen` server read, summed over its clients' disconnect lines.
    static func bytesIn(_ listenerStderr: String) -> Int {
        listenerStderr.split(separator: "\n").filter { $0.contains("disconnected after") }.reduce(0) { total, line in
            guard let open = line.range(of: "("), let end = line.range(of: " bytes in", range: open.upperBound..<line.endIndex) else { return total }
            return total + (Int(line[open.upperBound..<end.lowerBound]) ?? 0)
        }
    }

    /// `--requests` splits over the connections and is sent exactly — 100,001 messages over 3
    /// connections (a prepared run holds 6,554 of them, so every connection's last run is cut
    /// short) — and the server reads every byte counted as sent.
    @Test(arguments: ["events", "threads"])
    func aSendOnlyRunSendsExactlyItsRequests(io: String) async throws {
        let server = try await Server.start(["--discard"])
        defer { server.child.signal(SIGKILL) }
        let result = try await loadtest([server.target, "-c", "3", "--requests", "100001", "--message", "0123456789", "--io", io])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 100_001)
        #expect(result.int("bytes/sent") == 1_000_010)
        #expect((result.json["config"] as? [String: Any])?["io"] as? String == io)
        try await server.child.waitForStderr("disconnected after", count: 3)
        #expect(Self.bytesIn(server.child.stderr) == 1_000_010, "\(server.child.stderr)")
    }

    /// With placeholders each message is still built with its own numbers: one connection's
    /// 20,000 messages arrive in order, each once.
    @Test(arguments: ["events", "threads"])
    func aSendOnlyRunWithPlaceholdersNumbersEachMessage(io: String) async throws {
        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0"], name: "listener")
        defer { server.signal(SIGKILL) }
        let port = try await server.listeningPort()
        let result = try await loadtest(["127.0.0.1:\(port)", "-c", "1", "--requests", "20000", "--message", "n{{seq}} ", "--io", io])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("messages/sent") == 20_000)
        try await server.waitForStderr("disconnected after")
        try await server.waitForEndOfStdout()
        let expected = (1...20_000).map { "n\($0) " }.joined()
        #expect(server.stdoutText == expected, "\(server.stdoutText.prefix(200))…")
    }

    /// A server that reads slowly: sending waits for it (nothing piles up unbounded), and every
    /// message counted as sent reaches it before the connections close.
    @Test(arguments: ["events", "threads"])
    func aSlowReaderGetsEveryMessageCountedAsSent(io: String) async throws {
        let script = """
            import socket, sys, time
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.bind(("127.0.0.1", 0)); s.listen(1)
            print(s.getsockname()[1], flush=True)
            c, _ = s.accept(); total = 0
            while True:
                b = c.recv(1024)
                if not b: break
                total += len(b); time.sleep(0.0002)
            print("read", total, flush=True)
            """
        let server = try await Child(try tool("python3"), ["-c", script], name: "slow-reader")
        defer { server.signal(SIGKILL) }
        let port = try await server.waitForStdout("\n").split(separator: "\n")[0]
        let result = try await loadtest(["127.0.0.1:\(port)", "-c", "1", "--requests", "300000", "--message", "0123456789", "--io", io])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.int("bytes/sent") == 3_000_000)
        try await server.waitForStdout("read ")
        try await server.waitForEndOfStdout()
        #expect(server.stdoutText.contains("read 3000000\n"), "\(server.stdoutText)")
    }

    /// What a send-only run cannot do is refused before it starts, in one line.
    @Test(arguments: [
        (["127.0.0.1:9", "--requests", "5", "--message", ""], "a send-only run of empty messages sends nothing: give --message or --framing"),
        (["ws://127.0.0.1:9", "--requests", "5", "--io", "threads"], "--io threads: a send-only run (no --framing) works over tcp:// and unix: only"),
    ] as [([String], String)])
    func whatASendOnlyRunCannotDoIsRefused(arguments: [String], message: String) async throws {
        let result = try await run(try sockctlPath(), ["loadtest"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
