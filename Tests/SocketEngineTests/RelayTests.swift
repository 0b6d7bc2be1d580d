import NIOCore
import Synchronization
import TestSupport
import Testing

import Glibc
@testable import SocketEngine

/// `sockctl proxy`'s engine on real sockets on loopback: the relay, its upstream servers and its
/// clients are all the engine's own listeners and connectors. What a user would check: bytes
/// arrive identical, each direction ends on its own, resets pass through, refused clients and
/// unreachable upstreams are reported, and the summary counts what happened.
@Suite(.hangGuard)
struct RelayTests {
    // MARK: Stream relay

    /// 4 MiB each way at once, through the relay: both ends get exactly the other's bytes, and
    /// the summary and the client's own report count all of them.
    @Test func fourMebibytesEachWayArriveByteForByte() async throws {
        let size = 4 << 20
        let up = patterned(size, seed: 1)
        let down = patterned(size, seed: 2)
        let atUpstream = EventLog<ByteBuffer>()
        let upstream = try await TestServer.start { connection in
            async let sent: Void = writeAndFinish(connection, down)
            atUpstream.record(try await readAll(connection))
            try await sent
        }
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)")
        let client = try await connect("127.0.0.1:\(relay.port)")
        async let sent: Void = writeAndFinish(client, up)
        let atClient = try await readAll(client)
        try await sent
        let received = try await atUpstream.next { $0 }
        #expect(received.readableBytes == size)
        #expect(received == up, "the upstream got other bytes than the client sent")
        #expect(atClient.readableBytes == size)
        #expect(atClient == down, "the client got other bytes than the upstream sent")
        let gone = try await relay.disconnected(1)
        #expect(gone.bytesUp == size && gone.bytesDown == size && gone.error == nil)
        await client.close()
        let summary = await relay.stop()
        #expect(summary.clients == 1 && summary.bytesUp == size && summary.bytesDown == size)
        #expect(summary.upstreamFailures == 0 && summary.resets == 0 && summary.rejected == 0 && summary.dropped == 0)
        await upstream.stop()
    }

    /// The client ends its output: the upstream reads to its end, then still answers, and the
    /// client gets the whole answer and then the end. Events come in their order.
    @Test func halfCloseIsPassedOnEachWaySeparately() async throws {
        let upstream = try await TestServer.start { connection in
            let question = try await readAll(connection)
            // Only after the end of the question: the relay kept this direction open.
            try await connection.write(ByteBuffer(string: "answer to \(string(question) ?? ""), "))
            try await connection.write(ByteBuffer(string: "sent after the end of input"))
            try await connection.closeWrite()
        }
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)")
        let client = try await connect("127.0.0.1:\(relay.port)")
        try await client.write(ByteBuffer(string: "question"))
        try await client.closeWrite()
        #expect(string(try await readAll(client)) == "answer to question, sent after the end of input")
        let gone = try await relay.disconnected(1)
        #expect(gone.error == nil)
        #expect(relay.lines == [
            "connected 1", "upstream 1", "finished 1 up", "finished 1 down", "disconnected 1 up=8 down=47",
        ])
        await client.close()
        let summary = await relay.stop()
        #expect(summary.bytesUp == 8 && summary.bytesDown == 47 && summary.resets == 0)
        await upstream.stop()
    }

    /// A client that resets gets its upstream reset; an upstream that resets gets its client
    /// reset. Each counts as one reset.
    @Test func aResetOnEitherSideResetsTheOther() async throws {
        let upstreamEnds = EventLog<String>()
        let upstream = try await TestServer.start { connection in
            let first = try await connection.read(.frame(.line, maxFrameSize: 100))
            if string(first) == "reset me" {
                await connection.reset()
                return
            }
            try await connection.write(ByteBuffer(string: "ready\n"))
            upstreamEnds.record(await ending(connection))
        }
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)")

        let resetting = try await connect("127.0.0.1:\(relay.port)")
        try await resetting.write(ByteBuffer(string: "hello\n"))
        #expect(string(try await resetting.read(.exactly(6))) == "ready\n")
        await resetting.reset()
        #expect(try await upstreamEnds.next { $0 } == "reset", "the client's reset reached the upstream")
        #expect(try await relay.disconnected(1).error?.code == .connectionReset)

        let resetByUpstream = try await connect("127.0.0.1:\(relay.port)")
        try await resetByUpstream.write(ByteBuffer(string: "reset me\n"))
        #expect(await ending(resetByUpstream) == "reset", "the upstream's reset reached the client")
        #expect(try await relay.disconnected(2).error?.code == .connectionReset)

        await resetting.close()
        await resetByUpstream.close()
        let summary = await relay.stop()
        #expect(summary.clients == 2 && summary.resets == 2)
        #expect(summary.bytesUp == 6 + 9 && summary.bytesDown == 6)
        await upstream.stop()
    }

    /// An upstream that refuses: the client is told by its connection closing, the event names
    /// the refusal, and the summary counts it.
    @Test func aRefusedUpstreamClosesTheClientAndIsCounted() async throws {
        let closed = try ClosedPort()
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(closed.port)")
        let client = try await connect("127.0.0.1:\(relay.port)")
        #expect(await ending(client) == "eof")
        let failure = try await relay.events.next { event -> SocketEngineError? in
            if case .upstreamFailed(_, let error) = event { return error }
            return nil
        }
        #expect(failure.code == .connectionRefused && failure.message.contains("127.0.0.1:\(closed.port)"), "\(failure)")
        _ = try await relay.disconnected(1)
        #expect(relay.lines == ["connected 1", "upstream failed 1 refused", "disconnected 1 up=0 down=0 refused"])
        await client.close()
        let summary = await relay.stop()
        #expect(summary == RelaySummary(clients: 1, upstreamFailures: 1, duration: summary.duration))
        withExtendedLifetime(closed) {}
    }

    /// `--max-clients 1`: a second client while the first is relayed is refused and closed; the
    /// first goes on; the refusal is an event and counted.
    @Test func theClientLimitRefusesTheClientBeyondIt() async throws {
        let upstream = try await TestServer.start { connection in
            while let chunk = try await connection.read() { try await connection.write(chunk) }
        }
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") {
            $0.listenOptions.maximumClients = 1
            // Refused however long the first client has been there (no room made for slowness).
            $0.listenOptions.slotRules.minimumRate = 0
        }
        let first = try await connect("127.0.0.1:\(relay.port)")
        try await relay.events.next { event -> Void? in if case .upstreamConnected = event { () } else { nil } }
        let second = try await connect("127.0.0.1:\(relay.port)")
        let reason = try await relay.events.next { event -> String? in
            if case .rejected(_, let reason) = event { return reason.description }
            return nil
        }
        #expect(reason.hasPrefix("max clients reached (1): 1 "), "\(reason)")
        #expect(await ending(second) != "data", "the refused client was closed")
        try await first.write(ByteBuffer(string: "still relayed"))
        #expect(string(try await first.read(.exactly(13))) == "still relayed")
        await first.close()
        await second.close()
        let summary = await relay.stop()
        #expect(summary.clients == 1 && summary.rejected == 1)
        await upstream.stop()
    }

    /// `--deny` and `--allow` refuse clients before any upstream connection is made.
    @Test func theAccessPolicyRefusesClientsWithItsReason() async throws {
        let upstream = try await TestServer.start { _ in }
        let cases: [(AccessPolicy, SettingText)] = [
            (AccessPolicy(deny: [try AddressRange(parsing: "127.0.0.0/8")]), "matches \(.deny) 127.0.0.0/8"),
            (AccessPolicy(allow: [try AddressRange(parsing: "10.0.0.0/8")]), "not in \(.allow)"),
        ]
        for (policy, expected) in cases {
            let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") { $0.listenOptions.access = policy }
            let client = try await connect("127.0.0.1:\(relay.port)")
            let reason = try await relay.events.next { event -> SettingText? in
                if case .rejected(_, let reason) = event { return reason }
                return nil
            }
            #expect(reason == expected)
            #expect(await ending(client) != "data")
            await client.close()
            let summary = await relay.stop()
            #expect(summary.clients == 0 && summary.rejected == 1)
            #expect(relay.lines == ["rejected \(expected)"])
        }
        await upstream.stop()
    }

    // MARK: Framing

    /// `ws://` → `tcp://` with `--framing line`: each WebSocket message is one line upstream,
    /// each line back one message; the message events carry the bodies without newlines; the
    /// client's close frame reaches the upstream as the end of its input.
    @Test func aWebSocketClientIsBridgedToLinesAndBack() async throws {
        let upstream = try await TestServer.start { connection in
            var lines: [String] = []
            while let line = try await connection.read(.frame(.line, maxFrameSize: 1000)) { lines.append(string(line) ?? "") }
            try await connection.write(ByteBuffer(string: lines.map { "got \($0)\n" }.joined()))
            try await connection.closeWrite()
        }
        let relay = try await RelayUnderTest.start("ws://127.0.0.1:0/", to: "127.0.0.1:\(upstream.port)") {
            $0.framing = .line
            $0.reportsMessages = true
        }
        // The client's close frame goes first and the answers come after it: the client waits
        // for them as long as it takes (its default 2 s for the server's close is a real-time
        // bound a busy machine can miss).
        var options = ConnectOptions.patient
        options.webSocket.closeTimeout = .seconds(3600)
        let client = try await connect("ws://127.0.0.1:\(relay.port)/", options: options)
        for message in ["hello", "two words", "{\"json\":true}"] { try await client.write(ByteBuffer(string: message)) }
        try await client.closeWrite()
        var answers: [String] = []
        while let message = try await client.read() { answers.append(string(message) ?? "") }
        #expect(answers == ["got hello", "got two words", "got {\"json\":true}"])
        let gone = try await relay.disconnected(1)
        #expect(gone.error == nil)
        let messages = relay.events.events.compactMap { event -> String? in
            if case .message(_, let direction, let body) = event { return "\(direction.arrow) \(string(body) ?? "")" }
            return nil
        }
        #expect(messages == ["> hello", "> two words", "> {\"json\":true}", "< got hello", "< got two words", "< got {\"json\":true}"])
        await client.close()
        _ = await relay.stop()
        await upstream.stop()
    }

    /// Stream to stream with `--framing line`: the bytes go through exactly as sent (a CRLF line
    /// stays CRLF), while the message events show each line without its ending.
    @Test func framingBetweenTwoStreamsForwardsTheBytesExactly() async throws {
        let atUpstream = EventLog<ByteBuffer>()
        let upstream = try await TestServer.start { connection in
            atUpstream.record(try await readAll(connection))
            try await connection.write(ByteBuffer(string: "ok\r\nbye\n"))
        }
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") {
            $0.framing = .line
            $0.reportsMessages = true
        }
        let client = try await connect("127.0.0.1:\(relay.port)")
        let sent = "GET / HTTP/1.0\r\nHost: x\r\n\r\nplain\n"
        try await client.write(ByteBuffer(string: sent))
        try await client.closeWrite()
        #expect(string(try await readAll(client)) == "ok\r\nbye\n")
        #expect(string(try await atUpstream.next { $0 }) == sent)
        _ = try await relay.disconnected(1)
        let messages = relay.events.events.compactMap { event -> String? in
            if case .message(_, let direction, let body) = event { return "\(direction.arrow) \(string(body) ?? "")" }
            return nil
        }
        #expect(messages == ["> GET / HTTP/1.0", "> Host: x", "> ", "> plain", "< ok", "< bye"])
        await client.close()
        let summary = await relay.stop()
        #expect(summary.bytesUp == sent.utf8.count && summary.bytesDown == 8)
        await upstream.stop()
    }

    /// A framed message longer than `maximumFrameSize` ends that client with the error, and
    /// nothing of it reaches the upstream; no direction is reported as finished in order.
    @Test func aMessageOverTheFrameLimitEndsTheClient() async throws {
        let atUpstream = EventLog<ByteBuffer>()
        let upstream = try await TestServer.start { connection in atUpstream.record(try await readAll(connection)) }
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") {
            $0.framing = .line
            $0.maximumFrameSize = 16
        }
        let client = try await connect("127.0.0.1:\(relay.port)")
        try await client.write(ByteBuffer(string: "short\n" + String(repeating: "x", count: 40) + "\n"))
        #expect(await ending(client) != "data")
        #expect(string(try await atUpstream.next { $0 }) == "short\n")
        let gone = try await relay.disconnected(1)
        #expect(gone.error?.code == .frameTooLarge, "\(String(describing: gone.error))")
        #expect(relay.lines == ["connected 1", "upstream 1", "disconnected 1 up=6 down=0 frame-too-large"])
        await client.close()
        _ = await relay.stop()
        await upstream.stop()
    }

    /// A Unix-socket listener relays to TCP like any other, half-close included; the client is
    /// named by its process (`SO_PEERCRED`), never by the listener's own path.
    @Test func aUnixSocketClientIsRelayedToTCP() async throws {
        let upstream = try await TestServer.start { connection in
            let request = try await readAll(connection)
            try await connection.write(ByteBuffer(string: "got \(request.readableBytes) bytes"))
        }
        let path = "/tmp/sockctl-relay-\(UInt32.random(in: 0...UInt32.max)).sock"
        let relay = try await RelayUnderTest.start("unix:\(path)", to: "127.0.0.1:\(upstream.port)")
        let client = try await connect("unix:\(path)")
        try await writeAndFinish(client, ByteBuffer(string: "over unix"))
        #expect(string(try await readAll(client)) == "got 9 bytes")
        let peer = try await relay.events.next { event -> String? in
            if case .clientConnected(let client) = event { return client.peer }
            return nil
        }
        // The client's end has no name: it is named by its process (this one), not by the path.
        #expect(peer == "pid \(getpid()) (uid \(getuid()))")
        #expect(try await relay.disconnected(1).error == nil)
        await client.close()
        let summary = await relay.stop()
        #expect(summary.bytesUp == 9 && summary.bytesDown == 11)
        await upstream.stop()
    }

    // MARK: UDP

    /// A UDP listener gives each client address its own flow and its own upstream socket: the
    /// upstream sees two sources, and each client gets only the answers to its own datagrams.
    @Test func udpClientsGetAFlowEachToTheUpstream() async throws {
        let upstream = try await DatagramListener.bind(try Endpoint(parsing: "udp://127.0.0.1:0", role: .listener))
        let sources = EventLog<String>()
        let echo = Task {
            for await datagram in upstream.datagrams {
                sources.record(datagram.peer.displayString)
                try? await upstream.reply(to: datagram, with: ByteBuffer(string: "echo \(string(datagram.data) ?? "")"))
            }
        }
        let relay = try await RelayUnderTest.start("udp://127.0.0.1:0", to: "udp://127.0.0.1:\(upstream.localAddresses[0].port ?? 0)")
        let alice = try await connect("udp://127.0.0.1:\(relay.port)")
        let bob = try await connect("udp://127.0.0.1:\(relay.port)")
        try await alice.write(ByteBuffer(string: "a1"))
        #expect(string(try await alice.read()) == "echo a1")
        try await bob.write(ByteBuffer(string: "b1"))
        #expect(string(try await bob.read()) == "echo b1")
        try await alice.write(ByteBuffer(string: "a2"))
        #expect(string(try await alice.read()) == "echo a2")
        let seen = sources.events
        #expect(seen.count == 3 && seen[0] == seen[2] && seen[0] != seen[1], "upstream sources: \(seen)")
        #expect(relay.lines == ["connected 1", "upstream 1", "connected 2", "upstream 2"])
        await alice.close()
        await bob.close()
        let summary = await relay.stop()
        #expect(summary.clients == 2 && summary.bytesUp == 6 && summary.bytesDown == 21 && summary.dropped == 0)
        await upstream.close()
        echo.cancel()
    }
}
