import Foundation
import TestSupport
import Testing

import Glibc

/// Many connections at once, as a load test of a real service needs.
@Suite("sockctl loadtest at scale", .hangGuard)
struct LoadTestScaleTests {
    /// 500 connections opened at 1,000 a second, all of them used and answered, none lost, no
    /// error of any kind, and the peak memory reported. (10,000 held for 20 s: `make bench`.)
    @Test func fiveHundredConnectionsAreOpenedUsedAndClosed() async throws {
        let scratch = try Scratch()
        #expect(startupDescriptorLimit >= 1024, "the test process raised its descriptor limit to \(startupDescriptorLimit)")
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--echo", "--framing", "line", "--max-clients", "600"], name: "listener")
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()
        let json = scratch.path("scale.json")
        let run = try await Child(try sockctlPath(), [
            "loadtest", "127.0.0.1:\(port)", "-c", "500", "--connect-rate", "1000", "--requests", "5000",
            "--framing", "line", "--message", "c{{conn}} m{{seq}}", "--reply-timeout", "600s", "--json", json,
        ], name: "loadtest")
        let status = try await run.wait()
        try await run.waitForEndOfStdout()
        #expect(status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let connections = try #require(report["connections"] as? [String: Int])
        #expect(connections["established"] == 500)
        #expect(connections["peak_open"] == 500)
        #expect(connections["failed"] == 0)
        #expect(connections["lost"] == 0)
        #expect((report["errors"] as? [String: Int])?.isEmpty == true, "\(String(describing: report["errors"]))")
        let messages = try #require(report["messages"] as? [String: Int])
        #expect(messages["sent"] == 5000)
        #expect(messages["received"] == 5000)
        #expect(messages["timed_out"] == 0 && messages["lost"] == 0)
        let peak = try #require(report["peak_rss_bytes"] as? Int)
        #expect(peak > 1_000_000)
        #expect(run.stdoutText.contains("peak 500 open"))
        #expect(run.stdoutText.contains("memory      peak RSS"))
    }

    /// Local ports run out (EADDRNOTAVAIL) in a network namespace of the test's own whose port
    /// range holds 20 ports: the preflight warns with the fix, and the failures are counted as
    /// `ports-exhausted`, apart from what the server did.
    @Test(.enabled(if: geteuid() == 0, "creating a network namespace needs root"))
    func runningOutOfLocalPortsIsCountedAndExplained() async throws {
        let scratch = try Scratch()
        let namespace = "sockctl-ports-\(getpid())"
        let ip = try tool("ip")
        #expect(try await run(ip, ["netns", "add", namespace]).status == 0)
        #expect(try await run(ip, ["netns", "exec", namespace, "ip", "link", "set", "lo", "up"]).status == 0)
        #expect(try await run(ip, ["netns", "exec", namespace, "sysctl", "-q", "-w", "net.ipv4.ip_local_port_range=40000 40019"]).status == 0)
        let listener = try await Child(ip, ["netns", "exec", namespace, try sockctlPath(), "listen", "127.0.0.1:0", "-k", "--echo", "--framing", "line"], name: "listener")
        defer { listener.signal(SIGKILL) }
        let port = try await listener.listeningPort()
        let json = scratch.path("ports.json")
        let result = try await run(ip, [
            "netns", "exec", namespace, try sockctlPath(), "loadtest", "127.0.0.1:\(port)", "-c", "50", "--requests", "500", "--framing", "line", "--json", json,
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the local port range 40000-40019 holds 20 ports, fewer than 50"), "\(result.stderr)")
        #expect(result.stderr.contains("net.ipv4.ip_local_port_range"))
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any] ?? [:]
        let errors = report["errors"] as? [String: Int] ?? [:]
        #expect((errors["ports-exhausted"] ?? 0) > 0, "\(errors)")
        let connections = report["connections"] as? [String: Int] ?? [:]
        #expect((connections["peak_open"] ?? 0) <= 20)
        #expect(result.stderr.contains("connections could be opened"))
        listener.signal(SIGKILL)
        _ = try await listener.wait()
        _ = try await run(ip, ["netns", "delete", namespace])
    }

    /// Several targets: the connections are spread over them in turn.
    @Test func connectionsAreSpreadOverSeveralTargets() async throws {
        var listeners: [Child] = []
        var targets: [String] = []
        defer { listeners.forEach { $0.signal(SIGKILL) } }
        for index in 0..<3 {
            let child = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--echo", "--framing", "line"], name: "listener-\(index)")
            listeners.append(child)
            targets.append("127.0.0.1:\(try await child.listeningPort())")
        }
        let result = try await run(try sockctlPath(), ["loadtest"] + targets + ["-c", "6", "--requests", "600", "--framing", "line"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("received 600"))
        for listener in listeners {
            #expect(listener.stderr.contains("client 2 connected"), "\(listener.stderr)")
            #expect(!listener.stderr.contains("client 3 connected"), "\(listener.stderr)")
        }
    }
}
