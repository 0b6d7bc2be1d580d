import Foundation
import TestSupport
import Testing

@Suite struct ListenCommandTests {
    @Test func logsClientsAndPrintsASummaryOnSIGINT() async throws {
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "0", "--echo", "-k"], scratch: scratch)
        let port = try await listener.listeningPort()
        #expect(listener.stderr.contains("listening on 127.0.0.1:\(port), [::1]:\(port) (tcp)"))
        for address in ["127.0.0.1", "[::1]"] {
            let sent = try await run(try sockctlPath(), ["send", "\(address):\(port)", "12345"], scratch: scratch)
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

    @Test func aSecondSIGINTEndsAListenerStuckOnItsOutput() async throws {
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--recv-only"], scratch: scratch, stalledStdout: true)
        let port = try await listener.listeningPort()
        // More than a pipe holds: the listener blocks writing to its stdout.
        _ = try randomFile(scratch.path("payload"), bytes: 4 << 20)
        let sender = try Child(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--send-only"], stdin: .file(scratch.path("payload")), scratch: scratch, name: "sender")
        try await listener.waitForStderr("client 1 connected")
        try await Task.sleep(for: .milliseconds(300))
        listener.signal(SIGINT)
        try await listener.waitForStderr("SIGINT: shutting down")
        try await Task.sleep(for: .milliseconds(300))
        listener.signal(SIGINT)
        #expect(try await listener.wait(timeout: .seconds(10)) == 130)
        #expect(listener.stderr.contains("SIGINT again: exiting without waiting"))
        sender.signal(SIGKILL)
    }

    /// Like `nc -l`: what is on stdin before anyone connects waits for the first client.
    @Test func stdinWaitsForTheFirstClient() async throws {
        let scratch = try Scratch()
        try "typed early\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0"], stdin: .file(scratch.path("input")), scratch: scratch)
        let port = try await listener.listeningPort()
        try await Task.sleep(for: .milliseconds(300))
        let client = try Child(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--recv-only", "--idle-timeout", "1s"], scratch: scratch, name: "client")
        try await client.waitForStdout("typed early\n")
        #expect(try await client.wait() == 0)
        #expect(try await listener.wait() == 0)
    }

    @Test func allowAndDenyRefuseOutsiders() async throws {
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k", "--allow", "127.0.0.5/32", "--allow", "::1"], scratch: scratch)
        let port = try await listener.listeningPort()
        // A client that sends nothing sees a clean close (one that sent data first may see a reset).
        let refused = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--recv-only", "--source", "127.0.0.9"], scratch: scratch)
        #expect(refused.status == 0, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        try await listener.waitForStderr("refused 127.0.0.9:")
        let admitted = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "ok", "--source", "127.0.0.5"], scratch: scratch)
        #expect(String(decoding: admitted.stdout, as: UTF8.self) == "ok")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("refused 127.0.0.9:") && listener.stderr.contains("not in --allow"))
        #expect(listener.stderr.contains("1 refused"))
    }

    @Test func respondServesACannedReplyPerFramedRequest() async throws {
        let scratch = try Scratch()
        try "{\"ok\":true}\n".write(toFile: scratch.path("reply.json"), atomically: true, encoding: .utf8)
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--framing", "crlf", "--respond", scratch.path("reply.json"), "--delay", "50ms"], scratch: scratch)
        let port = try await listener.listeningPort()
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "crlf", "a", "b", "--responses", "2", "--json"], scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let responses = json?["responses"] as? [[String: Any]]
        #expect(responses?.compactMap { $0["text"] as? String } == ["{\"ok\":true}", "{\"ok\":true}"])
        let timings = json?["timings_ms"] as? [String: Any]
        let firstByte = timings?["first_byte"] as? Double ?? 0
        #expect(firstByte >= 50, "the 50 ms delay shows in first_byte: \(firstByte)")
        #expect(json?["ok"] as? Bool == true)
        #expect(json?["bytes_received"] as? Int == 26)
        #expect(try await listener.wait() == 0)
    }
}

@Suite struct SendCommandTests {
    /// `--delay` counts from each message's arrival: twenty pipelined requests to a server
    /// that delays 100 ms are answered in about 100 ms, not two seconds.
    @Test func delaysAreNotCumulative() async throws {
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line", "--delay", "100ms"], scratch: scratch)
        let port = try await listener.listeningPort()
        let messages = (1...20).map { "request \($0)" }
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "line", "--responses", "20", "--json"] + messages, scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let timings = json?["timings_ms"] as? [String: Any]
        let firstByte = timings?["first_byte"] as? Double ?? 0
        let total = timings?["total"] as? Double ?? .infinity
        #expect(firstByte >= 100, "\(firstByte)")
        // Delays that added up would take 2,000 ms; the bound leaves a loaded machine (the
        // parallel phase) room below that (634 ms seen there).
        #expect(total < 1500, "twenty answers took \(total) ms")
        let texts = (json?["responses"] as? [[String: Any]])?.compactMap { $0["text"] as? String }
        #expect(texts == messages)
        #expect(try await listener.wait() == 0)
    }

    @Test func aFullDiskOnStdoutIsReportedNotIgnored() async throws {
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo"], scratch: scratch)
        let port = try await listener.listeningPort()
        let result = try await run("/bin/sh", ["-c", "'\(try sockctlPath())' send 127.0.0.1:\(port) hello > /dev/full"], scratch: scratch)
        #expect(result.status == 1)
        #expect(result.stderr.contains("sockctl: error: writing output: No space left on device"), "\(result.stderr)")
        _ = try await listener.wait()
    }

    @Test func jsonReportsTheFailureKindToo() async throws {
        let scratch = try Scratch()
        let closed = try ClosedPort()
        let port = closed.port
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "x", "--json"], scratch: scratch)
        #expect(result.status == 1)
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        #expect(json?["ok"] as? Bool == false)
        let error = json?["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "refused")
        withExtendedLifetime(closed) {}
    }

    @Test func messagesComeFromStdinWhenNoneAreGiven() async throws {
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "length:2"], scratch: scratch)
        let port = try await listener.listeningPort()
        try Data([0, 1, 2, 0xff]).write(to: URL(fileURLWithPath: scratch.path("binary")))
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "length:2", "--json"], stdin: .file(scratch.path("binary")), scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let responses = json?["responses"] as? [[String: Any]]
        #expect(responses?.first?["base64"] as? String == "AAEC/w==")
        #expect(json?["bytes_sent"] as? Int == 6)
    }

    @Test func repeatRunsTheExchangeOnOneConnection() async throws {
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line"], scratch: scratch)
        let port = try await listener.listeningPort()
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "line", "-e", "ping\\tpong", "--repeat", "3"], scratch: scratch)
        #expect(result.status == 0)
        #expect(String(decoding: result.stdout, as: UTF8.self) == "ping\tpong\nping\tpong\nping\tpong\n")
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("client 1 "))
        #expect(!listener.stderr.contains("client 2 "))
    }
}
