import Histogram
import NIOCore
import NIOEmbedded
import SocketEngine
import Testing
@testable import LoadGen
import TestSupport

/// One load-test connection on an `EmbeddedChannel`: its event loop's time moves only when the
/// test says, and "the server" is the test, which reads what was sent and writes the replies.
/// So the rules are checked at exact instants: when each message of a rate schedule or a stage
/// goes out, when an unanswered one times out, and what a stalled server does to the corrected
/// and the uncorrected latencies.
@Suite(.hangGuard) struct LoadConnectionTimingTests {
    typealias Fixture = LoadConnectionFixture

    /// `--rate 1000` on one connection: message n is due at n ms, and goes then — not earlier.
    @Test func anOpenLoopSendsEachMessageWhenItIsDue() throws {
        let fixture = try Fixture { $0.rate = 1000 }
        #expect(try fixture.sent() == ["m1"], "the first message is due at once")
        fixture.advance(toMilliseconds: 0)
        #expect(try fixture.sent() == [])
        fixture.advance(toMilliseconds: 1)
        #expect(try fixture.sent() == ["m2"])
        fixture.loop.advanceTime(by: .nanoseconds(999_999))
        #expect(try fixture.sent() == [], "nothing before 2 ms")
        fixture.loop.advanceTime(by: .nanoseconds(1))
        #expect(try fixture.sent() == ["m3"])
        fixture.advance(toMilliseconds: 10)
        #expect(try fixture.sent() == ["m4", "m5", "m6", "m7", "m8", "m9", "m10", "m11"])
    }

    /// `--stages 1s:1000,1s:0`: the rate climbs from 0 to 1,000/s over the first second, so
    /// the gaps between messages shrink, then falls back to 0 over the next. Message n (from 0)
    /// is due when ∫ rate reaches n: that is 500·t² by t s into the climb (125 at 0.5 s, 500 at
    /// 1 s) and 1000 − 500·(2 − t)² on the way down, so ⌊∫⌋ + 1 messages have gone by t, 1,000
    /// in all. A schedule at the ramp's average rate (500/s) would have sent 251 by 0.5 s.
    @Test func aStageRampsTheRateAndItsScheduleIsKept() throws {
        let fixture = try Fixture {
            $0.stages = [RateSchedule.Stage(duration: .seconds(1), startRate: 0, endRate: 1000), RateSchedule.Stage(duration: .seconds(1), startRate: 1000, endRate: 0)]
            $0.duration = nil
        }
        /// Messages sent by `milliseconds` into the run, from the integral (instants between
        /// two messages' due times, so that no rounding decides).
        func expected(_ milliseconds: Int64) -> Int {
            let t = Double(milliseconds) / 1000
            let integral = t <= 1 ? 500 * t * t : 1000 - 500 * (2 - t) * (2 - t)
            return Int(integral.rounded(.down)) + 1
        }
        var sent = try fixture.sent().count
        #expect(sent == 1, "message 0 is due at once")
        let instants: [Int64] = [50, 150, 250, 333, 450, 501, 650, 777, 850, 950, 1010, 1250, 1510, 1750, 1990]
        for milliseconds in instants {
            fixture.advance(toMilliseconds: milliseconds)
            sent += try fixture.sent().count
            #expect(sent == expected(milliseconds), "by \(milliseconds) ms")
        }
        fixture.advance(toMilliseconds: 2000)
        sent += try fixture.sent().count
        #expect(sent == 1000)
    }

    /// A message without a reply times out at the first sweep after `--timeout` (sweeps come
    /// every tenth of the timeout); its connection is closed, to be reopened.
    @Test func anUnansweredMessageTimesOutAtTheSweepAfterTheTimeout() throws {
        let fixture = try Fixture { $0.replyTimeout = .milliseconds(200) }
        #expect(try fixture.sent() == ["m1"])
        fixture.advance(toMilliseconds: 200)
        #expect(fixture.counters.timedOut == 0, "200 ms old is not yet late")
        #expect(fixture.channel.isActive)
        fixture.advance(toMilliseconds: 219)
        #expect(fixture.counters.timedOut == 0)
        fixture.advance(toMilliseconds: 220)
        #expect(fixture.counters.timedOut == 1)
        #expect(!fixture.channel.isActive)
        #expect(fixture.shard.stats.counters.errors[.timeout] == 1)
    }

    /// A reply that comes in time is timed from its message: exactly the 35 ms it took.
    @Test func aReplyIsTimedFromItsMessage() throws {
        let fixture = try Fixture { _ in }
        #expect(try fixture.sent() == ["m1"])
        fixture.advance(toMilliseconds: 35)
        try fixture.reply("m1\n")
        #expect(fixture.counters.messagesReceived == 1)
        #expect(Self.same(fixture.shard.stats.corrected.valueAtPercentile(100), 35_000_000))
        #expect(try fixture.sent() == ["m2"], "closed loop: the reply lets the next message go")
    }

    /// Open loop at 1,000/s, one message in flight: the server stalls for 500 ms after the
    /// first message. The messages due meanwhile cannot go; each is sent when the one before is
    /// answered. Their corrected latencies count from when they were due (up to ~500 ms), the
    /// uncorrected ones from when they went (1 ms here): coordinated omission, shown exactly.
    @Test func aStallShowsInTheCorrectedLatenciesOnly() throws {
        let fixture = try Fixture {
            $0.rate = 1000
            $0.pipeline = 1
            $0.duration = .seconds(1)
        }
        #expect(try fixture.sent() == ["m1"])
        fixture.advance(toMilliseconds: 500)
        #expect(try fixture.sent() == [], "one in flight: nothing else goes during the stall")
        try fixture.reply("m1\n")
        // m2 (due at 1 ms) goes at once; each answered 1 ms later releases the next late one.
        var answered = 1
        for milliseconds in Int64(501)...510 {
            #expect(try fixture.sent() == ["m\(answered + 1)"], "at \(milliseconds - 1) ms")
            fixture.advance(toMilliseconds: milliseconds)
            try fixture.reply("m\(answered + 1)\n")
            answered += 1
        }
        let stats = fixture.shard.stats
        // m1: sent when due, answered at 500 ms: 500 ms both ways.
        // m2…m11: due at 1…10 ms, sent at 500…509 ms, answered 1 ms later.
        #expect(Self.same(stats.corrected.max, 500_000_000))
        #expect(Self.same(stats.corrected.min, 500_000_000), "m11 was due at 10 ms, answered at 510 ms")
        #expect(Self.same(stats.uncorrected.min, 1_000_000))
        #expect(Self.same(stats.uncorrected.max, 500_000_000), "only m1 waited the stall out after it went")
        #expect(Self.same(stats.uncorrected.valueAtPercentile(50), 1_000_000))
        #expect(Self.same(stats.corrected.valueAtPercentile(50), 500_000_000))
    }

    /// A value a histogram reports is `nanos` to its 3 significant digits (the same bucket).
    static func same(_ reported: UInt64, _ nanos: UInt64) -> Bool {
        LoadStats.makeHistogram().valuesAreEquivalent(reported, nanos)
    }
}
