extension RelayService {
    /// Relays a client and its upstream on `loop` when both are plain byte streams
    /// nobody else reads (see ``Connection/handOver(with:beforeClosing:)``); nil, both untouched, when they
    /// are not. The client keeps its place under the client limit until it has really gone.
    func relayOnEpollLoop(
        _ loop: EpollRelayLoop, _ client: RelayClient, _ clientSide: Connection, _ upstream: Connection, counters: RelayCounters
    ) async -> Outcome? {
        let listener = listeners.listener
        guard let (relayed, place) = await EpollRelayedClient.start(client, clientSide, upstream, on: loop, counters: counters, place: { listener?.keepSlot(of: clientSide) })
        else { return nil }
        defer { place?.release() }
        return await relayOnLoop(client, relayed)
    }

    /// Registers a client on the loop for ``stop()``, reports each direction's end, and returns how
    /// the client ended.
    private func relayOnLoop(_ client: RelayClient, _ relayed: EpollRelayedClient) async -> Outcome {
        let registered: Void? = listeners.register { state.withLock { $0.open[client.id, default: []].append(relayed) } }
        if registered == nil { await relayed.close() }
        // Cancelled (the relay's task group going away), the client must not outlive its task:
        // the pair is stopped, and the task does not wait for the report its stream then drops.
        return await withTaskCancellationHandler {
            var outcome = Outcome()
            var ended = false
            for await event in relayed.events {
                if case .ended = event { ended = true }
                note(event, of: client, into: &outcome)
            }
            if !ended { outcome.error = SocketEngineError(.connectionClosed, "\(client.peer): relay stopped") }
            return outcome
        } onCancel: {
            relayed.stop()
        }
    }

    private func note(_ event: EpollRelayEvent, of client: RelayClient, into outcome: inout Outcome) {
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
