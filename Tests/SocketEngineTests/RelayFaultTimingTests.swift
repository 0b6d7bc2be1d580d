import NIOCore
import Synchronization
import TestSupport
import Testing
@testable import SocketEngine

/// The relay's faults and its UDP idle timeout in virtual time: real sockets on loopback, with a
/// ``VirtualClock`` as the relay's clock, so every hold, stall, pace and time-based end is seen
/// at its exact deadline and happens only when the test moves time there. Both ends stamp what
/// they receive with the virtual instant it came.
@Suite(.hangGuard)
struct RelayFaultTimingTests {
    // MARK: Latency and jitter

    /// A message that arrives at 1 s with `latency=100ms` leaves at exactly 1.1 s, not before.
    @Test func latencyHoldsAMessageFromItsArrival() async throws {
        let relay = try await TimedRelay.start(["latency=100ms"])
        await relay.clock.advance(to: .seconds(1))
        try await relay.client.write(ByteBuffer(string: "one\n"))
        #expect(try await relay.clock.nextDeadline() == .milliseconds(1100))
        #expect(relay.atUpstream.text == "")
        await relay.clock.advance(to: .milliseconds(1100))
        #expect(try await relay.atUpstream.wait(for: "one\n") == .milliseconds(1100))
        _ = await relay.stop()
    }

    /// Messages sent while earlier ones are held leave in the order sent, each at least 100 ms
    /// after it was sent; the first exactly then.
    @Test func heldMessagesKeepTheirOrder() async throws {
        let relay = try await TimedRelay.start(["latency=100ms"])
        try await relay.client.write(ByteBuffer(string: "first\n"))
        #expect(try await relay.clock.nextDeadline() == .milliseconds(100))
        await relay.clock.advance(to: .milliseconds(30))
        try await relay.client.write(ByteBuffer(string: "second\n"))
        await relay.clock.advance(to: .milliseconds(60))
        try await relay.client.write(ByteBuffer(string: "third\nfourth\n"))
        await relay.clock.advance(to: .milliseconds(100))
        #expect(try await relay.atUpstream.wait(for: "first\n") == .milliseconds(100))
        // When the relay read the later ones is up to the scheduler (the time is the same until
        // the test moves it): the instants they leave at are checked from below only. An upstream
        // may read a piece after time moved on: its instant is an upper bound of the departure.
        try await relay.clock.advance(until: relay.atUpstream, has: "first\nsecond\nthird\nfourth\n")
        let lines = relay.atUpstream.lines
        #expect(lines.map(\.text) == ["first", "second", "third", "fourth"])
        for (line, sent) in zip(lines, [Duration.zero, .milliseconds(30), .milliseconds(60), .milliseconds(60)]) {
            #expect(line.at >= sent + .milliseconds(100), "\(line.text) left at \(line.at)")
        }
        _ = await relay.stop()
    }

    /// `latency=100ms,dir=up`: the request is held, the reply to it is not.
    @Test func latencyOnTheWayUpLeavesTheReplyAlone() async throws {
        let relay = try await TimedRelay.start(["latency=100ms,dir=up"], echo: true)
        try await relay.client.write(ByteBuffer(string: "ping\n"))
        #expect(try await relay.clock.nextDeadline() == .milliseconds(100))
        await relay.clock.advance(to: .milliseconds(100))
        #expect(try await relay.atUpstream.wait(for: "ping\n") == .milliseconds(100))
        #expect(try await relay.atClient.wait(for: "ping\n") == .milliseconds(100))
        #expect(relay.clock.sleepHistory == [.milliseconds(100)])
        _ = await relay.stop()
    }

    /// `latency=100ms,jitter=50ms` with a fixed seed: every delay is within 50…150 ms, they
    /// differ, and the same seed gives the same delays again.
    @Test func jitterStaysWithinItsBoundsAndFollowsTheSeed() async throws {
        func delays(seed: UInt64) async throws -> [Duration] {
            let relay = try await TimedRelay.start(["latency=100ms,jitter=50ms"]) { $0.faultSeed = seed }
            var delays: [Duration] = []
            var expected = ""
            for index in 0..<8 {
                let sent = relay.clock.elapsed
                expected += "\(index)\n"
                try await relay.client.write(ByteBuffer(string: "\(index)\n"))
                let deadline = try await relay.clock.nextDeadline()
                await relay.clock.advance(to: deadline)
                #expect(try await relay.atUpstream.wait(for: expected) == deadline)
                delays.append(deadline - sent)
            }
            _ = await relay.stop()
            return delays
        }
        let first = try await delays(seed: 42)
        #expect(first.allSatisfy { $0 >= .milliseconds(50) && $0 <= .milliseconds(150) }, "\(first)")
        #expect(Set(first).count > 1, "jitter changed nothing: \(first)")
        #expect(try await delays(seed: 42) == first)
        #expect(try await delays(seed: 7) != first)
    }

