import Foundation
import Testing

@Suite struct HappyEyeballsTests {
    /// A listener on 127.0.0.1 only, and a name resolving to ::1 and 127.0.0.1: IPv6 is tried
    /// first, refused, and IPv4 wins; `-6` fails and names [::1].
    @Test func dualStackNameFallsBackToIPv4AndMinusSixNamesIPv6() async throws {
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k"], scratch: scratch)
        let port = try await listener.listeningPort()
        let resolve = ["--resolve", "dual.test:::1,127.0.0.1"]

        let ok = try await run(try sockctlPath(), ["send", "dual.test:\(port)", "hi", "-v"] + resolve, scratch: scratch)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(String(decoding: ok.stdout, as: UTF8.self) == "hi")
        #expect(ok.stderr.contains("[::1]:\(port) failed (started at"), "\(ok.stderr)")
        #expect(ok.stderr.contains("connected to 127.0.0.1:\(port) (IPv4)"), "\(ok.stderr)")

        let forced = try await run(try sockctlPath(), ["connect", "dual.test:\(port)", "-6"] + resolve, scratch: scratch)
        #expect(forced.status == 1)
        #expect(forced.stderr.contains("[::1]:\(port): connection refused"), "\(forced.stderr)")
        #expect(!forced.stderr.contains("127.0.0.1"))
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    /// The same with the system resolver: a network namespace whose /etc/hosts (bound by
    /// `ip netns exec` from /etc/netns/NAME/hosts) maps dual.test to ::1 and 127.0.0.1.
    /// Needs root and iproute2, which CI has (`make test` installs iproute2).
    @Test func dualStackNameFromTheSystemResolverInANamespace() async throws {
        let scratch = try Scratch()
        let ip = try tool("ip")
        let namespace = "sockctl-he-\(getpid())"
        let hostsDirectory = "/etc/netns/\(namespace)"
        try FileManager.default.createDirectory(atPath: hostsDirectory, withIntermediateDirectories: true)
        try "::1 dual.test\n127.0.0.1 dual.test\n127.0.0.1 localhost\n".write(toFile: "\(hostsDirectory)/hosts", atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: hostsDirectory) }
        let added = try await run(ip, ["netns", "add", namespace], scratch: scratch)
        #expect(added.status == 0, "ip netns add: \(added.stderr)")
        defer { runDetached(ip, ["netns", "delete", namespace]) }
        #expect(try await run(ip, ["netns", "exec", namespace, ip, "link", "set", "lo", "up"], scratch: scratch).status == 0)

        let listener = try Child(ip, ["netns", "exec", namespace, try sockctlPath(), "listen", "127.0.0.1:0", "--echo", "-k"], scratch: scratch, name: "listener")
        let port = try await listener.listeningPort()
        let ok = try await run(ip, ["netns", "exec", namespace, try sockctlPath(), "send", "dual.test:\(port)", "over v4", "-v"], scratch: scratch)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(String(decoding: ok.stdout, as: UTF8.self) == "over v4")
        #expect(ok.stderr.contains("resolved to ::1, 127.0.0.1"), "\(ok.stderr)")
        #expect(ok.stderr.contains("connected to 127.0.0.1:\(port) (IPv4)"))
        let forced = try await run(ip, ["netns", "exec", namespace, try sockctlPath(), "send", "dual.test:\(port)", "x", "-6"], scratch: scratch)
        #expect(forced.status == 1)
        #expect(forced.stderr.contains("[::1]:\(port)"), "\(forced.stderr)")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }
}

/// A network namespace of the test's own, with loopback up and a veth pair whose far end
/// answers nothing: packets to fd00:5c::1 and 198.18.0.1 leave and are never answered, a real
/// black hole without touching any other network. Needs root and iproute2 (CI has both).
final class BlackHoleNamespace: @unchecked Sendable {
    let name = "sockctl-bh-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
    let ip: String
    static let silentIPv6 = "fd00:5c::1"
    static let silentIPv4 = "198.18.0.1"

