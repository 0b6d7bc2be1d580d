import NIOCore
import NIOPosix
import Synchronization

/// `--record` for a UDP listener: each peer of each bound socket is one recorded flow, opened
/// by its first datagram and closed when the listener closes.
final class DatagramRecording: Sendable {
    private struct Flow: Hashable {
        let socketIndex: Int
        let peer: SocketAddress
    }

    private let recorder: ConnectionRecorder
    private let flows = Mutex<[Flow: UInt64]>([:])

    init(recorder: @escaping ConnectionRecorder) { self.recorder = recorder }

    func record(_ event: ConnectionRecordEvent, peer: SocketAddress, socketIndex: Int, local: SocketAddress?) {
        let recorder = self.recorder
        // Under the lock, so a flow's opening is always its first event.
        flows.withLock { flows in
            let flow = Flow(socketIndex: socketIndex, peer: peer)
            let number: UInt64
            if let known = flows[flow] {
                number = known
            } else {
                number = ConnectionNumbers.take()
                flows[flow] = number
                recorder(number, .opened(local: local, remote: peer, transport: .udp))
            }
            recorder(number, event)
        }
    }

    func closeAll() {
        let recorder = self.recorder
        flows.withLock { flows in
            for number in flows.values.sorted() { recorder(number, .closed) }
            flows.removeAll()
        }
    }
}