    /// The client's end of input waits behind the message it follows: the upstream reads the
    /// held message at 100 ms, and only then its end.
    @Test func theEndOfInputWaitsBehindHeldMessages() async throws {
        let relay = try await TimedRelay.start(["latency=100ms"])
        try await relay.client.write(ByteBuffer(string: "last words\n"))
        try await relay.client.closeWrite()
        #expect(try await relay.clock.nextDeadline() == .milliseconds(100))
        await relay.clock.advance(to: .milliseconds(100))
        // `wait(for:)` fails if the end comes before the message.
        #expect(try await relay.atUpstream.wait(for: "last words\n") == .milliseconds(100))
        let ends = try await relay.ends()
        #expect(ends == ["eof", "eof"], "client, upstream")
        _ = try await relay.relay.disconnected(1)
        #expect(relay.relay.lines == ["connected 1", "upstream 1", "finished 1 up", "finished 1 down", "disconnected 1 up=11 down=0"])
        _ = await relay.stop()
    }

    // MARK: Stall, bandwidth, slice

    /// `stall=5s,every=3msg`: three messages go at once, the fourth waits exactly 5 s, and the
    /// count starts again.
    @Test func aStallHoldsEveryFourthMessageFiveSeconds() async throws {
        let relay = try await TimedRelay.start(["stall=5s,every=3msg"])
        try await relay.client.write(ByteBuffer(string: "1\n2\n3\n4\n"))
        #expect(try await relay.atUpstream.wait(for: "1\n2\n3\n") == .zero)
        #expect(try await relay.clock.nextDeadline() == .seconds(5))
        await relay.clock.advance(to: .seconds(5))
        #expect(try await relay.atUpstream.wait(for: "1\n2\n3\n4\n") == .seconds(5))
        try await relay.client.write(ByteBuffer(string: "5\n6\n7\n"))
        #expect(try await relay.atUpstream.wait(for: "1\n2\n3\n4\n5\n6\n") == .seconds(5))
        #expect(try await relay.clock.nextDeadline() == .seconds(10))
        await relay.clock.advance(to: .seconds(10))
        #expect(try await relay.atUpstream.wait(for: "1\n2\n3\n4\n5\n6\n7\n") == .seconds(10))
        _ = await relay.stop()
    }

    /// `stall=1s,every=10` holds the bytes after each 10 (a stream is cut there);
    /// `stall=1s,every=10s` holds the first message 10 s or more after the last stall.
    @Test func aStallComesRoundEveryCountOfBytesAndEveryInterval() async throws {
        let bytes = try await TimedRelay.start(["stall=1s,every=10"], framing: .raw)
        try await bytes.client.write(ByteBuffer(string: "0123456789abcdef"))
        #expect(try await bytes.atUpstream.wait(for: "0123456789") == .zero)
        #expect(try await bytes.clock.nextDeadline() == .seconds(1))
        await bytes.clock.advance(to: .seconds(1))
        #expect(try await bytes.atUpstream.wait(for: "0123456789abcdef") == .seconds(1))
        _ = await bytes.stop()

        let interval = try await TimedRelay.start(["stall=1s,every=10s"])
        var expected = ""
        for (sent, arrives) in [(0, 0), (12, 13), (15, 15), (23, 24)] {
            await interval.clock.advance(to: .seconds(sent))
            expected += "\(sent)\n"
            try await interval.client.write(ByteBuffer(string: "\(sent)\n"))
            #expect(try await interval.clock.advance(until: interval.atUpstream, has: expected) == .seconds(arrives), "sent at \(sent) s")
        }
        _ = await interval.stop()
    }

