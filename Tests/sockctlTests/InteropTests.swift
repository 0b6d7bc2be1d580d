import Foundation
import TestSupport
import Testing

import Glibc

/// sockctl against the tools it replaces, all on loopback, with real sockets.
@Suite(.hangGuard) struct InteropTests {
    static let size = 16 << 20

    @Test func sixteenMebibytesFromConnectIntoNcatArriveIntact() async throws {
        let scratch = try Scratch()
        let payload = try await randomFile(scratch.path("payload"), bytes: Self.size)
        for viaPipe in [false, true] {
            let ncat = try await Child(try tool("ncat"), ["-v", "-l", "--recv-only", "127.0.0.1", "0"])
            try await ncat.waitForStderr("Ncat: Listening on")
            let port = try ncat.listeningTCPPort()
            let status: Int32
            if viaPipe {
                // stdin from a pipe: the chunked read path.
                let sender = try await Child("/bin/sh", ["-c", "cat '\(scratch.path("payload"))' | '\(try sockctlPath())' connect 127.0.0.1:\(port)"], name: "sockctl-pipe")
                status = try await sender.wait()
            } else {
                // stdin from a regular file: the sendfile path.
                status = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(port)"], stdin: .file(scratch.path("payload"))).status
            }
            #expect(status == 0)
            #expect(try await ncat.wait() == 0)
            try await ncat.waitForEndOfStdout()
            // Compared as a Bool: a failed == on 16 MiB values would make the test library diff them.
            let identical = ncat.stdout == payload
            #expect(identical, "via \(viaPipe ? "pipe" : "file"): \(ncat.stdout.count) of \(payload.count) bytes arrived intact")
        }
    }

    @Test func sixteenMebibytesFromNcatIntoListenArriveIntact() async throws {
        let scratch = try Scratch()
        let payload = try await randomFile(scratch.path("payload"), bytes: Self.size)
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--recv-only"])
        let port = try await listener.listeningPort()
        let ncat = try await run(try tool("ncat"), ["--send-only", "127.0.0.1", "\(port)"], stdin: .file(scratch.path("payload")))
        #expect(ncat.status == 0)
        #expect(try await listener.wait() == 0)
        let identical = listener.stdout == payload
        #expect(identical, "\(listener.stdout.count) of \(payload.count) bytes arrived intact")
        #expect(listener.stderr.contains("(\(Self.size) bytes in, 0 bytes out)"))
    }

    @Test func sendAgainstSocatCatEchoes() async throws {
        let socat = try await Child(try tool("socat"), ["-d", "-d", "-t", "3600", "TCP-LISTEN:0,bind=127.0.0.1,reuseaddr,fork", "EXEC:cat"])
        let port = try await socat.socatPort()
        let raw = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "hello socat"])
        #expect(raw.status == 0)
        #expect(String(decoding: raw.stdout, as: UTF8.self) == "hello socat")
        let framed = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "crlf", #"{"a":1}"#, #"{"b":2}"#, "--responses", "2"])
        #expect(framed.status == 0)
        #expect(String(decoding: framed.stdout, as: UTF8.self) == "{\"a\":1}\n{\"b\":2}\n")
        socat.signal(SIGTERM)
    }

    @Test func udpRoundTripsWithSocat() async throws {
        // sockctl send → socat echo
        let socat = try await Child(try tool("socat"), ["-d", "-d", "UDP-LISTEN:0,bind=127.0.0.1", "EXEC:cat"])
        let port = try await socat.socatPort()
        // One datagram per round, answered before the next is sent.
        let sent = try await run(try sockctlPath(), ["send", "udp://127.0.0.1:\(port)", "ping", "--repeat", "3", "--timeout", "120s"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(String(decoding: sent.stdout, as: UTF8.self) == "ping\nping\nping\n")
        socat.signal(SIGTERM)

        // socat client → sockctl listen --echo, which names the sender
        let listener = try await Child(try sockctlPath(), ["listen", "udp://127.0.0.1:0", "--echo", "-v"])
        let listenPort = try await listener.listeningPort()
        // socat as the client: the datagram from its stdin, the echo on its stdout; stdin stays
        // open so socat waits for the reply however long it takes.
        let client = try await Child(try tool("socat"), ["-", "UDP:127.0.0.1:\(listenPort)"], stdin: .pipe, name: "socat-client")
        try client.send("datagram")
        try await client.waitForStdout("datagram")
        client.signal(SIGTERM)
        #expect(client.stdoutText == "datagram")
        try await listener.waitForStderr("datagram from 127.0.0.1:")
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
        #expect(listener.stderr.contains("summary: 1 datagram in, 1 out, 8 bytes in, 8 bytes out"))
    }

    @Test func unixSocketRoundTripsWithNcAndSocat() async throws {
        let scratch = try Scratch()
        // socat → sockctl listen unix: --echo, repeated: a client that sends and shuts down at
        // once must still be served (this raced with closing the listener once). socat's `-t`
        // (how long it waits for the answer after its input ended, 0.5 s by default) is an hour:
        // it returns when the listener closes, not when a timer runs out.
        for round in 0..<10 {
            let path = scratch.path("echo-\(round).sock")
            let listener = try await Child(try sockctlPath(), ["listen", "unix:\(path)", "--echo"])
            try await listener.waitForStderr("listening on")
            let client = try await run("/bin/sh", ["-c", "printf 'over unix %d\\n' \(round) | '\(try tool("socat"))' -t 3600 - UNIX-CONNECT:\(path)"])
            #expect(String(decoding: client.stdout, as: UTF8.self) == "over unix \(round)\n", "round \(round)")
            #expect(try await listener.wait() == 0)
            #expect(!FileManager.default.fileExists(atPath: path), "socket file removed on exit")
        }
        let path = scratch.path("nc.sock")
        let listener = try await Child(try sockctlPath(), ["listen", "unix:\(path)", "--echo"])
        try await listener.waitForStderr("listening on")
        let nc = try await run("/bin/sh", ["-c", "printf 'via nc\\n' | '\(try tool("nc"))' -N -U \(path)"])
        #expect(String(decoding: nc.stdout, as: UTF8.self) == "via nc\n")
        #expect(try await listener.wait() == 0)

        // sockctl send → socat echo on a Unix socket
        let socatPath = scratch.path("socat.sock")
        let socat = try await Child(try tool("socat"), ["-d", "-d", "-t", "3600", "UNIX-LISTEN:\(socatPath),fork", "EXEC:cat"])
        try await socat.waitForStderr("listening on")
        let sent = try await run(try sockctlPath(), ["send", "unix:\(socatPath)", "hello unix"])
        #expect(sent.status == 0)
        #expect(String(decoding: sent.stdout, as: UTF8.self) == "hello unix")
        socat.signal(SIGTERM)
    }

    /// (socat waits for the answer as long as it takes: `-t 3600`.)
    @Test func tcpClientsThatSendAndHalfCloseAtOnceAreServed() async throws {
        for round in 0..<10 {
            let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo"])
            let port = try await listener.listeningPort()
            let client = try await run("/bin/sh", ["-c", "printf 'quick %d' \(round) | '\(try tool("socat"))' -t 3600 - TCP:127.0.0.1:\(port)"])
            #expect(String(decoding: client.stdout, as: UTF8.self) == "quick \(round)")
            #expect(try await listener.wait() == 0)
        }
    }
}
