import Foundation
import TestSupport
import Testing

import Glibc

/// What a user of nc and ncat types works on `connect` and `listen`: `HOST PORT`, `-u`, `-w`,
/// `-z`, `listen -p`; beside nc itself where the two can be compared.
@Suite(.hangGuard) struct NetcatHabitsTests {
    /// `connect HOST PORT` as nc takes it, IPv6 addresses without brackets included.
    @Test func hostAndPortAsTwoWords() async throws {
        let scratch = try Scratch()
        try "hi\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let listener = try await Child(try sockctlPath(), ["listen", "0", "--echo", "-k"])
        let port = try await listener.listeningPort()
        for host in ["127.0.0.1", "::1", "[::1]", "localhost"] {
            let result = try await run(try sockctlPath(), ["connect", host, "\(port)"], stdin: .file(scratch.path("input")))
            #expect(result.status == 0, "\(host): \(result.stderr)")
            #expect(String(decoding: result.stdout, as: UTF8.self) == "hi\n", "\(host)")
        }
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    /// `-u` is `udp://`, as nc's `-u`: for HOST PORT and for HOST:PORT; on listen too.
    @Test func dashUMeansUDP() async throws {
        let scratch = try Scratch()
        try "ping\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let listener = try await Child(try sockctlPath(), ["listen", "-u", "127.0.0.1:0", "--echo"])
        let port = try await listener.listeningPort()
        _ = try await listener.waitForStderr("(udp)")
        for target in [["127.0.0.1", "\(port)"], ["127.0.0.1:\(port)"], ["udp://127.0.0.1:\(port)"]] {
            let result = try await run(try sockctlPath(), ["connect", "-u", "-w", "1"] + target, stdin: .file(scratch.path("input")))
            #expect(result.status == 0, "\(target): \(result.stderr)")
            #expect(String(decoding: result.stdout, as: UTF8.self) == "ping\n", "\(target)")
        }
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)

        let mixed = try await run(try sockctlPath(), ["connect", "-u", "tcp://127.0.0.1:\(port)"])
        #expect(mixed.status == 2)
        #expect(mixed.stderr.contains("-u means udp://, but 'tcp://127.0.0.1:\(port)' is tcp://"), "\(mixed.stderr)")
    }

    /// `listen -p PORT` as ncat's `-l -p PORT`: loopback, as `listen PORT` is.
    @Test func listenTakesThePortAsDashP() async throws {
        let scratch = try Scratch()
        try "hi\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let listener = try await Child(try sockctlPath(), ["listen", "-p", "0", "--echo"])
        let port = try await listener.listeningPort()
        let lines = try await listener.waitForStderr("listening on")
        #expect(lines.contains("listening on 127.0.0.1:\(port), [::1]:\(port) (tcp)"), "\(lines)")
        let result = try await run(try sockctlPath(), ["connect", "127.0.0.1", "\(port)"], stdin: .file(scratch.path("input")))
        #expect(String(decoding: result.stdout, as: UTF8.self) == "hi\n", "\(result.stderr)")
        #expect(try await listener.wait() == 0, "without -k it ends with its one client, like nc -l")

        let both = try await run(try sockctlPath(), ["listen", "-p", "7000", "7001"])
        #expect(both.status == 2)
        #expect(both.stderr.contains("-p gives the port to listen on, and so does the endpoint"), "\(both.stderr)")
    }

    /// `-z HOST PORT-PORT` and a list of ports, beside `nc -z`: the same exit status (0 when a
    /// port is open, 1 when none is), and one line per port on stderr.
    @Test func dashZChecksAPortARangeAndAList() async throws {
        let block = try PortBlock(count: 4, open: [1])
        let nc = try tool("nc")
        let sockctl = try sockctlPath()

        let range = try await run(sockctl, ["connect", "-z", "127.0.0.1", block.range])
        #expect(range.status == 0, "\(range.stderr)")
        #expect(range.status == (try await run(nc, ["-z", "127.0.0.1", block.range])).status, "nc -z agrees")
        #expect(range.stderr == """
            sockctl connect: 127.0.0.1 \(block[0]) (tcp) closed: connection refused (ECONNREFUSED)
            sockctl connect: 127.0.0.1 \(block[1]) (tcp) open
            sockctl connect: 127.0.0.1 \(block[2]) (tcp) closed: connection refused (ECONNREFUSED)
            sockctl connect: 127.0.0.1 \(block[3]) (tcp) closed: connection refused (ECONNREFUSED)
            sockctl connect: 4 ports checked: 1 open (\(block[1])), 3 closed

            """)

        let closed = [String(block[0]), "\(block[2])-\(block[3])"]
        let none = try await run(sockctl, ["connect", "-z", "127.0.0.1"] + closed)
        #expect(none.status == 1, "\(none.stderr)")
        #expect(none.status == (try await run(nc, ["-z", "127.0.0.1"] + closed)).status, "nc -z agrees")
        #expect(none.stderr.contains("3 ports checked: 0 open, 3 closed"), "\(none.stderr)")

        let one = try await run(sockctl, ["connect", "-z", "127.0.0.1:\(block[1])"])
        #expect(one.status == 0)
        #expect(one.stderr == "sockctl connect: 127.0.0.1 \(block[1]) (tcp) open\n")
        #expect(try await run(sockctl, ["connect", "--check-ports", "localhost", "\(block[1])"]).stderr
            == "sockctl connect: localhost (127.0.0.1) \(block[1]) (tcp) open\n")

        let bad = try await run(sockctl, ["connect", "-z", "127.0.0.1", "20-x"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("invalid port '20-x': expected a port or a range of ports, e.g. 7000 or 20-30"), "\(bad.stderr)")
        withExtendedLifetime(block) {}
    }

    /// `-w SECS` bounds the idle time, as nc's `-w`: a quiet session (stdin open, the peer
    /// silent) ends after it with status 0, as nc's does.
    @Test func dashWEndsAQuietSessionAsNcDoes() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--recv-only", "-k"])
        let port = try await listener.listeningPort()
        let session = try await Child(try sockctlPath(), ["connect", "-w", "1", "-v", "127.0.0.1", "\(port)"], stdin: .pipe)
        #expect(try await session.wait() == 0, "\(session.stderr)")
        #expect(session.stderr.contains("idle for 1s: ending the session"), "\(session.stderr)")
        let nc = try await Child(try tool("nc"), ["-w", "1", "127.0.0.1", "\(port)"], stdin: .pipe)
        #expect(try await nc.wait() == 0, "nc -w ends the same way")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    /// `-w SECS` bounds the connect too: an address that never answers (a black hole in a
    /// namespace of the test's own) fails after it.
    @Test func dashWBoundsTheConnect() async throws {
        let namespace = try await BlackHoleNamespace()
        let result = try await run(namespace.ip, namespace.command([
            try sockctlPath(), "connect", "-w", "700ms", BlackHoleNamespace.silentIPv4, "7",
        ]))
        #expect(result.status == 1)
        #expect(result.stderr.contains("connect to \(BlackHoleNamespace.silentIPv4):7 timed out after 700ms"), "\(result.stderr)")
        try await namespace.remove()
    }

    /// An option connect does not have is named as one; it is not taken for the endpoint.
    @Test func anUnknownOptionIsReportedAsOne() async throws {
        let result = try await run(try sockctlPath(), ["connect", "-x", "2", "127.0.0.1:9"])
        #expect(result.status == 2)
        #expect(result.stderr.lowercased().contains("unknown option '-x'"), "\(result.stderr)")
        #expect(!result.stderr.contains("invalid endpoint"), "\(result.stderr)")
    }
}
