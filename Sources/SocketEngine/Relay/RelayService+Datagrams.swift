import NIOCore
import Synchronization

extension RelayService {
    /// A UDP listener: every source address is one client (a flow) with its own upstream
    /// connection, ended after ``RelayConfiguration/datagramIdleTimeout`` without traffic. The
    /// client limit counts flows; datagrams of a flow that falls 1024 behind are dropped and
    /// counted.
    func runDatagram(_ listener: DatagramListener) async {
        let watcher = reportRefusals(listener.events)
        let flows = FlowTable()
        let limit = configuration.listenOptions.maximumClients
        await withDiscardingTaskGroup { group in
            for await datagram in listener.datagrams {
                if let flow = flows.table.withLock({ $0[datagram.peer] }) {
                    if flow.deliver(datagram.data) { continue }
                    if !flow.isClosed {
                        state.withLock { $0.summary.dropped += 1 }
                        continue
                    }
                    // That flow has just ended (idle timeout, a fault) and is on its way out of
                    // the table: this datagram starts the client's next flow, it is not lost.
                    flows.table.withLock { if $0[datagram.peer] === flow { $0[datagram.peer] = nil } }
                }
                if let limit, flows.table.withLock({ $0.count }) >= limit {
                    state.withLock { $0.summary.rejected += 1 }
                    onEvent(.rejected(peer: datagram.peer.displayString, reason: "\(.maxClients) \(limit) reached"))
                    continue
                }
                let flow = DatagramFlow(peer: datagram.peer, listener: listener)
                guard let client = admit(peer: datagram.peer.displayString, side: flow) else { continue }
                flows.table.withLock { $0[datagram.peer] = flow }
                _ = flow.deliver(datagram.data)
                group.addTask {
                    await self.serveFlow(flow, as: client)
                    flows.table.withLock { if $0[flow.peer] === flow { $0[flow.peer] = nil } }
                }
            }
        }
        await listener.close()
        await watcher.value
        state.withLock {
            $0.summary.rejected += listener.rejectedCount
            $0.summary.dropped += listener.droppedDatagrams
        }
    }

    private func serveFlow(_ flow: DatagramFlow, as client: RelayClient) async {
        let started = configuration.clock.now
        guard let upstream = await connectUpstream(for: client, options: configuration.connectOptions, started: started, closing: flow) else {
            return
        }
        let counters = RelayCounters()
        let outcome = await relay(client, flow, upstream, counters: counters, activity: RelayActivity(clock: configuration.clock))
        finish(client, counters: counters, started: started, error: outcome.error, reset: outcome.reset)
    }
}

/// The UDP relay's open flows by client address.
private final class FlowTable: Sendable {
    let table = Mutex<[SocketAddress: DatagramFlow]>([:])
}
