import SocketEngine

/// One of N copies of a load test that together make the whole test (`--shard K/N`): shard
/// `index` of `count`, numbered from 0, as a Kubernetes Indexed Job numbers its pods
/// (`JOB_COMPLETION_INDEX`).
///
/// The split is by index, with the remainder given to the lowest indexes, so the N shares of
/// any whole add up to exactly that whole: 10 connections over 3 shards are 4, 3 and 3. Items
/// that are numbered (messages of a schedule, replayed stream copies) go to shard `n % count`,
/// which gives each shard the same count as ``share(of:)``.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// This shard's number, from 0 to ``count`` − 1.
    public let index: Int
    /// How many shards make the whole test.
    public let count: Int

    /// The most shards a test is split into.
    public static let maximumCount = 10_000

    /// Shard `index` of `count`; refuses an index outside `0..<count` or a count outside
    /// `1...maximumCount`.
    public init(index: Int, count: Int) throws(LoadGenError) {
        guard (1...Self.maximumCount).contains(count) else {
            throw LoadGenError(.invalidPlan, "a test splits into 1 to \(Self.maximumCount) shards, not \(count)")
        }
        guard (0..<count).contains(index) else {
            throw LoadGenError(.invalidPlan, "shard \(index) of \(count) does not exist: shards are numbered 0 to \(count - 1)")
        }
        self.init(checkedIndex: index, count: count)
    }

    private init(checkedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `K/N` (`1/3`: the second of three shards).
    public init(parsing text: String) throws(LoadGenError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw LoadGenError(.invalidPlan, "'\(text)' is not a shard (expected K/N such as 0/3: shard K, from 0, of N)")
        }
        try self.init(index: index, count: count)
    }

    /// The whole test: shard 0 of 1.
    public static let whole = Shard(checkedIndex: 0, count: 1)

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }

    /// This shard's part of `total` things: `total / count`, plus one for the lowest
    /// `total % count` indexes. The shares of all shards add up to `total`.
    public func share(of total: Int) -> Int {
        guard total > 0 else { return 0 }
        return total / count + (index < total % count ? 1 : 0)
    }

    /// Where this shard's ``share(of:)`` begins when `total` things are cut into consecutive
    /// blocks in shard order.
    public func offset(in total: Int) -> Int {
        guard total > 0 else { return 0 }
        return index * (total / count) + min(index, total % count)
    }

    /// True when item `number` (from 0) of a numbered whole is this shard's (`number % count`).
    public func owns(_ number: Int) -> Bool { number >= 0 && number % count == index }
}
