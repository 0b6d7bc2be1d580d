import Foundation
import NIOCore
import SocketEngine
import TestSupport
import Testing

import Glibc

/// The words sockctl prints, the same in every command (README "Output: what goes where"): no FIN
/// where there is none (UDP), a Unix client named by its process rather than by nothing or by the
/// listener's own path, `1 byte`, `µs`, report merge naming which file loaded which target, and
/// a line for people never glued to the end of a raw reply.
@Suite("output text", .hangGuard)
struct OutputTextTests {
    @Test func udpSessionsClaimNoFIN() async throws {
        let scratch = try Scratch()
        try Data("ping\n".utf8).write(to: URL(fileURLWithPath: scratch.path("input")))
        let echo = try await Child(try sockctlPath(), ["listen", "udp://127.0.0.1:0", "--echo", "-k"], name: "echo")
        let port = try await echo.listeningPort()
        // Input ends at once; replies are read until none has come for 2s.
        let client = try await run(try sockctlPath(), ["connect", "udp://127.0.0.1:\(port)", "-v"], stdin: .file(scratch.path("input")))
        #expect(client.status == 0, "\(client.stderr)")
        #expect(client.stderr.contains("end of input: nothing more to send (UDP has no FIN)"), "\(client.stderr)")
        #expect(!client.stderr.contains("FIN sent") && !client.stderr.contains("FIN received"), "\(client.stderr)")
        echo.signal(SIGINT)
        #expect(try await echo.wait() == 0)
    }