    init(scratch: Scratch) async throws {
        ip = try tool("ip")
        let setup = [
            ["netns", "add", name],
            ["netns", "exec", name, ip, "link", "set", "lo", "up"],
            ["netns", "exec", name, ip, "link", "add", "veth0", "type", "veth", "peer", "name", "veth1"],
            ["netns", "exec", name, ip, "link", "set", "veth0", "up"],
            ["netns", "exec", name, ip, "link", "set", "veth1", "up"],
            ["netns", "exec", name, ip, "-6", "addr", "add", "fd00:5c::2/64", "dev", "veth0", "nodad"],
            ["netns", "exec", name, ip, "-6", "neigh", "add", Self.silentIPv6, "lladdr", "02:00:00:00:00:01", "dev", "veth0"],
            ["netns", "exec", name, ip, "addr", "add", "198.18.0.2/24", "dev", "veth0"],
            ["netns", "exec", name, ip, "neigh", "add", Self.silentIPv4, "lladdr", "02:00:00:00:00:01", "dev", "veth0"],
        ]
        for arguments in setup {
            let result = try await run(ip, arguments, scratch: scratch)
            guard result.status == 0 else { throw HarnessError("ip \(arguments.joined(separator: " ")): \(result.stderr)") }
        }
    }

    /// `ip netns exec NAME` + the command.
    func command(_ arguments: [String]) -> [String] { ["netns", "exec", name] + arguments }

    deinit {
        runDetached(ip, ["netns", "delete", name])
    }
}

@Suite struct ConnectTimingTests {
    @Test func ipv4StartsAfterThreeHundredMillisecondsOfIPv6Silence() async throws {
        let scratch = try Scratch()
        let namespace = try await BlackHoleNamespace(scratch: scratch)
        let listener = try Child(namespace.ip, namespace.command([try sockctlPath(), "listen", "127.0.0.1:0", "--echo", "-k"]), scratch: scratch, name: "listener")
        let port = try await listener.listeningPort()
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await run(namespace.ip, namespace.command([
            try sockctlPath(), "send", "he.test:\(port)", "hi", "-v", "--resolve", "he.test:\(BlackHoleNamespace.silentIPv6),127.0.0.1",
        ]), scratch: scratch)
        let elapsed = clock.now - started
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "hi")
        #expect(result.stderr.contains("[\(BlackHoleNamespace.silentIPv6)]:\(port) (started at"), "\(result.stderr)")
        #expect(result.stderr.contains("had not answered: cancelled"))
        // The connect time is printed as e.g. "in 303.9ms": IPv4 waited for the 300 ms delay.
        let connectTime = result.stderr.split(separator: "\n").first { $0.contains("connected to 127.0.0.1") }
            .flatMap { line in line.range(of: " in ").map { line[$0.upperBound...].prefix { $0.isNumber || $0 == "." } } }
            .flatMap { Double($0) }
        #expect(connectTime.map { $0 >= 300 && $0 < 400 } == true, "connect time \(String(describing: connectTime)) ms: \(result.stderr)")
        #expect(elapsed < .seconds(5))
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    /// Regression: attempts that fail at once (no IPv6 source address to bind) used to let an
    /// older attempt-delay timer replace the newer one, so the fourth address was never tried.
    @Test func attemptsThatFailAtOnceDoNotStallTheRace() async throws {
        let scratch = try Scratch()
        let namespace = try await BlackHoleNamespace(scratch: scratch)
        let listener = try Child(namespace.ip, namespace.command([try sockctlPath(), "listen", "127.0.0.1:0", "--echo", "-k"]), scratch: scratch, name: "listener")
        let port = try await listener.listeningPort()
        let result = try await run(namespace.ip, namespace.command([
            try sockctlPath(), "send", "multi.test:\(port)", "hi", "-v", "--connect-timeout", "3s", "--source", "198.18.0.2",
            "--resolve", "multi.test:fd00:5c::3,\(BlackHoleNamespace.silentIPv4),fd00:5c::4,127.0.0.1",
        ]), scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "hi")
        #expect(result.stderr.contains("[fd00:5c::4]:\(port) failed"), "\(result.stderr)")
        #expect(result.stderr.contains("connected to 127.0.0.1:\(port)"))
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    @Test func connectTimeoutListsEveryUnansweredAddress() async throws {
        let scratch = try Scratch()
        let namespace = try await BlackHoleNamespace(scratch: scratch)
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await run(namespace.ip, namespace.command([
            try sockctlPath(), "connect", "silent.test:7", "--connect-timeout", "700ms",
            "--resolve", "silent.test:\(BlackHoleNamespace.silentIPv6),\(BlackHoleNamespace.silentIPv4)",
        ]), scratch: scratch)
        let elapsed = clock.now - started
        #expect(result.status == 1)
        #expect(result.stderr.contains("connect to silent.test:7 timed out after 700ms: [fd00:5c::1]:7: no answer in time; 198.18.0.1:7: no answer in time"), "\(result.stderr)")
        #expect(elapsed >= .milliseconds(700) && elapsed < .seconds(5))
    }
}

@Suite struct ConnectBehaviourTests {
    @Test func aClosedStdoutPipeEndsQuietly() async throws {
        let scratch = try Scratch()
        _ = try randomFile(scratch.path("ten-mib"), bytes: 10 << 20)
        let port = try freePort()
        let ncat = try Child(try tool("ncat"), ["-l", "--send-only", "127.0.0.1", "\(port)"], stdin: .file(scratch.path("ten-mib")), scratch: scratch)
        try await waitForTCPListener(port: port)
        let script = "'\(try sockctlPath())' connect 127.0.0.1:\(port) --recv-only 2>'\(scratch.path("stderr"))' | head -c 10 | wc -c; echo \"status ${PIPESTATUS[0]}\""
        let result = try await run("/bin/bash", ["-c", script], scratch: scratch)
        let output = String(decoding: result.stdout, as: UTF8.self)
        #expect(output.hasPrefix("10\n"), "\(output)")
        #expect(output.contains("status 141"), "\(output)")
        let stderr = (try? String(contentsOfFile: scratch.path("stderr"), encoding: .utf8)) ?? ""
        #expect(stderr.isEmpty, "\(stderr)")
        ncat.signal(SIGTERM)
    }

