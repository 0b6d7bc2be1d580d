import Foundation
import NIOCore
import SocketEngine
import TestSupport
import Testing

import Glibc

/// Nobody may hold a server's places (issue 26, points 4, 5 and 8), against the real binary on
/// loopback: clients stalled in a TLS handshake, clients that trickle a byte at a time, idle
/// clients, and idle connections to the metrics port are let go, and a real client is then
/// served. Every wait is for an event (a log line, an output line, an end of stream); the
/// timeouts themselves are checked in virtual time by the engine's tests.
@Suite("listen and proxy: places are not held forever", .hangGuard)
struct ServerSlotTests {
    /// `listen … --echo -k`, or a `proxy` from `listen` to an echoing `sockctl listen`; with the
    /// server's own arguments after the endpoint.
    struct Server {
        let child: Child
        let port: Int
        let upstream: Child?

        init(_ command: String, _ endpoint: String, _ arguments: [String], shell: String? = nil) async throws {
            var upstream: Child?
            var full: [String]
            if command == "proxy" {
                let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k", "--max-clients", "1000"], name: "upstream")
                upstream = echo
                full = ["proxy", endpoint, "127.0.0.1:\(try await echo.listeningPort())"] + arguments
            } else {
                full = ["listen", endpoint, "--echo", "-k"] + arguments
            }
            if let shell {
                // `sh -c 'ulimit …; exec "$0" "$@"' sockctl ARGS`: the limits apply to sockctl alone.
                child = try await Child("/bin/sh", ["-c", "\(shell) && exec \"$0\" \"$@\"", try sockctlPath()] + full, name: command)
            } else {
                child = try await Child(try sockctlPath(), full, name: command)
            }
            self.upstream = upstream
            port = try await child.listeningPort()
        }

        func kill() {
            child.signal(SIGKILL)
            upstream?.signal(SIGKILL)
        }
    }

    static let commands = ["listen", "proxy"]

    /// How `connection` ends once read on: `eof`, an error code's name, or `data`.
    static func ending(_ connection: Connection) async -> String {
        do {
            return try await connection.read() == nil ? "eof" : "data"
        } catch let error as SocketEngineError {
            return error.code.name
        } catch {
            return "\(error)"
        }
    }

    // MARK: 26.4 Handshakes