    /// A Unix client's end has no name: the client's `-v` line says only where it connected, and
    /// the listener names the client by its process, not by the listener's own path.
    @Test func unixClientsAreNamedByTheirProcess() async throws {
        let scratch = try Scratch()
        let path = scratch.path("app.sock")
        let listener = try await Child(try sockctlPath(), ["listen", "unix:\(path)", "--echo", "-k"], name: "listen")
        try await listener.waitForStderr("listening on")
        let client = try await Child(try sockctlPath(), ["connect", "unix:\(path)", "-v"], stdin: .pipe, name: "connect")
        try client.send("hi\n")
        try await client.waitForStdout("hi\n")
        client.closeStdin()
        #expect(try await client.wait() == 0, "\(client.stderr)")
        #expect(client.stderr.contains("connected to \(path) (unix) in "), "\(client.stderr)")
        #expect(!client.stderr.contains(" from "), "\(client.stderr)")
        try await listener.waitForStderr("disconnected after")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("client 1 connected from pid \(client.pid) (uid \(getuid()))\n"), "\(listener.stderr)")
        #expect(!listener.stderr.contains("from unix:\(path)"), "\(listener.stderr)")
    }

    /// One byte is `1 byte` in every count sockctl prints: send's totals, the listener's and the
    /// proxy's client lines and summaries, the hexdump header.
    @Test func oneByteIsOneByte() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k"], name: "listen")
        let port = try await listener.listeningPort()
        let proxy = try await RunningProxy(to: "127.0.0.1:\(port)")
        let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(proxy.port)", "x", "-v", "--hexdump"])
        #expect(sent.status == 0, "\(sent.stderr)")
        try await proxy.child.waitForStderr("disconnected after")
        #expect(try await proxy.interrupt() == 0)
        try await listener.waitForStderr("disconnected after")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(sent.stderr.contains("sent 1 message (1 byte), received 1 response (1 byte)"), "\(sent.stderr)")
        #expect(sent.stderr.contains("> sent to 127.0.0.1:\(proxy.port), 1 byte\n"), "\(sent.stderr)")
        #expect(listener.stderr.contains("(1 byte in, 1 byte out)") && listener.stderr.contains("summary: 1 client, 1 byte in, 1 byte out"), "\(listener.stderr)")
        #expect(proxy.child.stderr.contains("(1 byte up, 1 byte down)") && proxy.child.stderr.contains("summary: 1 client, 1 byte up, 1 byte down"), "\(proxy.child.stderr)")
        for log in [sent.stderr, listener.stderr, proxy.child.stderr] {
            #expect(log.range(of: #"\b1 bytes\b"#, options: .regularExpression) == nil, "\(log)")
        }
    }

    /// Microseconds are `µs` in every duration sockctl words (the loadtest report always said so).
    @Test func microsecondsAreWrittenOneWay() {
        #expect(Duration.microseconds(16).formatted == "16µs")
        #expect(Duration.nanoseconds(933_982).formatted == "933.982µs")
        #expect(Duration.milliseconds(2).formatted == "2ms")
    }

    /// Results of different targets: the error names every file with the target it loaded.
    @Test func reportMergeSaysWhichFileLoadedWhichTarget() async throws {
        let scratch = try Scratch()
        var ports: [Int] = []
        var echoes: [Child] = []
        for _ in 0..<2 {
            let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line", "-k"], name: "echo")
            echoes.append(echo)
            ports.append(try await echo.listeningPort())
        }
        for (part, port) in [("a.json", ports[0]), ("b.json", ports[1]), ("c.json", ports[0])] {
            let made = try await run(try sockctlPath(), ["loadtest", "127.0.0.1:\(port)", "--requests", "5", "--framing", "line", "--json", scratch.path(part)])
            #expect(made.status == 0, "\(made.stderr)")
        }
        for echo in echoes {
            echo.signal(SIGINT)
            #expect(try await echo.wait() == 0)
        }
        let (a, b, c) = (scratch.path("a.json"), scratch.path("b.json"), scratch.path("c.json"))
        let merged = try await run(try sockctlPath(), ["report", "merge", a, b, c])
        #expect(merged.status == 1)
        let expected = "the results are of different targets: \(a) and \(c) loaded 127.0.0.1:\(ports[0]) (tcp), \(b) loaded 127.0.0.1:\(ports[1]) (tcp)"
        #expect(merged.stderr.contains(expected), "\(merged.stderr)")
    }

    /// A raw reply without a newline, then lines for people (Ctrl-C while the reply's end is
    /// awaited): on one terminal, and on one `2>&1` pipe, they start a line of their own; on a
    /// stdout of its own the reply stays exactly the bytes received.
    @Test func aLineForPeopleNeverEndsUpOnTheEndOfARawReply() async throws {
        let server = try await TestServer.start { connection in
            _ = try await connection.read(.available)
            try await connection.write(ByteBuffer(string: "pong"))
            // Never closes: sockctl waits for the end of the reply. (stop() cancels this wait.)
            try await Task.sleep(for: .seconds(3600))
        }
        // No deadline short of the hang guard: the test ends each run with SIGINT once it saw "pong".
        let arguments = ["send", "127.0.0.1:\(server.port)", "ping", "--timeout", "1h"]
        let onTerminal = try await Child(
            try tool("python3"), [Terminal.script, try sockctlPath()] + arguments, stdin: .pipe, name: "send", environment: ["NO_COLOR": "1"])
        try await onTerminal.waitForStdout("pong")
        try onTerminal.pressCtrlC()
        #expect(try await onTerminal.wait() == 130, "\(onTerminal.stdoutText)")
        // The terminal echoes the key as ^C after the reply; the note starts the next line.
        #expect(onTerminal.stdoutText.replacing("^C", with: "").contains("pong\r\nsockctl send: SIGINT: "), "\(onTerminal.stdoutText)")

        // exec: the shell becomes sockctl, whose stderr is its stdout's pipe.
        let shared = try await Child(try tool("sh"), ["-c", "exec \"$0\" \"$@\" 2>&1", try sockctlPath()] + arguments, name: "send 2>&1")
        try await shared.waitForStdout("pong")
        shared.signal(SIGINT)
        #expect(try await shared.wait() == 130)
        #expect(shared.stdoutText.hasPrefix("pong\nsockctl send: SIGINT: "), "\(shared.stdoutText)")

        let apart = try await Child(try sockctlPath(), arguments, name: "send")
        try await apart.waitForStdout("pong")
        apart.signal(SIGINT)
        #expect(try await apart.wait() == 130)
        #expect(apart.stdoutText == "pong")
        #expect(apart.stderr.hasPrefix("sockctl send: SIGINT: "), "\(apart.stderr)")
        await server.stop()
    }
}
