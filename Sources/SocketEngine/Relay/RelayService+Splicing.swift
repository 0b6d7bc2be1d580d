extension RelayService {
    /// Relays a client and its upstream on the ``SpliceLoop`` when both are plain byte streams
    /// nobody else reads (see ``Connection/handOver(with:beforeClosing:)``); nil, both untouched, when they
    /// are not. The client keeps its place under the client limit until it has really gone.
    func splice(_ client: RelayClient, _ clientSide: Connection, _ upstream: Connection, counters: RelayCounters) async -> Outcome? {
        let listener = listeners.listener
        guard let (spliced, place) = await SplicedClient.start(client, clientSide, upstream, counters: counters, place: { listener?.keepSlot(of: clientSide) })
        else { return nil }
        defer { place?.release() }
        return await relaySpliced(client, spliced)
    }

    /// Registers a spliced client for ``stop()``, reports each direction's end, and returns how
    /// the client ended.
    private func relaySpliced(_ client: RelayClient, _ spliced: SplicedClient) async -> Outcome {
        let registered: Void? = listeners.register { state.withLock { $0.open[client.id, default: []].append(spliced) } }
        if registered == nil { await spliced.close() }
        // Cancelled (the relay's task group going away), the client must not outlive its task:
        // the pair is stopped, and the task does not wait for the report its stream then drops.
        return await withTaskCancellationHandler {
            var outcome = Outcome()
            var ended = false
            for await event in spliced.events {
                if case .ended = event { ended = true }
                note(event, of: client, into: &outcome)
            }
            if !ended { outcome.error = SocketEngineError(.connectionClosed, "\(client.peer): relay stopped") }
            return outcome
        } onCancel: {
            spliced.stop()
        }
    }

    private func note(_ event: SpliceEvent, of client: RelayClient, into outcome: inout Outcome) {
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
}
