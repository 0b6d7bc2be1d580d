import NIOCore
import SocketEngine
import Testing

@testable import LoadGen
import TestSupport

/// `--shard K/N` (issue 32): N shards of a plan add up to exactly the plan — connections,
/// requests, the connect rate, every message of the schedule at its own time, the targets of
/// the connections and the replayed stream copies — with the remainder on the lowest shards.
@Suite(.hangGuard) struct ShardSplitTests {
    /// Awkward wholes and splits: primes, fewer things than shards, one shard.
    static let splits: [(total: Int, count: Int)] = [
        (10, 3), (7, 7), (1, 1), (1_000_003, 7), (2, 5), (0, 4), (999_999, 1000), (5, 10_000), (100, 1),
    ]

    @Test func sharesAddUpToTheWholeWithTheRemainderOnTheLowestShards() throws {
        for (total, count) in Self.splits {
            let shards = try (0..<count).map { try Shard(index: $0, count: count) }
            let shares = shards.map { $0.share(of: total) }
            #expect(shares.reduce(0, +) == total, "\(total) over \(count)")
            #expect(shares.max()! - shares.min()! <= 1, "\(total) over \(count): \(shares.prefix(8))")
            // The remainder goes to the lowest indexes: the shares never rise.
            #expect(zip(shares, shares.dropFirst()).allSatisfy { $0 >= $1 }, "\(total) over \(count)")
            // The blocks follow each other without a gap or an overlap.
            for shard in shards.dropFirst() {
                let previous = try Shard(index: shard.index - 1, count: count)
                #expect(shard.offset(in: total) == previous.offset(in: total) + previous.share(of: total))
            }
            // Numbered items by n % N: the same counts.
            if total <= 100_000 {
                for shard in shards.prefix(20) {
                    #expect((0..<total).filter(shard.owns).count == shard.share(of: total))
                }
            }
        }
        #expect(try Shard(index: 0, count: 3).share(of: 10) == 4)
        #expect(try Shard(index: 2, count: 3).share(of: 10) == 3)
    }

    @Test func shardsAreParsedAndCheckedAsKOfN() throws {
        #expect(try Shard(parsing: "1/3") == Shard(index: 1, count: 3))
        #expect(try Shard(parsing: "0/1").description == "0/1")
        for bad in ["3/3", "-1/3", "1/0", "a/3", "1", "1/3/4", "", "/3", "1/", "0/10001"] {
            #expect(throws: LoadGenError.self, "\(bad)") { try Shard(parsing: bad) }
        }
        let error = #expect(throws: LoadGenError.self) { try Shard(parsing: "3/3") }
        #expect(error?.message == "shard 3 of 3 does not exist: shards are numbered 0 to 2")
    }

    static func plan(connections: Int = 10, requests: Int? = nil, rate: Double? = nil, stages: String? = nil, targets: Int = 1) throws -> LoadPlan {
        var plan = try LoadPlan(
            endpoints: (0..<targets).map { try Endpoint(parsing: "127.0.0.1:\(7000 + $0)") },
            message: try MessageTemplate(Array("m".utf8), framing: .line))
        plan.framing = .line
        plan.connections = connections
        plan.requests = requests
        if requests != nil { plan.duration = nil }
        plan.rate = rate
        if let stages {
            plan.stages = try RateSchedule.stages(parsing: stages, initialRate: rate ?? 0)
            plan.duration = nil
        }
        try plan.validate()
        return plan
    }

    @Test func connectionsRequestsAndTheConnectRateAddUpToThePlan() throws {
        let whole = try Self.plan(connections: 1001, requests: 100_003)
        let parts = try (0..<7).map { try whole.sharded(Shard(index: $0, count: 7)) }
        #expect(parts.map(\.connections) == [143, 143, 143, 143, 143, 143, 143])
        #expect(parts.map(\.connections).reduce(0, +) == 1001)
        #expect(parts.compactMap(\.requests).reduce(0, +) == 100_003)
        #expect(parts.map { $0.requests ?? 0 } == [14_287, 14_286, 14_286, 14_286, 14_286, 14_286, 14_286])
        let connectRates = parts.compactMap(\.connectRate)
        #expect(abs(connectRates.reduce(0, +) - 1000) < 1e-9)
        for part in parts {
            #expect(part.shard != nil)
            try part.validate()
        }
    }

    /// Connection `k` of the whole goes to target `k % T`: so do the shards' connections, as
    /// blocks of the whole's.
    @Test func eachConnectionGoesToTheTargetTheWholeWouldSendItTo() throws {
        for (connections, targets, count) in [(10, 3, 3), (7, 4, 3), (5, 5, 5), (3, 2, 3), (8, 3, 2)] {
            let whole = try Self.plan(connections: connections, targets: targets)
            var seen: [Int] = []
            for index in 0..<count {
                let part = try whole.sharded(Shard(index: index, count: count))
                seen += (0..<part.connections).map { part.endpoints[$0 % part.endpoints.count].port }
            }
            #expect(seen == (0..<connections).map { whole.endpoints[$0 % targets].port }, "\(connections) over \(targets) targets, \(count) shards")
        }
    }

