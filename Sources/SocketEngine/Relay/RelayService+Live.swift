extension RelayService {
    /// The summary so far, while relaying: what ended clients added, plus the bytes forwarded for
    /// the clients still connected, and how many are (for `--metrics-listen`). UDP flows count
    /// when they end. ``run()``'s summary, once it returns, is the final word.
    ///
    /// A byte stream relayed as is (no fault, nothing shown) is joined on the event loop and
    /// counted when it ends; until then, the bytes read from the side it comes from count.
    public func liveSummary() -> (summary: RelaySummary, open: Int) {
        let listener = listeners.listener
        return state.withLock { state in
            var summary = state.summary
            for (id, counters) in state.liveCounters {
                let sides = (state.open[id] ?? []).map(\.connection)
                // Nothing counted yet on a side that is a connection: read from it so far.
                let untouched = counters.discardedBytes == 0 && counters.droppedMessages == 0
                let client = sides.first.flatMap { $0 }, upstream = sides.count > 1 ? sides[1] : nil
                summary.bytesUp += counters.bytesUp == 0 && untouched ? client?.statistics.bytesReceived ?? 0 : counters.bytesUp
                summary.bytesDown += counters.bytesDown == 0 && untouched ? upstream?.statistics.bytesReceived ?? 0 : counters.bytesDown
                summary.dropped += counters.droppedMessages
                summary.discardedBytes += counters.discardedBytes
            }
            if let listener { summary.rejected = max(summary.rejected, listener.rejectedCount) }
            return (summary, state.open.count)
        }
    }
}
