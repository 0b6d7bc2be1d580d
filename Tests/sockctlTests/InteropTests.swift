import Foundation
import Testing

/// sockctl against the tools it replaces, all on loopback, with real sockets.
@Suite(.serialized) struct InteropTests {
    static let size = 16 << 20

    @Test func sixteenMebibytesFromConnectIntoNcatArriveIntact() async throws {
        let scratch = try Scratch()
        let payload = try randomFile(scratch.path("payload"), bytes: Self.size)
        for viaPipe in [false, true] {
            let port = try freePort()
            let ncat = try Child(try tool("ncat"), ["-l", "--recv-only", "127.0.0.1", "\(port)"], scratch: scratch)
            try await waitForTCPListener(port: port)
            let status: Int32
            if viaPipe {
                // stdin from a pipe: the chunked read path.
                let sender = try Child("/bin/sh", ["-c", "cat '\(scratch.path("payload"))' | '\(try sockctlPath())' connect 127.0.0.1:\(port)"], scratch: scratch, name: "sockctl-pipe")
                status = try await sender.wait()
            } else {
                // stdin from a regular file: the sendfile path.
                status = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(port)"], stdin: .file(scratch.path("payload")), scratch: scratch).status
            }
            #expect(status == 0)
            #expect(try await ncat.wait() == 0)
            // Compared as a Bool: a failed == on 16 MiB values would make the test library diff them.
            let identical = ncat.stdout == payload
            #expect(identical, "via \(viaPipe ? "pipe" : "file"): \(ncat.stdout.count) of \(payload.count) bytes arrived intact")
        }
    }

    @Test func sixteenMebibytesFromNcatIntoListenArriveIntact() async throws {
        let scratch = try Scratch()
        let payload = try randomFile(scratch.path("payload"), bytes: Self.size)
        let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--recv-only"], scratch: scratch)
        let port = try await listener.listeningPort()
        let ncat = try await run(try tool("ncat"), ["--send-only", "127.0.0.1", "\(port)"], stdin: .file(scratch.path("payload")), scratch: scratch)
        #expect(ncat.status == 0)
        #expect(try await listener.wait() == 0)
        let identical = listener.stdout == payload
        #expect(identical, "\(listener.stdout.count) of \(payload.count) bytes arrived intact")
        #expect(listener.stderr.contains("(\(Self.size) bytes in, 0 bytes out)"))
    }

    @Test func sendAgainstSocatCatEchoes() async throws {
        let scratch = try Scratch()
        let port = try freePort()
        let socat = try Child(try tool("socat"), ["TCP-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork", "EXEC:cat"], scratch: scratch)
        try await waitForTCPListener(port: port)
        let raw = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "hello socat"], scratch: scratch)
        #expect(raw.status == 0)
        #expect(String(decoding: raw.stdout, as: UTF8.self) == "hello socat")
        let framed = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "crlf", #"{"a":1}"#, #"{"b":2}"#, "--responses", "2"], scratch: scratch)
        #expect(framed.status == 0)
        #expect(String(decoding: framed.stdout, as: UTF8.self) == "{\"a\":1}\n{\"b\":2}\n")
        socat.signal(SIGTERM)
    }

    @Test func udpRoundTripsWithSocat() async throws {
        let scratch = try Scratch()
        // sockctl send → socat echo
        let port = try freePort(udp: true)
        let socat = try Child(try tool("socat"), ["UDP-LISTEN:\(port),bind=127.0.0.1", "EXEC:cat"], scratch: scratch)
        try await Task.sleep(for: .milliseconds(300))
        // One datagram per round, answered before the next is sent.
        let sent = try await run(try sockctlPath(), ["send", "udp://127.0.0.1:\(port)", "ping", "--repeat", "3", "--timeout", "3s"], scratch: scratch)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(String(decoding: sent.stdout, as: UTF8.self) == "ping\nping\nping\n")
        socat.signal(SIGTERM)

        // socat client → sockctl listen --echo, which names the sender
        let listener = try Child(try sockctlPath(), ["listen", "udp://127.0.0.1:0", "--echo", "-v"], scratch: scratch)
        let listenPort = try await listener.listeningPort()
        let reply = try await run("/bin/sh", ["-c", "printf 'datagram' | '\(try tool("socat"))' -t1 - UDP:127.0.0.1:\(listenPort)"], scratch: scratch)
        #expect(String(decoding: reply.stdout, as: UTF8.self) == "datagram")
        try await listener.waitForStderr("datagram from 127.0.0.1:")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("summary: 1 datagram in, 1 out, 8 bytes in, 8 bytes out"))
    }

    @Test func unixSocketRoundTripsWithNcAndSocat() async throws {
        let scratch = try Scratch()
        // nc -U → sockctl listen unix: --echo, repeated: a client that sends and shuts down at
        // once must still be served (this raced with closing the listener once).
        for round in 0..<10 {
            let path = scratch.path("echo-\(round).sock")
            let listener = try Child(try sockctlPath(), ["listen", "unix:\(path)", "--echo"], scratch: scratch)
            try await listener.waitForStderr("listening on")
            let client = try await run("/bin/sh", ["-c", "printf 'over unix %d\\n' \(round) | '\(try tool("socat"))' - UNIX-CONNECT:\(path)"], scratch: scratch)
            #expect(String(decoding: client.stdout, as: UTF8.self) == "over unix \(round)\n", "round \(round)")
            #expect(try await listener.wait() == 0)
            #expect(!FileManager.default.fileExists(atPath: path), "socket file removed on exit")
        }
        let path = scratch.path("nc.sock")
        let listener = try Child(try sockctlPath(), ["listen", "unix:\(path)", "--echo"], scratch: scratch)
        try await listener.waitForStderr("listening on")
        let nc = try await run("/bin/sh", ["-c", "printf 'via nc\\n' | '\(try tool("nc"))' -N -U \(path)"], scratch: scratch)
        #expect(String(decoding: nc.stdout, as: UTF8.self) == "via nc\n")
        #expect(try await listener.wait() == 0)

        // sockctl send → socat echo on a Unix socket
        let socatPath = scratch.path("socat.sock")
        let socat = try Child(try tool("socat"), ["UNIX-LISTEN:\(socatPath),fork", "EXEC:cat"], scratch: scratch)
        try await waitFor(timeout: .seconds(5), what: "socat's socket") { FileManager.default.fileExists(atPath: socatPath) ? true : nil }
        let sent = try await run(try sockctlPath(), ["send", "unix:\(socatPath)", "hello unix"], scratch: scratch)
        #expect(sent.status == 0)
        #expect(String(decoding: sent.stdout, as: UTF8.self) == "hello unix")
        socat.signal(SIGTERM)
    }

    @Test func tcpClientsThatSendAndHalfCloseAtOnceAreServed() async throws {
        let scratch = try Scratch()
        for round in 0..<10 {
            let listener = try Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo"], scratch: scratch)
            let port = try await listener.listeningPort()
            let client = try await run("/bin/sh", ["-c", "printf 'quick %d' \(round) | '\(try tool("socat"))' - TCP:127.0.0.1:\(port)"], scratch: scratch)
            #expect(String(decoding: client.stdout, as: UTF8.self) == "quick \(round)")
            #expect(try await listener.wait() == 0)
        }
    }
}
