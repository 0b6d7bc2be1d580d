import NIOCore
import NIOPosix
import Synchronization

/// One datagram a ``DatagramListener`` received.
public struct ReceivedDatagram: Sendable {
    public let peer: SocketAddress
    public let data: ByteBuffer
    /// Which bound socket received it, so the reply leaves from the same address.
    let socketIndex: Int
}
