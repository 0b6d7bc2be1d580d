import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Many connections at once, as a load test of a real service needs.
@Suite("sockctl loadtest at scale", .serialized)
struct LoadTestScaleTests {
    /// 10,000 connections opened, held for 20 s with traffic on all of them (2,000 messages/s
    /// in all), closed: every one established, none lost, no error of any kind, and the peak
    /// memory reported.
    @Test func tenThousandConnectionsHeldForTwentySeconds() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        try #require(limit.rlim_max >= 10_300, "the hard file-descriptor limit is \(limit.rlim_max); 10,000 connections need more (ulimit -Hn)")
        let scratch = try Scratch()
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--echo", "--framing", "line", "--max-clients", "10100"], scratch: scratch, name: "listener")
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()
        let json = scratch.path("scale.json")
        let run = try Child(try sockctlPath(), [
            // 1,000 new connections a second: what the tests' debug build of `listen` accepts
            // (a release build takes 3,000+/s). Faster, connections wait in its accept queue.
            "loadtest", "127.0.0.1:\(port)", "-c", "10000", "--connect-rate", "1000", "--duration", "20s", "--rate", "2000",
            "--framing", "line", "--message", "c{{conn}} m{{seq}}", "--timeout", "30s", "--json", json,
        ], scratch: scratch, name: "loadtest")
        let status = try await run.wait(timeout: .seconds(180))
        #expect(status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let connections = try #require(report["connections"] as? [String: Int])
        #expect(connections["established"] == 10_000)
        #expect(connections["peak_open"] == 10_000)
        #expect(connections["failed"] == 0)
        #expect(connections["lost"] == 0)
        #expect((report["errors"] as? [String: Int])?.isEmpty == true, "\(String(describing: report["errors"]))")
        let messages = try #require(report["messages"] as? [String: Int])
        #expect(messages["sent"] == 40_000)
        #expect(messages["received"] == messages["sent"])
        #expect(messages["timed_out"] == 0 && messages["lost"] == 0)
        let peak = try #require(report["peak_rss_bytes"] as? Int)
        #expect(peak > 10_000_000)
        #expect(run.stdoutText.contains("peak 10,000 open"))
        #expect(run.stdoutText.contains("memory      peak RSS"))
        // The timeline covers the 20 s (a late sample covers more than one), all 10,000 open.
        let timeline = report["timeline"] as? [[String: Any]] ?? []
        let covered = timeline.compactMap { ($0["span"] as? NSNumber)?.doubleValue }.reduce(0, +)
        #expect(covered >= 19.5 && covered <= 21, "timeline covers \(covered) s")
        #expect(timeline.allSatisfy { $0["open"] as? Int == 10_000 })
    }

    /// Local ports run out (EADDRNOTAVAIL) in a network namespace of the test's own whose port
    /// range holds 20 ports: the preflight warns with the fix, and the failures are counted as
    /// `ports-exhausted`, apart from what the server did.
    @Test(.enabled(if: geteuid() == 0, "creating a network namespace needs root"))
    func runningOutOfLocalPortsIsCountedAndExplained() async throws {
        let scratch = try Scratch()
        let namespace = "sockctl-ports-\(getpid())"
        let ip = try tool("ip")
        #expect(try await run(ip, ["netns", "add", namespace], scratch: scratch).status == 0)
        defer { runDetached(ip, ["netns", "delete", namespace]) }
        #expect(try await run(ip, ["netns", "exec", namespace, "ip", "link", "set", "lo", "up"], scratch: scratch).status == 0)
        #expect(try await run(ip, ["netns", "exec", namespace, "sysctl", "-q", "-w", "net.ipv4.ip_local_port_range=40000 40019"], scratch: scratch).status == 0)
        let listener = try Child(ip, ["netns", "exec", namespace, try sockctlPath(), "listen", "127.0.0.1:7000", "-k", "--echo", "--framing", "line"], scratch: scratch, name: "listener")
        defer { listener.signal(SIGKILL) }
        _ = try await listener.listeningPort()
        let json = scratch.path("ports.json")
        let result = try await run(ip, [
            "netns", "exec", namespace, try sockctlPath(), "loadtest", "127.0.0.1:7000", "-c", "50", "--duration", "2s", "--framing", "line", "--json", json,
        ], scratch: scratch)
        #expect(result.status == 1)
        #expect(result.stderr.contains("the local port range 40000-40019 holds 20 ports, fewer than 50"), "\(result.stderr)")
        #expect(result.stderr.contains("net.ipv4.ip_local_port_range"))
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any] ?? [:]
        let errors = report["errors"] as? [String: Int] ?? [:]
        #expect((errors["ports-exhausted"] ?? 0) > 0, "\(errors)")
        let connections = report["connections"] as? [String: Int] ?? [:]
        #expect((connections["peak_open"] ?? 0) <= 20)
        #expect(result.stderr.contains("connections could be opened"))
    }

    /// Several targets: the connections are spread over them in turn.
    @Test func connectionsAreSpreadOverSeveralTargets() async throws {
        let scratch = try Scratch()
        var listeners: [Child] = []
        var targets: [String] = []
        defer { listeners.forEach { $0.signal(SIGKILL) } }
        for index in 0..<3 {
            let child = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--echo", "--framing", "line"], scratch: scratch, name: "listener-\(index)")
            listeners.append(child)
            targets.append("127.0.0.1:\(try await child.listeningPort())")
        }
        let result = try await run(try sockctlPath(), ["loadtest"] + targets + ["-c", "6", "--requests", "600", "--framing", "line"], scratch: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("received 600"))
        for listener in listeners {
            #expect(listener.stderr.contains("client 2 connected"), "\(listener.stderr)")
            #expect(!listener.stderr.contains("client 3 connected"), "\(listener.stderr)")
        }
    }
}
