import Foundation
import TestSupport
import Testing

import Glibc

@Suite(.hangGuard) struct HappyEyeballsTests {
    /// A listener on 127.0.0.1 only, and a name resolving to ::1 and 127.0.0.1: IPv6 is tried
    /// first, refused, and IPv4 wins; `-6` fails and names [::1].
    @Test func dualStackNameFallsBackToIPv4AndMinusSixNamesIPv6() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k"])
        let port = try await listener.listeningPort()
        let resolve = ["--resolve", "dual.test:::1,127.0.0.1"]

        let ok = try await run(try sockctlPath(), ["send", "dual.test:\(port)", "hi", "-v"] + resolve)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(String(decoding: ok.stdout, as: UTF8.self) == "hi")
        #expect(ok.stderr.contains("[::1]:\(port) failed (started at"), "\(ok.stderr)")
        #expect(ok.stderr.contains("connected to 127.0.0.1:\(port) (IPv4)"), "\(ok.stderr)")

        let forced = try await run(try sockctlPath(), ["connect", "dual.test:\(port)", "-6"] + resolve)
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
        let ip = try tool("ip")
        let namespace = "sockctl-he-\(getpid())"
        let hostsDirectory = "/etc/netns/\(namespace)"
        try FileManager.default.createDirectory(atPath: hostsDirectory, withIntermediateDirectories: true)
        try "::1 dual.test\n127.0.0.1 dual.test\n127.0.0.1 localhost\n".write(toFile: "\(hostsDirectory)/hosts", atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: hostsDirectory) }
        let added = try await run(ip, ["netns", "add", namespace])
        #expect(added.status == 0, "ip netns add: \(added.stderr)")
        #expect(try await run(ip, ["netns", "exec", namespace, ip, "link", "set", "lo", "up"]).status == 0)

        let listener = try await Child(ip, ["netns", "exec", namespace, try sockctlPath(), "listen", "127.0.0.1:0", "--echo", "-k"], name: "listener")
        let port = try await listener.listeningPort()
        let ok = try await run(ip, ["netns", "exec", namespace, try sockctlPath(), "send", "dual.test:\(port)", "over v4", "-v"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(String(decoding: ok.stdout, as: UTF8.self) == "over v4")
        #expect(ok.stderr.contains("resolved to ::1, 127.0.0.1"), "\(ok.stderr)")
        #expect(ok.stderr.contains("connected to 127.0.0.1:\(port) (IPv4)"))
        let forced = try await run(ip, ["netns", "exec", namespace, try sockctlPath(), "send", "dual.test:\(port)", "x", "-6"])
        #expect(forced.status == 1)
        #expect(forced.stderr.contains("[::1]:\(port)"), "\(forced.stderr)")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        _ = try await run(ip, ["netns", "delete", namespace])
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

    init() async throws {
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
            let result = try await run(ip, arguments)
            guard result.status == 0 else { throw HarnessError("ip \(arguments.joined(separator: " ")): \(result.stderr)") }
        }
    }

    /// `ip netns exec NAME` + the command.
    func command(_ arguments: [String]) -> [String] { ["netns", "exec", name] + arguments }

    /// Deletes the namespace (call it at the end of the test; deinit does it too, later).
    func remove() async throws {
        _ = try await run(ip, ["netns", "delete", name])
    }

    deinit {
        let (ip, name) = (ip, name)
        Task.detached { _ = try? await run(ip, ["netns", "delete", name]) }
    }
}