    /// `bandwidth=1000`: 20-byte pieces every 20 ms; 150 bytes take 150 ms, and a message sent
    /// while the budget is spent waits for it.
    @Test func bandwidthPacesTheBytesAtTheRate() async throws {
        let relay = try await TimedRelay.start(["bandwidth=1000/s"])
        let first = String(repeating: "a", count: 99) + "\n"
        try await relay.client.write(ByteBuffer(string: first))
        var instants: [Duration] = [try await relay.atUpstream.wait(for: String(first.prefix(20)))]
        for piece in 2...5 {
            let deadline = try await relay.clock.nextDeadline()
            await relay.clock.advance(to: deadline)
            instants.append(try await relay.atUpstream.wait(for: String(first.prefix(20 * piece))))
        }
        #expect(instants == [0, 20, 40, 60, 80].map { .milliseconds($0) })
        let second = String(repeating: "b", count: 49) + "\n"
        try await relay.client.write(ByteBuffer(string: second))
        for (sent, deadline) in [(20, 100), (40, 120), (50, 140)] {
            #expect(try await relay.clock.nextDeadline() == .milliseconds(deadline))
            await relay.clock.advance(to: .milliseconds(deadline))
            #expect(try await relay.atUpstream.wait(for: first + second.prefix(sent)) == .milliseconds(deadline))
        }
        #expect(relay.clock.sleepHistory == [20, 40, 60, 80, 100, 120, 140].map { .milliseconds($0) })
        _ = await relay.stop()
    }

    /// `slice=4,delay=10ms`: the message goes in pieces of 4 bytes, 10 ms apart.
    @Test func sliceCutsTheBytesIntoPiecesWithADelayBetween() async throws {
        let relay = try await TimedRelay.start(["slice=4,delay=10ms"])
        try await relay.client.write(ByteBuffer(string: "abcdefghij\n"))
        #expect(try await relay.atUpstream.wait(for: "abcd") == .zero)
        for (text, at) in [("abcdefgh", 10), ("abcdefghij\n", 20)] {
            #expect(try await relay.clock.nextDeadline() == .milliseconds(at))
            await relay.clock.advance(to: .milliseconds(at))
            #expect(try await relay.atUpstream.wait(for: text) == .milliseconds(at))
        }
        #expect(relay.atUpstream.pieces.map(\.text) == ["abcd", "efgh", "ij\n"])
        _ = await relay.stop()
    }

    // MARK: Ends

