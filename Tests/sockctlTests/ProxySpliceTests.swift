import Foundation
import NIOCore
import SocketEngine
import TestSupport
import Testing

import Glibc

/// `sockctl proxy`'s fast path as a user sees it (issue 32): `-v` names how plain clients'
/// bytes move (splice(2) through a pipe per direction) and how many clients went that way, and
/// the pipes and sockets of 1,000 relayed clients are all closed again.
@Suite("sockctl proxy: the splice path", .hangGuard)
struct ProxySpliceTests {
    /// 1,000 clients, one after the other, each relayed to a line echo and back: `-v` said at the
    /// start that plain clients are spliced and at the end that all 1,000 were; once they have
    /// gone, the proxy holds exactly the pipes and sockets it held before the first.
    @Test func aThousandSplicedClientsLeaveNoDescriptorOpen() async throws {
        let (echo, echoPort) = try await ProxyCommandTests.lineEcho()
        let proxy = try await RunningProxy(to: "127.0.0.1:\(echoPort)", ["-v"])
        // Said before the listening line that RunningProxy waited for.
        #expect(proxy.child.stderr.contains("fast path for plain tcp/unix clients nothing watches: splice(2) through a "), "\(proxy.child.stderr)")
        let before = try Self.descriptors(of: proxy.child.pid)
        for index in 1...1000 {
            let client = try await connect("127.0.0.1:\(proxy.port)")
            try await client.write(ByteBuffer(string: "ping \(index)\n"))
            #expect(string(try await client.read(.exactly("ping \(index)\n".utf8.count))) == "ping \(index)\n")
            await client.close()
        }
        try await proxy.child.waitForStderr(" disconnected after ", count: 1000)
        let after = try Self.descriptors(of: proxy.child.pid)
        #expect(after == before, "open before the clients: \(before); after them: \(after)")
        #expect(try await proxy.interrupt() == 0)
        #expect(proxy.child.stderr.contains("fast path: 1000 clients spliced, 0 copied\n"), "\(proxy.child.stderr.suffix(600))")
        try await ProxyCommandTests.stop(echo)
    }

    /// A spliced client costs six descriptors (its socket, its upstream's, two pipes): under
    /// `ulimit -n 1000`, `--max-clients 200` (1,200 of them) is warned about.
    @Test func theDescriptorWarningCountsThePipes() async throws {
        let (echo, echoPort) = try await ProxyCommandTests.lineEcho()
        let proxy = try await Child(
            "/bin/sh", ["-c", "ulimit -n 1000 && exec \"$0\" \"$@\"", try sockctlPath(), "proxy", "127.0.0.1:0", "127.0.0.1:\(echoPort)", "--max-clients", "200"],
            name: "proxy"
        )
        // Said before the listening line.
        _ = try await proxy.listeningPort()
        #expect(proxy.stderr.contains("--max-clients 200 needs 1200 descriptors, above the limit 1000"), "\(proxy.stderr)")
        proxy.signal(SIGINT)
        #expect(try await proxy.wait() == 0)
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
