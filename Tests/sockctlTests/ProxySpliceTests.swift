import Foundation
import NIOCore
import SocketEngine
import TestSupport
import Testing

import Glibc

/// `sockctl proxy`'s fast path as a user sees it (issue 32): `-v` names how plain clients'
/// bytes move (splice(2) through pipes lent while bytes wait in them) and how many clients went
/// that way; a client held open costs the proxy its two sockets and no pipe, and 1,000 relayed
/// clients leave no socket open and no more than the loop's few spare pipes.
@Suite("sockctl proxy: the splice path", .hangGuard)
struct ProxySpliceTests {
    /// 1,000 clients, one after the other, each relayed to a line echo and back: `-v` said at the
    /// start that plain clients are spliced and at the end that all 1,000 were; once they have
    /// gone, the proxy holds the sockets it held before the first, and at most the 16 spare pipes
    /// the loop keeps (two descriptors each) beside its own pipes.
    @Test func aThousandSplicedClientsLeaveNoDescriptorOpen() async throws {
        let (echo, echoPort) = try await ProxyCommandTests.lineEcho()
        let proxy = try await RunningProxy(to: "127.0.0.1:\(echoPort)", ["-v"])
        // Said before the listening line that RunningProxy waited for.
        #expect(proxy.child.stderr.contains("fast path for plain tcp/unix clients nothing watches: splice(2) through "), "\(proxy.child.stderr)")
        let before = try Self.descriptors(of: proxy.child.pid)
        for index in 1...1000 {
            let client = try await connect("127.0.0.1:\(proxy.port)")
            try await client.write(ByteBuffer(string: "ping \(index)\n"))
            #expect(string(try await client.read(.exactly("ping \(index)\n".utf8.count))) == "ping \(index)\n")
            await client.close()
        }
        try await proxy.child.waitForStderr(" disconnected after ", count: 1000)
        let after = try Self.descriptors(of: proxy.child.pid)
        #expect(after["socket:"] == before["socket:"], "open before the clients: \(before); after them: \(after)")
        let spare = (after["pipe:"] ?? 0) - (before["pipe:"] ?? 0)
        #expect(spare >= 0 && spare <= 32 && spare % 2 == 0, "open before the clients: \(before); after them: \(after)")
        #expect(try await proxy.interrupt() == 0)
        #expect(proxy.child.stderr.contains("fast path: 1000 clients spliced, 0 copied\n"), "\(proxy.child.stderr.suffix(600))")
        try await ProxyCommandTests.stop(echo)
    }

    /// 300 clients held open at once, each having had a line echoed through: the proxy holds two
    /// sockets per client (its own and its upstream's) and no pipe for any of them (a spliced
    /// client used to hold two pipes, four descriptors more, for its whole life).
    @Test func aHeldClientCostsTwoSocketsAndNoPipe() async throws {
        // Both above the default limit of 100 clients.
        let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line", "-k", "--max-clients", "400"], name: "echo")
        let echoPort = try await echo.listeningPort()
        let proxy = try await RunningProxy(to: "127.0.0.1:\(echoPort)", ["-v", "--max-clients", "400"])
        let before = try Self.descriptors(of: proxy.child.pid)
        var clients: [Connection] = []
        for index in 1...300 {
            let client = try await connect("127.0.0.1:\(proxy.port)")
            try await client.write(ByteBuffer(string: "ping \(index)\n"))
            #expect(string(try await client.read(.exactly("ping \(index)\n".utf8.count))) == "ping \(index)\n")
            clients.append(client)
        }
        let held = try Self.descriptors(of: proxy.child.pid)
        #expect((held["socket:"] ?? 0) - (before["socket:"] ?? 0) == 600, "before: \(before); with 300 clients held: \(held)")
        #expect((held["pipe:"] ?? 0) - (before["pipe:"] ?? 0) <= 32, "before: \(before); with 300 clients held: \(held)")
        for client in clients { await client.close() }
        try await proxy.child.waitForStderr(" disconnected after ", count: 300)
        #expect(try await proxy.interrupt() == 0)
        try await ProxyCommandTests.stop(echo)
    }

    /// A client costs two descriptors (its socket and its upstream's): under `ulimit -n 1000`,
    /// `--max-clients 600` (1,200 of them) is warned about, and `--max-clients 400` is not.
    @Test func theDescriptorWarningCountsTwoPerClient() async throws {
        let (echo, echoPort) = try await ProxyCommandTests.lineEcho()
        for (clients, warned) in [(600, true), (400, false)] {
            let proxy = try await Child(
                "/bin/sh", ["-c", "ulimit -n 1000 && exec \"$0\" \"$@\"", try sockctlPath(), "proxy", "127.0.0.1:0", "127.0.0.1:\(echoPort)", "--max-clients", "\(clients)"],
                name: "proxy"
            )
            // Said before the listening line.
            _ = try await proxy.listeningPort()
            #expect(proxy.stderr.contains("--max-clients \(clients) needs \(2 * clients) descriptors, above the limit 1000") == warned, "\(proxy.stderr)")
            proxy.signal(SIGINT)
            #expect(try await proxy.wait() == 0)
        }
        try await ProxyCommandTests.stop(echo)
    }

    /// How many pipes and sockets process `pid` holds open, by kind.
    static func descriptors(of pid: Int32) throws -> [String: Int] {
        var kinds: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)") else { continue }
            for kind in ["pipe:", "socket:"] where target.hasPrefix(kind) { kinds[kind, default: 0] += 1 }
        }
        return kinds
    }
}