    /// `timeout=2s`: nothing is forwarded either way, and both sides are closed at exactly 2 s.
    @Test func timeoutForwardsNothingAndClosesBothSidesAtItsTime() async throws {
        let relay = try await TimedRelay.start(["timeout=2s"])
        // The timer runs from the client's arrival, not from its first message: the deadline says
        // nothing about whether the relay read what was sent. Each message is waited for until
        // the relay has read and thrown it away (its direction's note comes in the same step as
        // the discard) before time moves, or the timeout could close a side with it still unread.
        try await relay.client.write(ByteBuffer(string: "into the void\n"))
        try await relay.discarded(.up)
        #expect(try await relay.clock.nextDeadline() == .seconds(2))
        await relay.clock.advance(to: .seconds(1))
        try await relay.upstreamConnection.write(ByteBuffer(string: "nor back\n"))
        try await relay.discarded(.down)
        await relay.clock.advance(to: .seconds(2))
        let ends = try await relay.ends()
        #expect(ends == ["eof", "eof"], "client, upstream")
        #expect(relay.atClient.text == "" && relay.atUpstream.text == "")
        let gone = try await relay.relay.disconnected(1)
        #expect(gone.duration == .seconds(2))
        #expect(gone.error?.code == .faultInjected && gone.error?.message == "closed by fault 1: timeout=2s")
        #expect(gone.bytesUp == 0 && gone.bytesDown == 0, "nothing was forwarded")
        // Neither side sent an end of its own: no direction is reported finished; the fault
        // says once per direction that it stopped it.
        // The two directions are separate tasks: their notes may come in either order.
        let lines = relay.relay.lines
        #expect(lines.count == 5 && Array(lines.prefix(2)) == ["connected 1", "upstream 1"] && lines.last == "disconnected 1 up=0 down=0 fault")
        #expect(Set(lines.dropFirst(2).dropLast()) == [
            "fault 1 up forwards nothing more (fault 1: timeout=2s)", "fault 1 down forwards nothing more (fault 1: timeout=2s)",
        ])
        let summary = await relay.stop()
        #expect(summary.bytesUp == 0 && summary.bytesDown == 0 && summary.resets == 0)
        #expect(summary.discardedBytes == 14 + 9, "what the timeout threw away is accounted")
    }

    /// `reset-after=3s`: both sides are reset at exactly 3 s.
    @Test func resetAfterATimeResetsBothSidesThen() async throws {
        let relay = try await TimedRelay.start(["reset-after=3s"])
        try await relay.client.write(ByteBuffer(string: "before\n"))
        #expect(try await relay.atUpstream.wait(for: "before\n") == .zero)
        #expect(try await relay.clock.nextDeadline() == .seconds(3))
        await relay.clock.advance(to: .seconds(3))
        let ends = try await relay.ends()
        #expect(ends == ["reset", "reset"], "client, upstream")
        let gone = try await relay.relay.disconnected(1)
        #expect(gone.duration == .seconds(3) && gone.error?.message == "reset by fault 1: reset-after=3s")
        let summary = await relay.stop()
        #expect(summary.resets == 1 && summary.bytesUp == 7)
    }

    /// `limit=10`: exactly 10 bytes reach the upstream, then both sides are closed.
    @Test func limitForwardsExactlyThatManyBytesThenCloses() async throws {
        let relay = try await TimedRelay.start(["limit=10"], framing: .raw)
        try await relay.client.write(ByteBuffer(string: "0123456789abcdefghijklmno"))
        let ends = try await relay.ends()
        #expect(ends == ["eof", "eof"], "client, upstream")
        #expect(relay.atUpstream.text == "0123456789")
        let gone = try await relay.relay.disconnected(1)
        #expect(gone.error?.message == "closed by fault 1: limit=10")
        #expect(gone.bytesUp == 10, "bytes forwarded up")
        #expect(await relay.stop().bytesUp == 10)
    }

    /// `reset-after=5`: five bytes reach the upstream, then both sides are reset.
    @Test func resetAfterFiveBytesResetsBothSides() async throws {
        let relay = try await TimedRelay.start(["reset-after=5"], framing: .raw)
        try await relay.client.write(ByteBuffer(string: "0123456789"))
        let ends = try await relay.ends()
        #expect(ends == ["reset", "reset"], "client, upstream")
        #expect(relay.atUpstream.text == "01234")
        #expect(try await relay.relay.disconnected(1).bytesUp == 5)
        _ = await relay.stop()
    }

    /// `reset-after=2msg` resets both sides once two messages are through; the third never goes.
    @Test func resetAfterTwoMessagesResetsBothSides() async throws {
        let relay = try await TimedRelay.start(["reset-after=2msg"])
        try await relay.client.write(ByteBuffer(string: "one\ntwo\nthree\n"))
        let ends = try await relay.ends()
        #expect(ends == ["reset", "reset"], "client, upstream")
        #expect(relay.atUpstream.text == "one\ntwo\n")
        #expect(await relay.stop().resets == 1)
    }

    /// `close-after-messages=2` closes both sides (FIN) once two messages are through.
    @Test func closeAfterTwoMessagesClosesBothSides() async throws {
        let relay = try await TimedRelay.start(["close-after-messages=2"])
        try await relay.client.write(ByteBuffer(string: "one\ntwo\nthree\n"))
        let ends = try await relay.ends()
        #expect(ends == ["eof", "eof"], "client, upstream")
        #expect(relay.atUpstream.text == "one\ntwo\n")
        #expect(try await relay.relay.disconnected(1).error?.message == "closed by fault 1: close-after-messages=2")
        #expect(await relay.stop().resets == 0)
    }

    // MARK: Chance

    /// `drop=50%` on UDP with `--fault-seed`: the seed decides which datagrams are dropped, one
    /// roll per datagram in order, and the summary counts exactly those that did not arrive.
    @Test func dropLosesTheDatagramsTheSeedPicksAndCountsThem() async throws {
        let upstream = try await DatagramListener.bind(try Endpoint(parsing: "udp://127.0.0.1:0", role: .listener))
        let arrived = EventLog<String>()
        let receiving = Task { for await datagram in upstream.datagrams { arrived.record(string(datagram.data) ?? "") } }
        let drop = try RelayFault(parsing: "drop=50%")
        let relay = try await RelayUnderTest.start("udp://127.0.0.1:0", to: "udp://127.0.0.1:\(upstream.localAddresses[0].port ?? 0)") {
            $0.faults = [drop]
            $0.faultSeed = 2026
            $0.clock = VirtualClock().engine
        }
        let client = try await connect("udp://127.0.0.1:\(relay.port)")
        let seeded = RelayRandom(seed: 2026)
        var expected: [String] = []
        for index in 0..<40 {
            let kept = seeded.nextUnit() >= 0.5
            if kept { expected.append("d\(index)") }
            try await client.write(ByteBuffer(string: "d\(index)"))
            // Each datagram's fate is known before the next is sent: it arrives, or is dropped.
            try await relay.events.wait(forCount: 1 + index - expected.count) { if case .fault = $0 { true } else { false } }
            try await arrived.wait(forCount: expected.count) { _ in true }
        }
        #expect(arrived.events == expected)
        let drops = 40 - expected.count
        #expect(drops > 5 && drops < 35, "a 50% drop dropped \(drops) of 40")
        await client.close()
        let summary = await relay.stop()
        #expect(summary.dropped == drops)
        #expect(summary.bytesUp == expected.map(\.utf8.count).reduce(0, +), "only what arrived was forwarded")
        await upstream.close()
        receiving.cancel()
    }

    /// `p=0%` never applies to a client, `p=100%` always does (five clients each).
    @Test func theProbabilityZeroNeverAppliesAndOneHundredAlwaysDoes() async throws {
        for _ in 0..<5 {
            let never = try await TimedRelay.start(["close-after-messages=1,p=0%"])
            try await never.client.write(ByteBuffer(string: "one\ntwo\n"))
            try await never.atUpstream.wait(for: "one\ntwo\n")
            try await never.client.write(ByteBuffer(string: "three\n"))
            try await never.atUpstream.wait(for: "one\ntwo\nthree\n")
            #expect(never.relay.lines == ["connected 1", "upstream 1"])
            _ = await never.stop()

            let always = try await TimedRelay.start(["close-after-messages=1,p=100%"])
            try await always.client.write(ByteBuffer(string: "one\ntwo\n"))
            let ends = try await always.ends()
            #expect(ends == ["eof", "eof"], "client, upstream")
            #expect(always.atUpstream.text == "one\n")
            _ = await always.stop()
        }
    }

    /// `p=50%` with `--fault-seed`: one roll per client, in the order the clients come, decides
    /// for both directions — a client it applies to has its request and its reply held.
    @Test func aShareOfClientsIsRolledOncePerClientForBothDirections() async throws {
        let clock = VirtualClock()
        let upstream = try await TestServer.start { connection in
            while let chunk = try await connection.read() { try await connection.write(chunk) }
        }
        let latency = try RelayFault(parsing: "latency=100ms,p=50%")
        let relay = try await RelayUnderTest.start(to: "127.0.0.1:\(upstream.port)") {
            $0.faults = [latency]
            $0.faultSeed = 99
            $0.framing = .line
            $0.clock = clock.engine
        }
        let seeded = RelayRandom(seed: 99)
        var expected: [Duration] = []
        var roundTrips: [Duration] = []
        for id in 1...8 {
            expected.append(seeded.nextUnit() < 0.5 ? .milliseconds(200) : .zero)
            let client = try await connect("127.0.0.1:\(relay.port)")
            let inbox = Inbox(clock: clock)
            let draining = Task { await inbox.drain(client) }
            try await relay.events.wait(forCount: id) { if case .upstreamConnected = $0 { true } else { false } }
            let sent = clock.elapsed
            try await client.write(ByteBuffer(string: "\(id)\n"))
            roundTrips.append(try await clock.advance(until: inbox, has: "\(id)\n") - sent)
            await client.close()
            await finished(draining)
            _ = try await relay.disconnected(id)
        }
        #expect(roundTrips == expected)
        #expect(expected.contains(.zero) && expected.contains(.milliseconds(200)), "the seed should pick some clients, not all")
        _ = await relay.stop()
        await upstream.stop()
    }

    // MARK: Changes while running

    /// Faults added and removed through ``RelayService/faults`` act at once on a client already
    /// connected; a time-based one counts from the moment it was added.
    @Test func faultsChangedWhileAClientIsConnectedActOnIt() async throws {
        let relay = try await TimedRelay.start([]) { $0.faultsCanChange = true }
        try await relay.client.write(ByteBuffer(string: "before\n"))
        #expect(try await relay.atUpstream.wait(for: "before\n") == .zero)
        let latency = relay.relay.service.faults.add(try RelayFault(parsing: "latency=100ms"))
        await relay.clock.advance(to: .seconds(1))
        try await relay.client.write(ByteBuffer(string: "held\n"))
        #expect(try await relay.clock.nextDeadline() == .milliseconds(1100))
        await relay.clock.advance(to: .milliseconds(1100))
        #expect(try await relay.atUpstream.wait(for: "before\nheld\n") == .milliseconds(1100))
        #expect(relay.relay.service.faults.remove(latency))
        await relay.clock.advance(to: .seconds(2))
        relay.relay.service.faults.add(try RelayFault(parsing: "reset-after=3s"))
        try await relay.client.write(ByteBuffer(string: "free\n"))
        #expect(try await relay.atUpstream.wait(for: "before\nheld\nfree\n") == .seconds(2))
        #expect(try await relay.clock.nextDeadline() == .seconds(5))
        await relay.clock.advance(to: .seconds(5))
        #expect(try await relay.atClient.end() == "reset")
        #expect(try await relay.relay.disconnected(1).error?.message == "reset by fault 2: reset-after=3s")
        _ = await relay.stop()
    }

    /// A time-based fault removed before it is due never acts; the relay stops waiting for it.
    @Test func aTimeBasedFaultRemovedBeforeItIsDueNeverActs() async throws {
        let relay = try await TimedRelay.start(["reset-after=3s"]) { $0.faultsCanChange = true }
        #expect(try await relay.clock.nextDeadline() == .seconds(3))
        await relay.clock.advance(to: .seconds(1))
        #expect(RelayControl.execute("remove 1", on: relay.relay.service.faults) == "ok removed 1")
        await relay.clock.advance(to: .seconds(10))
        try await relay.client.write(ByteBuffer(string: "still here\n"))
        #expect(try await relay.atUpstream.wait(for: "still here\n") == .seconds(10))
        #expect(relay.clock.sleepHistory == [.seconds(3)])
        #expect(relay.relay.lines == ["connected 1", "upstream 1"])
        _ = await relay.stop()
    }

    // MARK: UDP idle timeout

    /// A UDP flow ends exactly `--udp-idle-timeout` after the last datagram either way; the
    /// client's next datagram starts a new flow.
    @Test func aUDPFlowEndsAtItsIdleTimeoutCountedFromTheLastDatagram() async throws {
        let clock = VirtualClock()
        let upstream = try await DatagramListener.bind(try Endpoint(parsing: "udp://127.0.0.1:0", role: .listener))
        let arrived = EventLog<ReceivedDatagram>()
        let receiving = Task { for await datagram in upstream.datagrams { arrived.record(datagram) } }
        let relay = try await RelayUnderTest.start("udp://127.0.0.1:0", to: "udp://127.0.0.1:\(upstream.localAddresses[0].port ?? 0)") {
            $0.datagramIdleTimeout = .seconds(5)
            $0.clock = clock.engine
        }
        let client = try await connect("udp://127.0.0.1:\(relay.port)")
        try await client.write(ByteBuffer(string: "a"))
        try await arrived.next { string($0.data) == "a" ? () : nil }
        #expect(try await clock.nextDeadline() == .seconds(5))
        await clock.advance(to: .seconds(2))
        try await client.write(ByteBuffer(string: "b"))
        let b = try await arrived.next { string($0.data) == "b" ? $0 : nil }
        await clock.advance(to: .seconds(3))
        try await upstream.reply(to: b, with: ByteBuffer(string: "r"))
        #expect(string(try await client.read()) == "r")
        await clock.advance(to: .seconds(5))
        #expect(try await clock.nextDeadline() == .seconds(8), "the reply at 3 s moved the end")
        #expect(relay.lines == ["connected 1", "upstream 1"])
        await clock.advance(to: .seconds(8))
        let gone = try await relay.disconnected(1)
        #expect(gone.duration == .seconds(8) && gone.error?.code == .idleTimeout)
        try await client.write(ByteBuffer(string: "c"))
        try await arrived.next { string($0.data) == "c" ? () : nil }
        #expect(relay.lines == ["connected 1", "upstream 1", "disconnected 1 up=2 down=1 idle-timeout", "connected 2", "upstream 2"])
        await client.close()
        let summary = await relay.stop()
        #expect(summary.clients == 2 && summary.bytesUp == 3 && summary.bytesDown == 1)
        await upstream.close()
        receiving.cancel()
    }
}
