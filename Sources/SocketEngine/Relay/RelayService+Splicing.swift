#if os(Linux)
extension RelayService {
    /// Relays a client and its upstream on the ``SpliceLoop`` when both are plain byte streams
    /// nobody else reads (see ``Connection/handOver(with:)``); nil, both untouched, when they
    /// are not. The client keeps its place under `--max-clients` until it has really gone.
    func splice(_ client: RelayClient, _ clientSide: Connection, _ upstream: Connection, counters: RelayCounters) async -> Outcome? {
        let place = state.withLock { $0.listener }?.keepPlace()
        defer { place?.release() }
        guard let spliced = await SplicedClient.start(client, clientSide, upstream, counters: counters) else { return nil }
        return await relaySpliced(client, spliced)
    }

    /// Registers a spliced client for ``stop()``, reports each direction's end, and returns how
    /// the client ended.
    private func relaySpliced(_ client: RelayClient, _ spliced: SplicedClient) async -> Outcome {
        let stopped = state.withLock { state -> Bool in
            state.open[client.id, default: []].append(spliced)
            return state.stopped
        }
        if stopped { await spliced.close() }
        var outcome = Outcome()
        for await event in spliced.events {
            switch event {
            case .finished(let direction):
                onEvent(.finished(client, direction))
            case .ended(.reset(let error)):
                outcome.error = error
                outcome.reset = true
            case .ended(.failed(let error)):
                outcome.error = error
            case .ended(.finished), .ended(.faultClose), .ended(.faultReset):
                break
            }
        }
        return outcome
    }
}
#endif