    /// Every message of the whole schedule is sent by exactly one shard, at its own time, for a
    /// constant rate, stages with ramps, and an open-ended rate with requests.
    @Test func theShardsSchedulesAreTheWholeScheduleExactly() throws {
        let plans = [
            try Self.plan(connections: 10, rate: 1003, stages: nil),
            try Self.plan(connections: 10, rate: 7, stages: "3s:501,2s:501,4s:0"),
            try Self.plan(connections: 10, requests: 1009, rate: 333),
        ]
        for (number, whole) in plans.enumerated() {
            for count in [1, 2, 3, 7] {
                let wholeSchedule = try #require(whole.schedule)
                let total = wholeSchedule.totalMessages ?? whole.requests ?? 0
                let times = (0..<total).compactMap { wholeSchedule.time(ofMessage: $0) }
                #expect(times.count == total)
                var union: [Int64] = []
                var totals = 0
                for index in 0..<count {
                    let part = try whole.sharded(Shard(index: index, count: count))
                    let schedule = try #require(part.schedule)
                    let mine = schedule.totalMessages ?? part.requests ?? 0
                    totals += mine
                    union += (0..<mine).compactMap { schedule.time(ofMessage: $0) }
                    if schedule.totalMessages != nil { #expect(schedule.time(ofMessage: mine) == nil) }
                    // Due-before counts agree with the times, and add up to the whole's.
                    for probe in [Int64(0), 1_000_000_000, 2_500_000_001] {
                        #expect(schedule.messagesDue(before: probe) == (0..<mine).filter { (schedule.time(ofMessage: $0) ?? .max) < probe }.count)
                    }
                }
                #expect(totals == total, "plan \(number), \(count) shards")
                #expect(union.sorted() == times.sorted(), "plan \(number), \(count) shards")
                for probe in [Int64(0), 999_999_999, 1_000_000_000, 4_321_000_000] {
                    let due = try (0..<count).map { try whole.sharded(Shard(index: $0, count: count)).schedule!.messagesDue(before: probe) }
                    #expect(due.reduce(0, +) == wholeSchedule.messagesDue(before: probe))
                }
            }
        }
    }

    /// The rate a shard offers (the report's `config.rate`) is its share: the shards' add up.
    @Test func theShardsRatesAddUpToTheWholeRate() throws {
        let whole = try Self.plan(rate: 1000)
        let rates = try (0..<3).map { try whole.sharded(Shard(index: $0, count: 3)).shareOfRate ?? 0 }
        #expect(abs(rates.reduce(0, +) - 1000) < 1e-9)
        let third = try whole.sharded(Shard(index: 0, count: 3)).schedule?.rate(at: 0.5) ?? 0
        #expect(abs(third - 1000.0 / 3) < 1e-9)
    }

    /// Every message connection slots write, `{{conn}}` and `{{seq}}` filled in, sorted.
    static func messages(_ plan: LoadPlan) -> [String] {
        let run = RunContext(plan: plan, addresses: [])
        var all: [String] = []
        for slot in 0..<plan.connections {
            var state = LoadSlot(slot: slot, run: run, rules: (nil, nil))
            var stats = LoadStats()
            while !state.isExhausted(run) {
                var buffer = ByteBuffer()
                _ = state.append(dueAt: 0, now: 0, start: 0, to: &buffer, stats: &stats)
                all.append(String(buffer: buffer))
            }
        }
        return all.sorted()
    }

    /// `{{seq}}` and `{{conn}}` are the whole test's numbers: the shards' messages are the
    /// unsharded run's, byte for byte (so its byte counts add up too).
    @Test func theShardsSendTheWholeTestsMessagesByteForByte() throws {
        var whole = try Self.plan(connections: 7, requests: 1003)
        whole.message = try MessageTemplate(Array("c{{conn}} m{{seq}}".utf8), framing: .line)
        let unsharded = Self.messages(whole)
        #expect(unsharded.count == 1003)
        #expect(Set(unsharded).count == 1003)
        for count in [2, 3, 7] {
            let sharded = try (0..<count).flatMap { try Self.messages(whole.sharded(Shard(index: $0, count: count))) }.sorted()
            #expect(Set(sharded.map { $0.split(separator: " ")[1] }) == Set(unsharded.map { $0.split(separator: " ")[1] }), "\(count) shards: the same {{seq}}")
            #expect(Set(sharded.map { $0.split(separator: " ")[0] }) == Set((1...7).map { "c\($0)" }), "\(count) shards: the same {{conn}}")
            #expect(sharded.map(\.utf8.count).reduce(0, +) == unsharded.map(\.utf8.count).reduce(0, +))
        }
    }

    /// A shard with nothing to do is refused, saying how many shards the test can have.
    @Test func aShardLeftWithoutConnectionsOrRequestsIsRefused() throws {
        let few = try Self.plan(connections: 2)
        let error = #expect(throws: LoadGenError.self) { try few.sharded(Shard(index: 2, count: 3)) }
        #expect(error?.message == "shard 2/3 would have no connection: 2 the connection count split over 3 shards leave shards 2 and up without one (use at most 2 shards)")
        #expect(try few.sharded(Shard(index: 1, count: 3), connections: false).connections == 2)
        let requests = try Self.plan(connections: 10, requests: 2)
        let refused = #expect(throws: LoadGenError.self) { try requests.sharded(Shard(index: 2, count: 3)) }
        #expect(refused?.message.contains("would have nothing to send") == true)
        #expect(try requests.sharded(Shard(index: 1, count: 3)).requests == 1)
    }
}
