import NIOCore
import TestSupport
import Testing
@testable import SocketEngine

/// The relay's fast path: a plain TCP client and its plain upstream taken out of the event loop
/// and relayed by the epoll relay loop (RelayTests run their plain stream cases through it too).
/// What a user would check: the bytes the event loop had already received are not lost, the
/// client limit still holds while a client is spliced, and stopping the relay closes its clients.
@Suite(.hangGuard)
struct SpliceTests {
    /// A client that sends and ends its output at once, before its upstream is even connected:
    /// what the event loop had read goes first, then the end; the answer comes back whole.
    @Test func bytesReceivedBeforeTheHandoverArriveFirst() async throws {
        let upstream = try await TestServer.start { connection in
            let question = try await readAll(connection)
            try await writeAndFinish(connection, ByteBuffer(string: "got \(question.readableBytes) bytes"))
        }
        let before = RelayUnderTest.epollLoop?.pairsAdded ?? 0
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)")
        let client = try await connect("127.0.0.1:\(relay.port)")
        try await writeAndFinish(client, patterned(100_000, seed: 3))
        #expect(string(try await readAll(client)) == "got 100000 bytes")
        let gone = try await relay.disconnected(1)
        #expect(gone.bytesUp == 100_000 && gone.bytesDown == 16 && gone.error == nil)
        #expect((RelayUnderTest.epollLoop?.pairsAdded ?? 0) > before, "a plain TCP client was not spliced")
        await client.close()
        _ = await relay.stop()
        await upstream.stop()
    }

    /// Each relay uses the loop its caller gave it: two relays with their own loops share
    /// nothing (a client of one is relayed by its loop only), and a relay given none keeps its
    /// plain client on the event loop.
    @Test func aRelayUsesTheEpollLoopItIsGiven() async throws {
        let upstream = try await TestServer.start { connection in
            while let chunk = try await connection.read() { try await connection.write(chunk) }
        }
        let (first, second) = (try #require(EpollRelayLoop()), try #require(EpollRelayLoop()))
        for (loop, other) in [(first, second), (second, first), (nil, first)] as [(EpollRelayLoop?, EpollRelayLoop)] {
            let before = (loop?.pairsAdded ?? 0, other.pairsAdded)
            let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") { $0.epollLoop = loop }
            let client = try await connect("127.0.0.1:\(relay.port)")
            try await client.write(ByteBuffer(string: "ping"))
            #expect(string(try await client.read(.exactly(4))) == "ping")
            #expect((loop?.pairsAdded ?? 0) == before.0 + (loop == nil ? 0 : 1), "the relay's own loop did not take its client")
            #expect(other.pairsAdded == before.1, "another relay's loop took the client")
            await client.close()
            _ = try await relay.disconnected(1)
            _ = await relay.stop()
        }
        await upstream.stop()
        first.shutdown()
        second.shutdown()
    }

    /// `--max-clients 1` while the one client is spliced (its channel already closed): a second
    /// client is refused; once the first has gone, a third is admitted.
    @Test func aEpollRelayedClientKeepsItsPlaceUntilItLeaves() async throws {
        let upstream = try await TestServer.start { connection in
            while let chunk = try await connection.read() { try await connection.write(chunk) }
        }
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") {
            $0.listenOptions.maximumClients = 1
            // Refused however long the first client has been there (no room made for slowness).
            $0.listenOptions.slotRules.minimumRate = 0
        }
        let first = try await connect("127.0.0.1:\(relay.port)")
        try await first.write(ByteBuffer(string: "ping"))
        #expect(string(try await first.read(.exactly(4))) == "ping")
        let second = try await connect("127.0.0.1:\(relay.port)")
        #expect(await ending(second) != "data", "the second client was not refused")
        await first.close()
        _ = try await relay.disconnected(1)
        let third = try await connect("127.0.0.1:\(relay.port)")
        try await third.write(ByteBuffer(string: "pong"))
        #expect(string(try await third.read(.exactly(4))) == "pong", "the place was not given back")
        await third.close()
        await second.close()
        let summary = await relay.stop()
        #expect(summary.clients == 2 && summary.rejected == 1)
        await upstream.stop()
    }

    /// Stopping the relay (SIGINT) closes a client and its upstream: both see the end, and the
    /// client is reported cut ("relay stopped") with what it had forwarded — spliced, or on the
    /// event loop because a live view watches the bytes.
    @Test(arguments: [false, true])
    func stoppingTheRelayCutsItsClients(watched: Bool) async throws {
        let upstreamEnds = EventLog<String>()
        let upstream = try await TestServer.start { connection in
            let hello = try await connection.read(.exactly(5))
            try await connection.write(hello ?? ByteBuffer())
            upstreamEnds.record(await ending(connection))
        }
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") { $0.reportsData = watched }
        let client = try await connect("127.0.0.1:\(relay.port)")
        try await client.write(ByteBuffer(string: "hello"))
        #expect(string(try await client.read(.exactly(5))) == "hello")
        let summary = await relay.stop()
        #expect(await ending(client) == "eof")
        #expect(try await upstreamEnds.next { $0 } == "eof")
        #expect(summary.clients == 1 && summary.bytesUp == 5 && summary.bytesDown == 5)
        #expect(relay.lines.last == "disconnected 1 up=5 down=5 closed")
        await client.close()
        await upstream.stop()
    }
}