/// Happy Eyeballs against a real black hole: what happens, in order, and never sooner than the
/// delays say (the exact instants are HappyEyeballsTimingTests', in virtual time).
@Suite(.hangGuard) struct ConnectRaceTests {
    @Test func ipv4WinsAfterIPv6StaysSilentForTheAttemptDelay() async throws {
        let namespace = try await BlackHoleNamespace()
        let listener = try await Child(namespace.ip, namespace.command([try sockctlPath(), "listen", "127.0.0.1:0", "--echo", "-k"]), name: "listener")
        let port = try await listener.listeningPort()
        let result = try await run(namespace.ip, namespace.command([
            try sockctlPath(), "send", "he.test:\(port)", "hi", "-v", "--resolve", "he.test:\(BlackHoleNamespace.silentIPv6),127.0.0.1",
        ]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "hi")
        #expect(result.stderr.contains("[\(BlackHoleNamespace.silentIPv6)]:\(port) (started at"), "\(result.stderr)")
        #expect(result.stderr.contains("had not answered: cancelled"))
        // The connect time is printed as e.g. "in 303.9ms": IPv4 waited for the 300 ms delay.
        let connectTime = result.stderr.split(separator: "\n").first { $0.contains("connected to 127.0.0.1") }
            .flatMap { line in line.range(of: " in ").map { line[$0.upperBound...].prefix { $0.isNumber || $0 == "." } } }
            .flatMap { Double($0) }
        #expect(connectTime.map { $0 >= 300 } == true, "connect time \(String(describing: connectTime)) ms: \(result.stderr)")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        try await namespace.remove()
    }

    /// Regression: attempts that fail at once (no IPv6 source address to bind) used to let an
    /// older attempt-delay timer replace the newer one, so the fourth address was never tried.
    @Test func attemptsThatFailAtOnceDoNotStallTheRace() async throws {
        let namespace = try await BlackHoleNamespace()
        let listener = try await Child(namespace.ip, namespace.command([try sockctlPath(), "listen", "127.0.0.1:0", "--echo", "-k"]), name: "listener")
        let port = try await listener.listeningPort()
        let result = try await run(namespace.ip, namespace.command([
            try sockctlPath(), "send", "multi.test:\(port)", "hi", "-v", "--source", "198.18.0.2",
            "--resolve", "multi.test:fd00:5c::3,\(BlackHoleNamespace.silentIPv4),fd00:5c::4,127.0.0.1",
        ]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "hi")
        #expect(result.stderr.contains("[fd00:5c::4]:\(port) failed"), "\(result.stderr)")
        #expect(result.stderr.contains("connected to 127.0.0.1:\(port)"))
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        try await namespace.remove()
    }

    @Test func connectTimeoutListsEveryUnansweredAddress() async throws {
        let namespace = try await BlackHoleNamespace()
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await run(namespace.ip, namespace.command([
            try sockctlPath(), "connect", "silent.test:7", "--connect-timeout", "700ms",
            "--resolve", "silent.test:\(BlackHoleNamespace.silentIPv6),\(BlackHoleNamespace.silentIPv4)",
        ]))
        #expect(result.status == 1)
        #expect(result.stderr.contains("connect to silent.test:7 timed out after 700ms: [fd00:5c::1]:7: no answer in time; 198.18.0.1:7: no answer in time"), "\(result.stderr)")
        #expect(clock.now - started >= .milliseconds(700), "not before the timeout")
        try await namespace.remove()
    }
}

@Suite(.hangGuard) struct ConnectBehaviourTests {
    @Test func aClosedStdoutPipeEndsQuietly() async throws {
        let scratch = try Scratch()
        _ = try await randomFile(scratch.path("ten-mib"), bytes: 10 << 20)
        let ncat = try await Child(try tool("ncat"), ["-v", "-l", "--send-only", "127.0.0.1", "0"], stdin: .file(scratch.path("ten-mib")))
        try await ncat.waitForStderr("Ncat: Listening on")
        let port = try ncat.listeningTCPPort()
        let script = "'\(try sockctlPath())' connect 127.0.0.1:\(port) --recv-only 2>'\(scratch.path("stderr"))' | head -c 10 | wc -c; echo \"status ${PIPESTATUS[0]}\""
        let result = try await run("/bin/bash", ["-c", script])
        let output = String(decoding: result.stdout, as: UTF8.self)
        #expect(output.hasPrefix("10\n"), "\(output)")
        #expect(output.contains("status 141"), "\(output)")
        let stderr = (try? String(contentsOfFile: scratch.path("stderr"), encoding: .utf8)) ?? ""
        #expect(stderr.isEmpty, "\(stderr)")
        ncat.signal(SIGTERM)
    }

    /// Stdin ends with the datagram sent: the reply, which comes after that, is still printed,
    /// and the session lingers (2 s; exactly, in virtual time: SessionTimingTests) before it ends.
    @Test func udpConnectReceivesRepliesAfterInputEnds() async throws {
        let scratch = try Scratch()
        let listener = try await Child(try sockctlPath(), ["listen", "udp://127.0.0.1:0", "--echo"])
        let port = try await listener.listeningPort()
        try "ping\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await run(try sockctlPath(), ["connect", "udp://127.0.0.1:\(port)", "--framing", "line"], stdin: .file(scratch.path("input")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "ping\n", "the reply arrived after stdin ended")
        #expect(clock.now - started >= .seconds(2), "lingered for replies")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    @Test func crlfAndHexdumpShowWhatWentOnTheWire() async throws {
        let scratch = try Scratch()
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo"])
        let port = try await listener.listeningPort()
        try "GET / HTTP/1.0\n\n".write(toFile: scratch.path("request"), atomically: true, encoding: .utf8)
        let result = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--crlf", "--hexdump"], stdin: .file(scratch.path("request")))
        #expect(result.status == 0)
        #expect(String(decoding: result.stdout, as: UTF8.self) == "GET / HTTP/1.0\r\n\r\n")
        #expect(result.stderr.contains("> sent to 127.0.0.1:\(port), 18 bytes\n\t0x0000:  4745 5420 2f20 4854 5450 2f31 2e30 0d0a  GET./.HTTP/1.0..\n\t0x0010:  0d0a                                     ..\n"), "\(result.stderr)")
        #expect(result.stderr.contains("< received from 127.0.0.1:\(port), 18 bytes"))
    }

    @Test func aHundredMebibyteLineDoesNotGrowMemoryPastTheFrameLimit() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--framing", "line", "-k"])
        let port = try await listener.listeningPort()
        let before = try peakResidentKiB(pid: listener.pid)
        // 100 MiB of 'a' with no newline, from a pipe.
        let sender = try await Child("/bin/sh", ["-c", "head -c 104857600 /dev/zero | tr '\\\\0' a | '\(try sockctlPath())' connect 127.0.0.1:\(port) --send-only"], name: "sender")
        try await listener.waitForStderr("frame exceeds the maximum of 16777216 bytes")
        _ = try await sender.wait()
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

    /// A server that answers one line and closes (socat forks `head -n 1` per client): the
    /// client reconnects and goes on with the rest of its input.
    @Test func reconnectsWhenTheServerClosesAndGoesOn() async throws {
        let server = try await Child(try tool("socat"), ["-d", "-d", "TCP-LISTEN:0,bind=127.0.0.1,reuseaddr,fork", "SYSTEM:head -n 1"], name: "socat")
        defer { server.signal(SIGKILL) }
        let port = try await server.socatPort()
        let client = try await Child(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--framing", "line", "--reconnect", "-v"], stdin: .pipe, name: "client")
        try await client.waitForStderr("connected to 127.0.0.1:\(port)")
        try client.send("before\n")
        try await client.waitForStdout("before\n")
        try await client.waitForStderr("reconnecting in 1s (attempt 1 of 5)")
        try await client.waitForStderr("connected to 127.0.0.1:\(port)", count: 2)
        try client.send("after\n")
        try await client.waitForStdout("before\nafter\n")
        client.closeStdin()
        #expect(try await client.wait() == 0, "\(client.stderr)")
    }

    /// Heartbeats an echo server answers keep the session going (counted, not timed: so many
    /// misses are allowed that only a peer that never answers could be declared dead).
    @Test func answeredHeartbeatsKeepTheSessionAlive() async throws {
        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line"])
        let port = try await server.listeningPort()
        let client = try await Child(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--framing", "line", "--heartbeat", "PING", "--heartbeat-interval", "100ms", "--heartbeat-misses", "1000", "-v"], stdin: .pipe)
        try await client.waitForStdout("PING\n", count: 6)
        #expect(client.isRunning, "\(client.stderr)")
        client.closeStdin()
        #expect(try await client.wait() == 0, "\(client.stderr)")
        #expect(!client.stderr.contains("unresponsive"))
        #expect(try await server.wait() == 0)
    }

    /// A heartbeat payload that already ends in the framing's delimiter is one message a beat:
    /// `PING\n` with line framing was PING and an empty message each beat.
    @Test func aHeartbeatEndingInItsDelimiterIsOneMessageABeat() async throws {
        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line"])
        let port = try await server.listeningPort()
        let client = try await Child(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--framing", "line", "--heartbeat", "PING\\n", "--heartbeat-interval", "100ms", "--heartbeat-misses", "1000"], stdin: .pipe)
        try await client.waitForStdout("PING\n", count: 4)
        client.closeStdin()
        #expect(try await client.wait() == 0, "\(client.stderr)")
        #expect(client.stdoutText.hasPrefix("PING\nPING\nPING\nPING\n"), "no empty message between beats: \(client.stdoutText.debugDescription)")
        #expect(try await server.wait() == 0)
    }

    /// A server that never answers: the peer is declared dead (exit 1, and says so), and not
    /// before three heartbeat intervals have passed.
    @Test func aSilentServerIsDeclaredDeadByTheHeartbeat() async throws {
        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--discard", "-k"])
        let port = try await server.listeningPort()
        let clock = ContinuousClock()
        let started = clock.now
        let client = try await Child(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--framing", "line", "--heartbeat", "PING", "--heartbeat-interval", "200ms", "--heartbeat-misses", "3"], stdin: .pipe)
        let status = try await client.wait()
        #expect(status == 1)
        #expect(client.stderr.contains("peer unresponsive: nothing received for"), "\(client.stderr)")
        #expect(clock.now - started >= .milliseconds(600))
        server.signal(SIGINT)
        #expect(try await server.wait() == 0)
    }
}
