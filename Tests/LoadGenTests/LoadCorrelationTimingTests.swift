import Histogram
import NIOCore
import NIOEmbedded
import SocketEngine
import Testing
@testable import LoadGen
import TestSupport

/// `--correlate` on one load-test connection on an `EmbeddedChannel`: the test is the server,
/// answering out of order and pushing messages nobody asked for at exact instants of the loop's
/// virtual clock, so every latency can be checked to the nanosecond — each one its own
/// request's — and set beside what in-order matching makes of the same replies.
@Suite(.hangGuard) struct LoadCorrelationTimingTests {
    /// One connection whose messages are `{"id":N}` lines, `correlate` and `label` the rules.
    static func fixture(
        message: String = #"{"id":{{seq}}}"#, correlate: String? = "json:$.id", label: String? = nil, _ configure: (inout LoadPlan) -> Void
    ) throws -> LoadConnectionFixture {
        try LoadConnectionFixture(message: message) { plan in
            plan.correlation = try correlate.map { try MessageField(parsing: $0) }
            plan.label = try label.map { try MessageField(parsing: $0, option: .label) }
            configure(&plan)
        }
    }

    /// Three messages out, the replies come newest first, with a pushed message between them:
    /// each message is timed to its own reply (10, 20 and 35 ms), the push is unmatched, and
    /// each message's label (its id) shows its own latency.
    @Test func outOfOrderRepliesAreTimedToTheirOwnMessage() throws {
        let fixture = try Self.fixture(label: "json:$.id") { $0.pipeline = 3 }
        #expect(try fixture.sentIDs() == [1, 2, 3])
        fixture.advance(toMilliseconds: 10)
        try fixture.replyLine(#"{"id":3}"#)
        #expect(try fixture.sentIDs() == [4], "a reply frees the pipeline")
        fixture.advance(toMilliseconds: 20)
        try fixture.replyLine(#"{"id":1}"#)
        try fixture.replyLine(#"{"push":"news"}"#)
        fixture.advance(toMilliseconds: 35)
        try fixture.replyLine(#"{"id":"2","late":true}"#)
        let stats = fixture.stats
        #expect(stats.counters.messagesReceived == 3)
        #expect(stats.counters.unmatched == 1)
        let expected: [UInt64] = [10_000_000, 20_000_000, 35_000_000]
        #expect(zip(fixture.latencies(stats.corrected), expected).allSatisfy { LoadConnectionTimingTests.same($0, $1) })
        #expect(stats.corrected.totalCount == 3)
        let byLabel = Dictionary(uniqueKeysWithValues: stats.labels.entries.map { ($0.name, $0) })
        for (label, nanos) in [("1", UInt64(20_000_000)), ("2", 35_000_000), ("3", 10_000_000)] {
            let latency = try #require(byLabel[label]?.corrected)
            #expect(latency.totalCount == 1)
            #expect(LabelTable.makeHistogram().valuesAreEquivalent(latency.max, nanos), "label \(label)")
        }
        #expect(byLabel["4"]?.sent == 1 && byLabel["4"]?.received == 0)
    }

    /// The same replies matched in order, as without `--correlate`: the push answers a message,
    /// so four are "received" for three replies, and the latencies are other messages' (10, 20,
    /// 20 and 25 ms instead of 10, 20 and 35).
    @Test func inOrderMatchingTimesTheWrongMessages() throws {
        let fixture = try Self.fixture(correlate: nil) { $0.pipeline = 3 }
        #expect(try fixture.sentIDs() == [1, 2, 3])
        fixture.advance(toMilliseconds: 10)
        try fixture.replyLine(#"{"id":3}"#)
        fixture.advance(toMilliseconds: 20)
        try fixture.replyLine(#"{"id":1}"#)
        try fixture.replyLine(#"{"push":"news"}"#)
        fixture.advance(toMilliseconds: 35)
        try fixture.replyLine(#"{"id":2}"#)
        let stats = fixture.stats
        #expect(stats.counters.messagesReceived == 4)
        #expect(stats.counters.unmatched == 0)
        let expected: [UInt64] = [10_000_000, 20_000_000, 20_000_000, 25_000_000]
        #expect(fixture.latencies(stats.corrected).count == 4)
        #expect(zip(fixture.latencies(stats.corrected), expected).allSatisfy { LoadConnectionTimingTests.same($0, $1) })
    }

    /// Open loop at 1,000/s with two messages in flight at most: the third, due at 2 ms, can
    /// only go when a reply frees the pipeline at 10 ms. Replies come out of order; each
    /// message's corrected latency counts from its own due time, its uncorrected one from when
    /// it actually went.
    @Test func openLoopCorrectedLatencyCountsFromEachKeysDueTime() throws {
        let fixture = try Self.fixture {
            $0.rate = 1000
            $0.pipeline = 2
            $0.duration = .seconds(1)
        }
        #expect(try fixture.sentIDs() == [1])
        fixture.advance(toMilliseconds: 1)
        #expect(try fixture.sentIDs() == [2])
        fixture.advance(toMilliseconds: 10)
        #expect(try fixture.sentIDs() == [], "the pipeline is full")
        try fixture.replyLine(#"{"id":2}"#)  // due at 1 ms: 9 ms both ways
        #expect(try fixture.sentIDs() == [3], "due at 2 ms, sent at 10 ms")
        fixture.advance(toMilliseconds: 12)
        try fixture.replyLine(#"{"id":3}"#)  // 10 ms from its due time, 2 ms from its send
        fixture.advance(toMilliseconds: 15)
        try fixture.replyLine(#"{"id":1}"#)  // due and sent at 0: 15 ms
        let stats = fixture.stats
        #expect(stats.counters.messagesReceived == 3)
        let corrected = fixture.latencies(stats.corrected)
        let uncorrected = fixture.latencies(stats.uncorrected)
        #expect(corrected.count == 3 && uncorrected.count == 3)
        #expect(zip(corrected, [9_000_000, 10_000_000, 15_000_000] as [UInt64]).allSatisfy { LoadConnectionTimingTests.same($0, $1) }, "\(corrected)")
        #expect(zip(uncorrected, [2_000_000, 9_000_000, 15_000_000] as [UInt64]).allSatisfy { LoadConnectionTimingTests.same($0, $1) }, "\(uncorrected)")
    }

    /// A message whose reply never comes times out as before, even when later ones were
    /// answered: the oldest unanswered message is what the sweep looks at.
    @Test func aMessageWhoseReplyNeverComesTimesOut() throws {
        let fixture = try Self.fixture(label: "json:$.id") {
            $0.pipeline = 2
            $0.replyTimeout = .milliseconds(200)
        }
        #expect(try fixture.sentIDs() == [1, 2])
        fixture.advance(toMilliseconds: 10)
        try fixture.replyLine(#"{"id":2}"#)
        #expect(try fixture.sentIDs() == [3])
        fixture.advance(toMilliseconds: 50)
        try fixture.replyLine(#"{"id":3}"#)
        fixture.advance(toMilliseconds: 219)
        #expect(fixture.stats.counters.timedOut == 0)
        fixture.advance(toMilliseconds: 220)
        let counters = fixture.stats.counters
        #expect(counters.timedOut == 1, "message 1, sent at 0")
        #expect(counters.messagesReceived == 2)
        #expect(!fixture.channel.isActive)
        let byLabel = Dictionary(uniqueKeysWithValues: fixture.stats.labels.entries.map { ($0.name, $0) })
        #expect(byLabel["1"]?.timedOut == 1)
        #expect(counters.messagesSent == counters.messagesReceived + counters.timedOut + counters.lost)
    }

    /// A reply to a message already answered, a reply without a key, and one before any
    /// message: unmatched, their bytes counted as received.
    @Test func repliesToNothingAreUnmatched() throws {
        let fixture = try Self.fixture { $0.pipeline = 1 }
        #expect(try fixture.sentIDs() == [1])
        fixture.advance(toMilliseconds: 1)
        try fixture.replyLine(#"{"id":1}"#)
        try fixture.replyLine(#"{"id":1}"#)
        try fixture.replyLine("not json")
        #expect(fixture.stats.counters.messagesReceived == 1)
        #expect(fixture.stats.counters.unmatched == 2)
        #expect(fixture.stats.counters.bytesReceived == 9 + 9 + 9)
    }
}

/// What a plan with `--correlate` or `--label` must have, checked before the run.
@Suite(.hangGuard) struct CorrelationPlanTests {
    static func plan(_ message: String, framing: Framing? = .line, endpoint: String = "127.0.0.1:7000", pipeline: Int? = nil) throws -> LoadPlan {
        var plan = LoadPlan(endpoint: try Endpoint(parsing: endpoint), message: try MessageTemplate(Array(message.utf8), framing: framing ?? .raw))
        plan.framing = framing
        plan.pipeline = pipeline
        plan.correlation = try MessageField(parsing: "json:$.id")
        return plan
    }

    @Test func aKeyThatChangesWithSeqIsAccepted() throws {
        try Self.plan(#"{"id":{{seq}}}"#, pipeline: 8).validate()
        try Self.plan(#"{"id":"c{{conn}}-{{seq}}"}"#, framing: .lengthPrefixed(width: 4, bigEndian: true), pipeline: 8).validate()
        try Self.plan(#"{"id":{{seq}}}"#, framing: .raw, endpoint: "udp://127.0.0.1:7000").validate()
        #expect(try Self.plan(#"{"id":{{seq}}}"#).correlationWarning == nil)
    }

    @Test func oneKeyForEveryMessageIsRefusedWhenSeveralCanBeOpen() throws {
        let error = #expect(throws: LoadGenError.self) { try Self.plan(#"{"id":1,"n":{{seq}}}"#, pipeline: 4).validate() }
        #expect(error?.flagged.hasPrefix("--correlate json:$.id: every message has the key '1' (it does not change with {{seq}})") == true, "\(error?.flagged ?? "")")
        #expect(error?.isUsageError == true)
        // One open message per connection: allowed, with a warning in the report.
        let single = try Self.plan(#"{"id":1,"n":{{seq}}}"#, pipeline: 1)
        try single.validate()
        #expect(single.correlationWarning?.description.contains("every message has the key '1'") == true)
    }

    @Test(arguments: [
        (#"{"op":"ping"}"#, Framing.line, "127.0.0.1:7000", #"--correlate json:$.id finds no key in the message '{"op":"ping"}'"#),
        (#"{"id":{{seq}}}"#, Framing.raw, "127.0.0.1:7000", "--correlate over a tcp stream needs a --framing that cuts replies into messages"),
    ] as [(String, Framing, String, String)])
    func plansWhoseRepliesCannotBeMatchedAreRefused(message: String, framing: Framing, endpoint: String, reason: String) throws {
        let error = #expect(throws: LoadGenError.self) { try Self.plan(message, framing: framing, endpoint: endpoint).validate() }
        #expect(error?.flagged.hasPrefix(reason) == true, "\(error?.flagged ?? "")")
    }

    @Test func correlationAndLabelsNeedReplies() throws {
        var plan = try Self.plan(#"{"id":{{seq}}}"#, framing: nil)
        #expect(throws: LoadGenError(.invalidPlan, "\(.correlate) json:$.id needs \(.framing): replies are cut into messages to find their keys")) { try plan.validate() }
        plan.correlation = nil
        plan.label = try MessageField(parsing: "json:$.op", option: .label)
        #expect(throws: LoadGenError(.invalidPlan, "\(.label) json:$.op needs \(.framing) (it splits the latency of replies)")) { try plan.validate() }
    }
}

extension LoadConnectionFixture {
    /// The ids of the messages written since the last look.
    func sentIDs() throws -> [Int] {
        try sent().compactMap { line in Int(line.drop { !$0.isNumber }.prefix { $0.isNumber }) }
    }

    /// One reply line.
    func replyLine(_ text: String) throws {
        try reply(text + "\n")
    }
}
