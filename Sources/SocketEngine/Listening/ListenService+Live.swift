extension ListenService {
    /// The summary so far, while serving: what ended clients added, plus the bytes of the clients
    /// still connected, and how many are (for `--metrics-listen`). ``run()``'s summary, once it
    /// returns, is the final word.
    public func liveSummary() -> (summary: ListenSummary, open: Int) {
        let rejected = listeners.listener?.rejectedCount ?? listeners.datagramListener?.rejectedCount ?? 0
        return state.withLock { state in
            var summary = state.summary
            for client in state.clients.values {
                summary.bytesIn += client.statistics.bytesReceived
                summary.bytesOut += client.statistics.bytesSent
            }
            summary.rejected = max(summary.rejected, rejected)
            return (summary, state.clients.count)
        }
    }
}
