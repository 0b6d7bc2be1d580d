import NIOCore
import Synchronization
import TestSupport
import Testing
@testable import SocketEngine

/// The fast path's bytes moved with `splice(2)` through a pipe per direction (issue 32), and with
/// `read` and `send` when the loop is told not to splice: each behaviour of the fast path holds
/// on both, and the loop's tally says which one carried the pair. Each test gives its relay a
/// loop of its own, so the tally counts its clients alone.
@Suite(.hangGuard)
struct EpollRelaySpliceTests {
    static let size = 16 * 1024 * 1024

    /// 16 MiB each way with a half-close between: the client sends and ends its output, the
    /// upstream reads to that end, then answers 16 MiB and ends. Both arrive whole and in order,
    /// the counters say exactly 16 MiB each way, each direction reports its end, the loop says
    /// how the pair was carried, and no pipe is left open.
    @Test(arguments: [true, false])
    func sixteenMebibytesEachWayWithAHalfClose(splicing: Bool) async throws {
        try await Self.relayBothWays(splicing: splicing, listen: "127.0.0.1:0", upstream: "127.0.0.1:0")
    }

    /// The same between Unix sockets: a Unix client relayed to a Unix upstream is spliced too.
    @Test func unixSocketsAreSplicedToo() async throws {
        let name = "/tmp/sockctl-splice-\(UInt32.random(in: 0...UInt32.max))"
        try await Self.relayBothWays(splicing: true, listen: "unix:\(name)-relay.sock", upstream: "unix:\(name)-upstream.sock")
    }

    /// 16 MiB up, the client's end, 16 MiB down, the upstream's end, through a relay listening on
    /// `listen` to a test upstream listening on `upstream` (ports of 0: the kernel's choice).
    private static func relayBothWays(splicing: Bool, listen: String, upstream upstreamListen: String) async throws {
        let (sent, answer) = (patterned(Self.size, seed: 11), patterned(Self.size, seed: 12))
        let upstream = try await TestServer.start(upstreamListen) { connection in
            let got = try await readAll(connection)
            guard got == sent else { throw HarnessError("the upstream got \(got.readableBytes) other bytes") }
            try await writeAndFinish(connection, answer)
        }
        let unix = upstreamListen.hasPrefix("unix:")
        let loop = try #require(EpollRelayLoop(splicing: splicing))
        #expect((loop.pipeSize != nil) == splicing)
        let relay = try await RelayUnderTest.start(listen, to: unix ? upstreamListen : "127.0.0.1:\(upstream.port)") { $0.epollLoop = loop }
        let client = try await connect(listen.hasPrefix("unix:") ? listen : "127.0.0.1:\(relay.port)")
        try await writeAndFinish(client, sent)
        let got = try await readAll(client)
        #expect(got == answer, "the answer arrived changed (\(got.readableBytes) bytes)")
        let gone = try await relay.disconnected(1)
        #expect(gone.bytesUp == Self.size && gone.bytesDown == Self.size && gone.error == nil)
        #expect(relay.lines.contains("finished 1 up") && relay.lines.contains("finished 1 down"))
        #expect(loop.statistics.spliced == (splicing ? 1 : 0) && loop.statistics.copied == (splicing ? 0 : 1))
        #expect(loop.statistics.pipesLent == 0)
        await client.close()
        _ = await relay.stop()
        await upstream.stop()
        loop.shutdown()
        #expect(loop.statistics.pipesOpen == 0, "the loop's spare pipes outlived it")
    }

    /// 100 clients held open at once, each having sent a line through to an echo and had it back:
    /// the loop lends a pipe only while bytes wait in it, so none is lent now and the 100 pairs
    /// went through one or two pipes in all, not two each (a pipe is made again only when a sink
    /// is full, which 100 short lines never make it).
    @Test func heldClientsHoldNoPipe() async throws {
        let upstream = try await TestServer.start { connection in
            while let chunk = try await connection.read() { try await connection.write(chunk) }
        }
        let loop = try #require(EpollRelayLoop(splicing: true))
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") { $0.epollLoop = loop }
        var clients: [Connection] = []
        for index in 1...100 {
            let client = try await connect("127.0.0.1:\(relay.port)")
            try await client.write(ByteBuffer(string: "line \(index)\n"))
            #expect(string(try await client.read(.exactly("line \(index)\n".utf8.count))) == "line \(index)\n")
            clients.append(client)
        }
        #expect(loop.pairsAdded == 100)
        #expect(loop.statistics.pipesLent == 0, "\(loop.statistics.pipesLent) pipes lent to idle clients")
        #expect(loop.statistics.pipesMade <= 2, "\(loop.statistics.pipesMade) pipes made for 100 idle clients")
        for client in clients { await client.close() }
        for id in 1...100 { _ = try await relay.disconnected(id) }
        #expect(loop.statistics.spliced == 100 && loop.statistics.copied == 0)
        _ = await relay.stop()
        await upstream.stop()
        loop.shutdown()
        #expect(loop.statistics.pipesOpen == 0)
    }

