import Clocks
import NIOCore
import Synchronization

/// UDP: one socket, many peers; each datagram is answered (or printed) on its own.
extension ListenService {
    func runDatagram(_ listener: DatagramListener) async {
        if let exec = configuration.exec { return await runDatagramExec(exec, listener) }
        let watcher = Task { await self.watchRejections(listener.events) }
        let forwarder = configuration.mode == .print ? input.map { input in
            Task { await self.forwardInput(input) }
        } : nil
        let clock = configuration.options.clock
        // Delayed answers wait in one queue in arrival order (all delays are equal), so a
        // datagram flood costs a bounded queue, not a task per datagram.
        let delayed = AsyncBoundedQueue<(EngineClock.Instant, ReceivedDatagram)>(capacity: 4096)
        let answering = Task {
            while let (due, datagram) = try? await delayed.next() {
                try? await clock.sleep(until: due)
                await self.answerDatagram(datagram, on: listener)
            }
        }
        for await datagram in listener.datagrams {
            let bytes = datagram.data.readableBytes
            state.withLock { state in
                state.summary.datagramsIn += 1
                state.summary.bytesIn += bytes
                if !state.datagramPeers.contains(datagram.peer) {
                    if state.datagramPeers.count >= 1024 { state.datagramPeers.removeFirst() }
                    state.datagramPeers.append(datagram.peer)
                }
            }
            presence.set(true)
            onEvent(.datagram(peer: datagram.peer.displayString, bytes: bytes))
            switch configuration.mode {
            case .print:
                var frame = datagram.data
                if configuration.framing != .raw { frame.writeInteger(UInt8(0x0A)) }
                try? await output.write(frame)
            case .discard:
                break
            case .echo, .respond, .broadcast:
                if let delay = configuration.delay {
                    try? await delayed.push((clock.now.advanced(by: delay), datagram))
                } else {
                    await answerDatagram(datagram, on: listener)
                }
            }
        }
        delayed.finish()
        await answering.value
        forwarder?.cancel()
        let logged = await watcher.value
        state.withLock {
            $0.summary.datagramsDropped = listener.droppedDatagrams
            $0.summary.rejected = listener.rejectedCount
            $0.summary.rejectedUnlogged = max(0, listener.rejectedCount - logged)
        }
    }

    private func answerDatagram(_ datagram: ReceivedDatagram, on listener: DatagramListener) async {
        var replies: [(SocketAddress?, ByteBuffer)] = []
        switch configuration.mode {
        case .echo:
            replies = [(nil, datagram.data)]
        case .respond(let body):
            replies = [(nil, body)]
        case .broadcast:
            let peers = state.withLock { $0.datagramPeers }
            replies = peers.filter { $0 != datagram.peer }.map { ($0, datagram.data) }
        case .print, .discard:
            return
        }
        for (peer, data) in replies {
            do {
                if let peer {
                    try await listener.send(data, to: peer)
                } else {
                    try await listener.reply(to: datagram, with: data)
                }
                state.withLock {
                    $0.summary.datagramsOut += 1
                    $0.summary.bytesOut += data.readableBytes
                }
            } catch {
                continue
            }
        }
    }
}