    /// The start of a ClientHello (record header, handshake header, version, part of the random):
    /// a TLS server waits for the rest.
    static let halfAClientHello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03] + Array(repeating: 0x2A, count: 16)

    /// `--max-clients 2` and two clients that send half a ClientHello and wait: both are closed
    /// when the handshake timeout (the default 10 s) passes and the log says so, and a real TLS
    /// client is then served (its own handshake has the same 10 s: plenty, even on a loaded
    /// machine; exactly when the timeout fires is checked in virtual time).
    @Test(arguments: commands)
    func clientsStalledInTheTLSHandshakeGiveTheirPlacesUp(command: String) async throws {
        let dir = try await TestCertificates.shared.directory()
        let server = try await Server(command, "tls://127.0.0.1:0", [
            "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key", "--max-clients", "2",
        ])
        defer { server.kill() }
        var stalled: [Connection] = []
        for _ in 0..<2 {
            let connection = try await connect("127.0.0.1:\(server.port)")
            try await connection.write(ByteBuffer(bytes: Self.halfAClientHello))
            stalled.append(connection)
        }
        // The default 10 s: the real client after them must finish its own handshake within it,
        // which a loaded machine does with a wide margin.
        try await server.child.waitForStderr(": no TLS handshake within 10s", count: 2)
        for connection in stalled { #expect(await Self.ending(connection) == "eof") }
        let result = try await run(try sockctlPath(), ["send", "tls://127.0.0.1:\(server.port)", "--cafile", "\(dir)/ca.pem", "--framing", "line", "served"])
        #expect(result.status == 0, "\(result.stderr)\n\(server.child.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "served\n")
    }

    // MARK: 26.5 Trickles and idle clients

    /// A client that sends one byte, reads it back, and again every 200 ms, printing `sent N`
    /// after each, until the server closes it (`closed`).
    static let trickler = """
        import socket, sys, time
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        n = 0
        while True:
            try:
                s.sendall(b"x")
                if s.recv(1) != b"x": break
            except OSError:
                break
            n += 1
            print("sent", n, flush=True)
            time.sleep(0.2)
        print("closed", flush=True)
        """

    /// `--max-clients 2` held by two clients trickling a byte every 200 ms (about 10 bytes a
    /// second with the echo, below the default 500): once they have had their window (1 s
    /// here), a real client takes the place of one of them and is served, and the log says why
    /// the trickler went. Through the proxy the tricklers are relayed by the epoll relay loop.
    @Test(arguments: commands)
    func tricklingClientsMakeRoomForARealClient(command: String) async throws {
        let server = try await Server(command, "127.0.0.1:0", ["--max-clients", "2", "--rate-window", "1s"])
        defer { server.kill() }
        var tricklers: [Child] = []
        defer { tricklers.forEach { $0.signal(SIGKILL) } }
        for _ in 0..<2 {
            tricklers.append(try await Child(try tool("python3"), ["-c", Self.trickler, "\(server.port)"], name: "trickler"))
        }
        // Ten round trips each: well past their 1 s window.
        for trickler in tricklers { try await trickler.waitForStdout("sent 10\n") }
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(server.port)", "--framing", "line", "served"])
        #expect(result.status == 0, "\(result.stderr)\n\(server.child.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "served\n")
        try await server.child.waitForStderr("made room for a new client: ")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for trickler in tricklers { group.addTask { try await trickler.waitForStdout("closed\n") } }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// `--idle-timeout 1s`: a client that connects and says nothing is closed, and the log says
    /// why (that a client that talks is not, and when exactly, is checked in virtual time).
    @Test(arguments: commands)
    func anIdleClientIsClosedAtTheIdleTimeout(command: String) async throws {
        let server = try await Server(command, "127.0.0.1:0", ["--idle-timeout", "1s"])
        defer { server.kill() }
        let silent = try await connect("127.0.0.1:\(server.port)")
        #expect(await Self.ending(silent) == "eof")
        try await server.child.waitForStderr(": idle for 1s")
        await silent.close()
    }

    // MARK: 26.8 The metrics port

    /// `proxy --metrics-listen` under `ulimit -n 128` with 200 idle connections to the metrics
    /// port: all but 16 are refused at once (and logged), the proxy still relays a real client,
    /// the 16 are cut when they have sent no request for 10 s, and a scrape is then answered.
    @Test func idleMetricsConnectionsDoNotStarveTheService() async throws {
        let server = try await Server("proxy", "127.0.0.1:0", ["--max-clients", "20", "--metrics-listen", ":0"], shell: "ulimit -n 128")
        defer { server.kill() }
        let url = try await LoadTestMetricsTests.metricsURL(server.child)
        let authority = String(url.dropFirst("http://".count).prefix { $0 != "/" })
        var idle: [Connection] = []
        for _ in 0..<200 { idle.append(try await connect(authority)) }
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(server.port)", "--framing", "line", "served"])
        #expect(result.status == 0, "\(result.stderr)\n\(server.child.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "served\n")
        try await server.child.waitForStderr("metrics: refused ")
        try await server.child.waitForStderr("no complete request within 10s", count: 16)
        var ended = 0
        for connection in idle where await Self.ending(connection) == "eof" { ended += 1 }
        #expect(ended == 200, "every idle connection is closed, refused or cut")
        let scrape = try await HTTPResponse.fetch(url)
        #expect(scrape.status == 200)
        #expect(scrape.body.contains("sockctl_proxy_clients_total"))
        for connection in idle { await connection.close() }
    }
}
