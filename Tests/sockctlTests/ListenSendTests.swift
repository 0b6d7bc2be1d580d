import Foundation
import NIOCore
import SocketEngine
import TestSupport
import Testing

import Glibc

@Suite(.hangGuard) struct ListenCommandTests {
    @Test func logsClientsAndPrintsASummaryOnSIGINT() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "0", "--echo", "-k"])
        let port = try await listener.listeningPort()
        #expect(listener.stderr.contains("listening on 127.0.0.1:\(port), [::1]:\(port) (tcp)"))
        for address in ["127.0.0.1", "[::1]"] {
            let sent = try await run(try sockctlPath(), ["send", "\(address):\(port)", "12345"])
            #expect(sent.status == 0)
        }
        try await listener.waitForStderr("client 2 from [::1]:")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("client 1 connected from 127.0.0.1:"))
        #expect(listener.stderr.contains("client 2 connected from [::1]:"))
        #expect(listener.stderr.contains("SIGINT: shutting down (again to exit at once)"))
        #expect(listener.stderr.contains("summary: 2 clients, 10 bytes in, 10 bytes out in"))
    }

    /// A listener whose stdout is full and unread cannot finish its orderly shutdown: the bytes
    /// it received must be printed first. The second SIGINT ends it at once.
    @Test func aSecondSIGINTEndsAListenerStuckOnItsOutput() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--recv-only", "--hexdump"], stalledStdout: true)
        let port = try await listener.listeningPort()
        let sender = try await Connector(endpoint: try Endpoint(parsing: "127.0.0.1:\(port)"), options: .patient).connect().0
        try await sender.write(ByteBuffer(string: "to print\n"))
        // Received (the hexdump says so as the bytes come in): printing them blocks.
        try await listener.waitForStderr("< received from")
        listener.signal(SIGINT)
        try await listener.waitForStderr("SIGINT: shutting down")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 130)
        #expect(listener.stderr.contains("SIGINT again: exiting without waiting"))
        await sender.close()
    }

    /// Like `nc -l`: what is on stdin before anyone connects waits for the first client.
    @Test func stdinWaitsForTheFirstClient() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0"], stdin: .pipe)
        let port = try await listener.listeningPort()
        // Typed before anyone is there, and the input ends: both wait for the first client.
        try listener.send("typed early\n")
        listener.closeStdin()
        let client = try await Child(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--recv-only"], name: "client")
        try await client.waitForStdout("typed early\n")
        // The client leaves once it has the line (no idle timer: that would be a bound on time);
        // without -k the listener ends with it.
        client.signal(SIGTERM)
        _ = try await client.wait()
        #expect(client.stdoutText == "typed early\n")
        #expect(try await listener.wait() == 0)
    }

    @Test func allowAndDenyRefuseOutsiders() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k", "--allow", "127.0.0.5/32", "--allow", "::1"])
        let port = try await listener.listeningPort()
        // A client that sends nothing sees a clean close (one that sent data first may see a reset).
        let refused = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--recv-only", "--source", "127.0.0.9"])
        #expect(refused.status == 0, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        try await listener.waitForStderr("refused 127.0.0.9:")
        let admitted = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "ok", "--source", "127.0.0.5"])
        #expect(String(decoding: admitted.stdout, as: UTF8.self) == "ok")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("refused 127.0.0.9:") && listener.stderr.contains("not in --allow"))
        #expect(listener.stderr.contains("1 refused"))
    }

    @Test func respondServesACannedReplyPerFramedRequest() async throws {
        let scratch = try Scratch()
        try "{\"ok\":true}\n".write(toFile: scratch.path("reply.json"), atomically: true, encoding: .utf8)
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--framing", "crlf", "--respond", scratch.path("reply.json"), "--delay", "50ms"])
        let port = try await listener.listeningPort()
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "crlf", "a", "b", "--responses", "2", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let responses = json?["responses"] as? [[String: Any]]
        #expect(responses?.compactMap { $0["text"] as? String } == ["{\"ok\":true}", "{\"ok\":true}"])
        let timings = json?["timings_ms"] as? [String: Any]
        let firstByte = timings?["first_byte"] as? Double ?? 0
        #expect(firstByte >= 50, "the 50 ms delay shows in first_byte (at least): \(firstByte)")
        #expect(json?["ok"] as? Bool == true)
        #expect(json?["bytes_received"] as? Int == 26)
        #expect(try await listener.wait() == 0)
    }
}

@Suite(.hangGuard) struct SendCommandTests {
    /// Twenty pipelined requests to a server that delays each by 100 ms: every answer comes, in
    /// order, none before the delay. (That the delays do not add up is checked in virtual time,
    /// ConnectionTimingTests; how long it takes here is measured by `make bench`.)
    @Test func delayedAnswersComeInOrder() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line", "--delay", "100ms"])
        let port = try await listener.listeningPort()
        let messages = (1...20).map { "request \($0)" }
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "line", "--responses", "20", "--json"] + messages)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let timings = json?["timings_ms"] as? [String: Any]
        let firstByte = timings?["first_byte"] as? Double ?? 0
        #expect(firstByte >= 100, "\(firstByte)")
        let texts = (json?["responses"] as? [[String: Any]])?.compactMap { $0["text"] as? String }
        #expect(texts == messages)
        #expect(try await listener.wait() == 0)
    }

    @Test func aFullDiskOnStdoutIsReportedNotIgnored() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo"])
        let port = try await listener.listeningPort()
        let result = try await run("/bin/sh", ["-c", "'\(try sockctlPath())' send 127.0.0.1:\(port) hello > /dev/full"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("sockctl send: error: writing output: No space left on device"), "\(result.stderr)")
        _ = try await listener.wait()
    }

    @Test func jsonReportsTheFailureKindToo() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "x", "--json"])
        #expect(result.status == 1)
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        #expect(json?["ok"] as? Bool == false)
        let error = json?["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "refused")
        withExtendedLifetime(closed) {}
    }

    @Test func messagesComeFromStdinWhenNoneAreGiven() async throws {
        let scratch = try Scratch()
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "length:2"])
        let port = try await listener.listeningPort()
        try Data([0, 1, 2, 0xff]).write(to: URL(fileURLWithPath: scratch.path("binary")))
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "length:2", "--json"], stdin: .file(scratch.path("binary")))
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let responses = json?["responses"] as? [[String: Any]]
        #expect(responses?.first?["base64"] as? String == "AAEC/w==")
        #expect(json?["bytes_sent"] as? Int == 6)
    }

    @Test func repeatRunsTheExchangeOnOneConnection() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line"])
        let port = try await listener.listeningPort()
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "line", "-e", "ping\\tpong", "--repeat", "3"])
        #expect(result.status == 0)
        #expect(String(decoding: result.stdout, as: UTF8.self) == "ping\tpong\nping\tpong\nping\tpong\n")
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("client 1 "))
        #expect(!listener.stderr.contains("client 2 "))
    }
}
