import Foundation
import TestSupport
import Testing

import Glibc

/// `sockctl proxy` as a user drives it: the control socket, the live views (`--hexdump`,
/// `--print-messages`, `--json`) and the client log, against sockctl's own line echo.
@Suite("sockctl proxy", .hangGuard)
struct ProxyCommandTests {
    /// A line echo (`listen --echo --framing line -k`) and its port.
    static func lineEcho() async throws -> (Child, Int) {
        let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line", "-k"], name: "echo")
        return (echo, try await echo.listeningPort())
    }

    static func stop(_ server: Child) async throws {
        server.signal(SIGINT)
        #expect(try await server.wait() == 0)
    }

    // MARK: Control socket

    /// `sockctl send` drives the control socket: add, list and remove answer `ok` lines; bad
    /// commands answer `error: …` and change nothing; the proxy relays all along, with the fault
    /// a command added in force.
    @Test func theControlSocketChangesFaultsWhileTheProxyRelays() async throws {
        let scratch = try Scratch()
        let (echo, echoPort) = try await Self.lineEcho()
        let control = scratch.path("proxy.ctl")
        let proxy = try await RunningProxy(to: "127.0.0.1:\(echoPort)", ["--control", "unix:\(control)"])
        try await proxy.child.waitForStderr("control socket on unix:\(control)\n")
        func command(_ lines: [String]) async throws -> String {
            let sent = try await run(try sockctlPath(), ["send", "unix:\(control)"] + lines + ["--framing", "line", "--responses", "\(lines.count)"])
            #expect(sent.status == 0, "\(lines): \(sent.stderr)")
            return String(decoding: sent.stdout, as: UTF8.self)
        }
        func relays(_ text: String) async throws {
            let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(proxy.port)", text, "--framing", "line"])
            #expect(sent.status == 0, "\(sent.stderr)")
            #expect(String(decoding: sent.stdout, as: UTF8.self) == "\(text)\n")
        }

        #expect(try await command(["add latency=50ms", "list", "remove 1"]) == "ok 1 latency=50ms\nok 1 fault: 1 latency=50ms\nok removed 1\n")
        try await relays("before")

        #expect(try await command(["add latency=300ms,dir=down"]) == "ok 2 latency=300ms,dir=down\n")
        let bad = try await command(["add bogus", "add latency", "remove 7", "frobnicate", "list extra", "list"])
        #expect(bad == """
            error: invalid fault 'bogus': unknown kind 'bogus' (expected one of latency, bandwidth, slice, stall, timeout, reset-after, limit, drop or close-after-messages)
            error: invalid fault 'latency': latency needs a value (latency=…)
            error: no fault 7 (list shows them)
            error: unknown command 'frobnicate' (expected add, remove, list or clear)
            error: list takes no argument
            ok 1 fault: 2 latency=300ms,dir=down

            """)
        // Still relaying, and the fault added before the bad commands still holds the answer back.
        let clock = ContinuousClock()
        let started = clock.now
        try await relays("after")
        #expect(clock.now - started >= .milliseconds(300))
        #expect(try await command(["clear", "list"]) == "ok removed 1 fault\nok 0 faults\n")
        try await relays("cleared")

        #expect(try await proxy.interrupt() == 0)
        #expect(proxy.child.stderr.contains("summary: 3 clients, "), "\(proxy.child.stderr)")
        #expect(!FileManager.default.fileExists(atPath: control), "the control socket is removed on exit")
        try await Self.stop(echo)
    }

    // MARK: Live views

    /// `--hexdump`: on stderr, as every command prints it (the output rule), a header line
    /// (time, direction, which client to or from the upstream, size), then the rows of
    /// `tcpdump -X`; stdout stays empty.
    @Test func hexdumpShowsEachChunkInTheTcpdumpLayout() async throws {
        let (echo, echoPort) = try await Self.lineEcho()
        let proxy = try await RunningProxy(to: "127.0.0.1:\(echoPort)", ["--hexdump"])
        let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(proxy.port)", "hello there, this is a longer message", "--framing", "line"])
        #expect(sent.status == 0, "\(sent.stderr)")
        try await proxy.child.waitForStderr("disconnected after")
        #expect(try await proxy.interrupt() == 0)
        let rows = """
            \t0x0000:  6865 6c6c 6f20 7468 6572 652c 2074 6869  hello.there,.thi
            \t0x0010:  7320 6973 2061 206c 6f6e 6765 7220 6d65  s.is.a.longer.me
            \t0x0020:  7373 6167 650a                           ssage.
            """
        let lines = proxy.child.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        let time = #"^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} "#
        for header in [#"> client 1 \(127\.0\.0\.1:[0-9]+\) to upstream, 38 bytes$"#, #"< upstream to client 1 \(127\.0\.0\.1:[0-9]+\), 38 bytes$"#] {
            let index = try #require(lines.firstIndex { $0.range(of: time + header, options: .regularExpression) != nil }, "\(proxy.child.stderr)")
            #expect(index + 3 < lines.count && lines[(index + 1)...(index + 3)].joined(separator: "\n") == rows, "\(proxy.child.stderr)")
        }
        #expect(proxy.child.stdoutText.isEmpty, "\(proxy.child.stdoutText)")
        #expect(proxy.child.stderr.contains("(38 bytes up, 38 bytes down)"))
        try await Self.stop(echo)
    }

    /// `--print-messages --framing line`: one entry per message, JSON pretty-printed, other text
    /// as it is, each way.
    @Test func printMessagesPrettyPrintsJSON() async throws {
        let (echo, echoPort) = try await Self.lineEcho()
        let proxy = try await RunningProxy(to: "127.0.0.1:\(echoPort)", ["--framing", "line", "--print-messages"])
        let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(proxy.port)", #"{"a":1,"b":[1,2]}"#, "plain text", "--framing", "line", "--responses", "2"])
        #expect(sent.status == 0, "\(sent.stderr)")
        try await proxy.child.waitForStdout("client 1 < plain text\n")
        #expect(try await proxy.interrupt() == 0)
        let pretty = "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}\n"
        let shown = proxy.child.stdoutText.replacing(#/[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} /#, with: "")
        // Each direction in its order; the two directions are relayed independently, so their
        // entries may interleave either way.
        let entries = shown.split(separator: "client 1 ").map(String.init)
        #expect(entries.filter { $0.hasPrefix(">") } == ["> \(pretty)", "> plain text\n"], "\(proxy.child.stdoutText)")
        #expect(entries.filter { $0.hasPrefix("<") } == ["< \(pretty)", "< plain text\n"], "\(proxy.child.stdoutText)")
        #expect(entries.count == 4, "\(proxy.child.stdoutText)")
        try await Self.stop(echo)
    }

    /// `--json-log`: every stdout line is a JSON object; one client's events come in order —
    /// connect, upstream, data and messages, both directions finished, disconnect — and the
    /// summary is the last line.
    @Test func jsonLogIsOneEventPerLineInOrder() async throws {
        let (echo, echoPort) = try await Self.lineEcho()
        let proxy = try await RunningProxy(to: "127.0.0.1:\(echoPort)", ["--framing", "line", "--json-log"])
        let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(proxy.port)", "one", "two", "--framing", "line", "--responses", "2"])
        #expect(sent.status == 0, "\(sent.stderr)")
        try await proxy.child.waitForStdout("\"event\":\"disconnect\"")
        #expect(try await proxy.interrupt() == 0)

        let lines = proxy.child.stdoutText.split(separator: "\n")
        let events = jsonLines(proxy.child.stdoutText)
        #expect(events.count == lines.count, "every line parses: \(proxy.child.stdoutText)")
        let kinds = events.compactMap { $0["event"] as? String }
        #expect(kinds.count == events.count)
        #expect(Array(kinds.prefix(2)) == ["connect", "upstream"], "\(kinds)")
        #expect(Array(kinds.suffix(2)) == ["disconnect", "summary"], "\(kinds)")
        #expect(kinds.filter { $0 == "finish" }.count == 2, "\(kinds)")
        #expect(Set(kinds) == ["connect", "upstream", "data", "message", "finish", "disconnect", "summary"], "\(kinds)")
        let messages = events.filter { $0["event"] as? String == "message" }.map { event -> String in
            let body = event["message"] as? [String: Any]
            return "\(event["direction"] as? String ?? "?") \(body?["text"] as? String ?? "?")"
        }
        #expect(messages.filter { $0.hasPrefix("up") } == ["up one", "up two"])
        #expect(messages.filter { $0.hasPrefix("down") } == ["down one", "down two"])
        for event in events.dropLast() {
            #expect(event["client"] as? Int == 1)
            #expect((event["peer"] as? String)?.hasPrefix("127.0.0.1:") == true)
            #expect((event["time"] as? String)?.range(of: #"^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}$"#, options: .regularExpression) != nil)
        }
        let disconnect = events.first { $0["event"] as? String == "disconnect" }
        #expect(disconnect?["bytes_up"] as? Int == 8 && disconnect?["bytes_down"] as? Int == 8, "\(disconnect ?? [:])")
        #expect(disconnect?["error"] is NSNull)
        let summary = events.last
        #expect(summary?["clients"] as? Int == 1 && summary?["bytes_up"] as? Int == 8 && summary?["dropped"] as? Int == 0, "\(summary ?? [:])")
        // The client log still goes to stderr.
        #expect(proxy.child.stderr.contains("client 1 connected from 127.0.0.1:"))
        #expect(proxy.child.stderr.contains("summary: 1 client, 8 bytes up, 8 bytes down in "))
        try await Self.stop(echo)
    }
}