    @Test func udpConnectReceivesRepliesAfterInputEnds() async throws {
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "udp://127.0.0.1:0", "--echo", "--delay", "300ms"], scratch: scratch)
        let port = try await listener.listeningPort()
        try "ping\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await run(try sockctlPath(), ["connect", "udp://127.0.0.1:\(port)", "--framing", "line"], stdin: .file(scratch.path("input")), scratch: scratch)
        let elapsed = clock.now - started
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "ping\n", "the delayed reply arrived after stdin ended")
        // At least the 2 s linger after the reply; the upper bound leaves room for a loaded
        // machine starting the process (a linger that never ended would hit run's 30 s).
        #expect(elapsed >= .milliseconds(2300) && elapsed < .seconds(12), "lingered 2s after the last datagram: \(elapsed)")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    @Test func crlfAndHexdumpShowWhatWentOnTheWire() async throws {
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo"], scratch: scratch)
        let port = try await listener.listeningPort()
        try "GET / HTTP/1.0\n\n".write(toFile: scratch.path("request"), atomically: true, encoding: .utf8)
        let result = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--crlf", "--hexdump"], stdin: .file(scratch.path("request")), scratch: scratch)
        #expect(result.status == 0)
        #expect(String(decoding: result.stdout, as: UTF8.self) == "GET / HTTP/1.0\r\n\r\n")
        #expect(result.stderr.contains("> sent to 127.0.0.1:\(port), 18 bytes\n\t0x0000:  4745 5420 2f20 4854 5450 2f31 2e30 0d0a  GET./.HTTP/1.0..\n\t0x0010:  0d0a                                     ..\n"), "\(result.stderr)")
        #expect(result.stderr.contains("< received from 127.0.0.1:\(port), 18 bytes"))
    }

    @Test func aHundredMebibyteLineDoesNotGrowMemoryPastTheFrameLimit() async throws {
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--framing", "line", "-k"], scratch: scratch)
        let port = try await listener.listeningPort()
        let before = try peakResidentKiB(pid: listener.pid)
        // 100 MiB of 'a' with no newline, from a pipe.
        let sender = try Child("/bin/sh", ["-c", "head -c 104857600 /dev/zero | tr '\\\\0' a | '\(try sockctlPath())' connect 127.0.0.1:\(port) --send-only"], scratch: scratch, name: "sender")
        try await listener.waitForStderr("frame exceeds the maximum of 16777216 bytes", timeout: .seconds(60))
        _ = try await sender.wait(timeout: .seconds(60))
        let after = try peakResidentKiB(pid: listener.pid)
        // The frame limit is 16 MiB; allow for one more read in flight and allocator slack.
        #expect(after - before < 40 * 1024, "peak RSS grew by \(after - before) KiB")
        #expect(listener.stdout.isEmpty, "no partial line was printed")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    func peakResidentKiB(pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let value = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { throw HarnessError("no VmHWM for \(pid)") }
        return value
    }

    @Test func reconnectsWhenTheServerIsKilledAndRestarted() async throws {
        let scratch = try Scratch()
        let port = try freePort()
        var server = try Child(try sockctlPath(), ["listen", "127.0.0.1:\(port)", "--echo", "--framing", "line", "-k"], scratch: scratch, name: "server-1")
        try await server.waitForStderr("listening on")
        let client = try Child(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--framing", "line", "--reconnect", "-v"], stdin: .pipe, scratch: scratch, name: "client")
        try await client.waitForStderr("connected to 127.0.0.1:\(port)")
        try client.send("before\n")
        try await client.waitForStdout("before\n")

        server.signal(SIGKILL)
        _ = try await server.wait()
        try await client.waitForStderr("reconnecting in 1s (attempt 1 of 5)")
        server = try Child(try sockctlPath(), ["listen", "127.0.0.1:\(port)", "--echo", "--framing", "line", "-k"], scratch: scratch, name: "server-2")
        try await server.waitForStderr("listening on")
        try await waitFor(timeout: .seconds(20), what: "a second connection") {
            client.stderr.components(separatedBy: "connected to 127.0.0.1:\(port)").count == 3 ? true : nil
        }
        try client.send("after\n")
        try await client.waitForStdout("before\nafter\n")
        try client.closeStdin()
        #expect(try await client.wait() == 0)
        server.signal(SIGINT)
        #expect(try await server.wait() == 0)
    }

    @Test func answeredHeartbeatsKeepTheSessionAlive() async throws {
        let scratch = try Scratch()
        let server = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line"], scratch: scratch)
        let port = try await server.listeningPort()
        let client = try Child(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--framing", "line", "--heartbeat", "PING", "--heartbeat-interval", "100ms", "--heartbeat-misses", "3", "-v"], stdin: .pipe, scratch: scratch)
        // Six heartbeats answered: twice the three misses after which a silent peer would be
        // declared dead (waited for by count, not by time, so a loaded machine only slows it).
        try await waitFor(timeout: .seconds(20), what: "six heartbeats echoed") {
            client.stdoutText.split(separator: "\n").filter { $0 == "PING" }.count >= 6 ? true : nil
        }
        #expect(client.isRunning, "\(client.stderr)")
        try client.closeStdin()
        #expect(try await client.wait() == 0, "\(client.stderr)")
        #expect(!client.stderr.contains("unresponsive"))
        #expect(try await server.wait() == 0)
    }

    @Test func aSilentServerIsDeclaredDeadByTheHeartbeat() async throws {
        let scratch = try Scratch()
        let server = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--discard", "-k"], scratch: scratch)
        let port = try await server.listeningPort()
        let clock = ContinuousClock()
        let started = clock.now
        let client = try Child(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--framing", "line", "--heartbeat", "PING", "--heartbeat-interval", "200ms", "--heartbeat-misses", "3"], stdin: .pipe, scratch: scratch)
        let status = try await client.wait(timeout: .seconds(10))
        let elapsed = clock.now - started
        #expect(status == 1)
        #expect(client.stderr.contains("peer unresponsive: nothing received for"), "\(client.stderr)")
        #expect(elapsed >= .milliseconds(600) && elapsed < .seconds(9), "\(elapsed)")
        server.signal(SIGINT)
        try await server.waitForStderr("summary:")
        // Two heartbeats (at 200 and 400 ms) before the peer is declared dead at 600 ms.
        #expect(server.stderr.contains("(10 bytes in, 0 bytes out)"), "\(server.stderr)")
    }
}