    /// The upstream resets after 1 MiB of a 16 MiB upload: the client is reset too, the client
    /// is reported gone with a reset, having counted no less than the upstream received and no
    /// more than the client sent, and the pair's pipes are closed.
    @Test(arguments: [true, false])
    func aResetMidTransferResetsTheClientAndClosesThePipes(splicing: Bool) async throws {
        let (received, receivedCount) = AsyncStream.makeStream(of: Int.self)
        let upstream = try await TestServer.start { connection in
            var got = 0
            while got < 1 << 20, let chunk = try await connection.read() { got += chunk.readableBytes }
            receivedCount.yield(got)
            await connection.reset()
        }
        let loop = try #require(EpollRelayLoop(splicing: splicing))
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") { $0.epollLoop = loop }
        let client = try await connect("127.0.0.1:\(relay.port)")
        let sending = Task { try? await writeAndFinish(client, patterned(Self.size, seed: 13)) }
        var counts = received.makeAsyncIterator()
        let atUpstream = try #require(await counts.next())
        let gone = try await relay.disconnected(1)
        #expect(gone.error?.code == .connectionReset, "\(String(describing: gone.error))")
        #expect(gone.bytesUp >= atUpstream && gone.bytesUp <= Self.size, "\(gone.bytesUp) counted, \(atUpstream) received")
        #expect(await ending(client) == "reset", "the upstream's reset reached the client")
        await finished(sending)
        #expect(loop.statistics.spliced == (splicing ? 1 : 0) && loop.statistics.pipesLent == 0)
        await client.close()
        _ = await relay.stop()
        await upstream.stop()
        loop.shutdown()
    }

    /// A slow reader: the upstream reads nothing until the relay has bytes waiting for it (its
    /// socket full), then reads everything. Meanwhile the relay holds at most one pipe (or one
    /// read) of them — bytes parked in the pipe are in flight, and it stops taking more — and
    /// all 16 MiB then arrive in order, counted exactly.
    @Test(arguments: [true, false])
    func aSlowReaderHoldsTheRelayToOnePipeAndLosesNothing(splicing: Bool) async throws {
        let sent = patterned(Self.size, seed: 14)
        let (go, release) = AsyncStream.makeStream(of: Void.self)
        let upstream = try await TestServer.start { connection in
            for await _ in go { break }
            let got = try await readAll(connection)
            try await writeAndFinish(connection, ByteBuffer(string: got == sent ? "whole" : "changed: \(got.readableBytes) bytes"))
        }
        let loop = try #require(EpollRelayLoop(splicing: splicing))
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") { $0.epollLoop = loop }
        let client = try await connect("127.0.0.1:\(relay.port)")
        let written = Written()
        let sending = Task {
            try? await writeAndFinish(client, sent)
            written.flag.store(true, ordering: .relaxed)
        }
        // Either the relay parks bytes for the full upstream, or (a failure) every byte fitted
        // in the buffers on the way.
        try await waitUntil { loop.statistics.mostParked > 0 || written.flag.load(ordering: .relaxed) }
        #expect(loop.statistics.mostParked > 0, "the relay never had to wait for the upstream")
        #expect(loop.statistics.mostParked <= loop.pipeSize ?? EpollRelayLoop.readSize)
        release.yield()
        release.finish()
        #expect(string(try await readAll(client)) == "whole")
        await finished(sending)
        let gone = try await relay.disconnected(1)
        #expect(gone.bytesUp == Self.size && gone.bytesDown == 5 && gone.error == nil)
        #expect(loop.statistics.mostParked <= loop.pipeSize ?? EpollRelayLoop.readSize)
        #expect(loop.statistics.spliced == (splicing ? 1 : 0) && loop.statistics.pipesLent == 0)
        await client.close()
        _ = await relay.stop()
        await upstream.stop()
        loop.shutdown()
    }
}

/// Whether a writing task has handed everything to the kernel.
private final class Written: Sendable {
    let flag = Atomic<Bool>(false)
}
