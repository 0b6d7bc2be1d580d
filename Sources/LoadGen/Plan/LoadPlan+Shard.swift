import SocketEngine

extension LoadPlan {
    /// This plan's part as `shard` of the whole test (`--shard K/N`): N shards of the same plan
    /// add up to exactly this plan. A pure function of the plan and the shard.
    ///
    /// - Connections: ``Shard/share(of:)`` of ``connections`` (the remainder to the lowest
    ///   indexes), each going to the target the whole test's connection would go to (the
    ///   shard's connections are a block of the whole's, its targets turned to match).
    /// - `requests`: ``Shard/share(of:)`` of them.
    /// - Rate and stages: the whole schedule, of which the shard sends the messages it owns
    ///   (``RateSchedule/sliced(_:)``): each shard at 1/N of the rate, and the N of them
    ///   exactly the messages of the whole, each due when the whole would send it.
    /// - The connect rate: 1/N of it, so the shards together ramp up as the whole would.
    /// - `{{seq}}` and `{{conn}}`: the whole test's numbers — a shard's message `m` is the
    ///   whole's `m·N + K` (as in the schedule), its connection `k` the whole's
    ///   ``firstConnection`` + `k` — so the N shards send exactly the whole's messages, byte
    ///   for byte.
    ///
    /// With `connections` false (a capture replayed as load, whose connections are its stream
    /// copies, split by ``ReplayLoadRunner``) the connection count is left as it is.
    ///
    /// A shard left without a connection or a request is refused (`.invalidPlan`): an idle
    /// shard would only make the merge's counts look complete when they are not.
    public func sharded(_ shard: Shard, connections splitConnections: Bool = true) throws(LoadGenError) -> LoadPlan {
        var plan = self
        plan.shard = shard
        guard shard.count > 1 else { return plan }
        if splitConnections {
            let share = shard.share(of: connections)
            guard share > 0 else {
                throw LoadGenError(.invalidPlan, "shard \(shard) would have no connection: \(connections) \(.connections) split over \(shard.count) shards leave shards \(connections) and up without one (use at most \(connections) shards)")
            }
            let offset = shard.offset(in: connections)
            plan.connections = share
            plan.firstConnection = offset
            plan.endpoints = (0..<min(endpoints.count, share)).map { endpoints[(offset + $0) % endpoints.count] }
        }
        if let requests {
            let share = shard.share(of: requests)
            guard share > 0 else {
                throw LoadGenError(.invalidPlan, "shard \(shard) would have nothing to send: \(requests) \(.requests) split over \(shard.count) shards leave shards \(requests) and up without one (use at most \(requests) shards)")
            }
            plan.requests = share
        }
        plan.connectRate = connectRate.map { $0 / Double(shard.count) }
        return plan
    }

    /// The rate this run offers: ``rate`` (the starting rate, with stages), divided among the shards.
    package var shareOfRate: Double? { rate.map { $0 / Double(shard?.count ?? 1) } }
}
