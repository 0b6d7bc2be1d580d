import NIOCore
import NIOPosix
import Synchronization

/// `listen --exec`: a command per client, its standard input and output the client.
extension ListenService {
    /// Runs the command for one stream client (TCP, Unix, TLS, WebSocket) until it ends.
    func serveExec(_ exec: ExecConfiguration, _ connection: Connection, _ client: ClientInfo) async {
        let peer = ExecPeer.connection(connection, framing: configuration.framing, maximumFrameSize: configuration.maximumFrameSize)
        let environment = ExecEnvironment(transport: configuration.endpoint.transport, local: connection.localAddress, peer: connection.remoteAddress)
        let outcome = await ExecBridge.run(
            exec, peer: peer, framing: configuration.framing,
            binaryMessages: configuration.options.webSocket.messageKind == .binary,
            maximumFrameSize: configuration.maximumFrameSize, environment: environment
        ) { pid in onEvent(.childStarted(client, pid: pid)) }
        onEvent(.childEnded(client, outcome))
    }

    /// UDP: every client address is one client with a command of its own, fed its datagrams
    /// (as the relay's UDP flows); without `keepOpen` the listener ends with the first.
    func runDatagramExec(_ exec: ExecConfiguration, _ listener: DatagramListener) async {
        let watcher = Task { await self.watchRejections(listener.events) }
        let flows = ExecFlows()
        let limit = configuration.options.maximumClients
        var nextID = 0
        await withDiscardingTaskGroup { group in
            for await datagram in listener.datagrams {
                let bytes = datagram.data.readableBytes
                state.withLock {
                    $0.summary.datagramsIn += 1
                    $0.summary.bytesIn += bytes
                }
                if let flow = flows.table.withLock({ $0[datagram.peer] }) {
                    if flow.deliver(datagram.data) || !flow.isClosed { continue }
                    flows.table.withLock { if $0[datagram.peer] === flow { $0[datagram.peer] = nil } }
                }
                if !configuration.keepOpen && nextID > 0 { continue }
                if let limit, flows.table.withLock({ $0.count }) >= limit {
                    onEvent(.rejected(peer: datagram.peer.displayString, reason: "\(.maxClients) \(limit) reached"))
                    continue
                }
                nextID += 1
                let client = ClientInfo(id: nextID, peer: datagram.peer.displayString, webSocket: nil)
                let flow = DatagramFlow(peer: datagram.peer, listener: listener)
                let (socketLoop, local) = listener.socket(for: datagram.peer)
                let loop = socketLoop ?? MultiThreadedEventLoopGroup.singleton.next()
                flows.table.withLock { $0[datagram.peer] = flow }
                _ = flow.deliver(datagram.data)
                state.withLock { $0.summary.clients += 1 }
                onEvent(.clientConnected(client))
                group.addTask {
                    let clock = self.configuration.options.clock
                    let started = clock.now
                    let peer = ExecPeer.flow(flow, framing: self.configuration.framing, loop: loop) {
                        self.state.withLock { $0.summary.datagramsOut += 1 }
                    }
                    let environment = ExecEnvironment(transport: .udp, local: local, peer: datagram.peer)
                    let outcome = await ExecBridge.run(
                        exec, peer: peer, framing: self.configuration.framing, binaryMessages: false,
                        maximumFrameSize: self.configuration.maximumFrameSize, environment: environment
                    ) { pid in self.onEvent(.childStarted(client, pid: pid)) }
                    flows.table.withLock { if $0[flow.peer] === flow { $0[flow.peer] = nil } }
                    self.state.withLock { $0.summary.bytesOut += outcome.bytesFromChild }
                    self.onEvent(.childEnded(client, outcome))
                    self.onEvent(.clientDisconnected(
                        client, bytesIn: outcome.bytesToChild, bytesOut: outcome.bytesFromChild,
                        duration: clock.elapsed(since: started), error: nil))
                    if !self.configuration.keepOpen { await listener.close() }
                }
            }
            // Stopped: every command's flow ends and its child is signalled.
            for flow in flows.table.withLock({ Array($0.values) }) { await flow.close() }
            group.cancelAll()
        }
        let logged = await watcher.value
        state.withLock {
            $0.summary.datagramsDropped = listener.droppedDatagrams
            $0.summary.rejected = listener.rejectedCount
            $0.summary.rejectedUnlogged = max(0, listener.rejectedCount - logged)
        }
    }
}

/// The UDP commands' open flows by client address.
private final class ExecFlows: Sendable {
    let table = Mutex<[SocketAddress: DatagramFlow]>([:])
}
