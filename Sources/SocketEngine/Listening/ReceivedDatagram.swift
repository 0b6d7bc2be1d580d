import NIOCore
import NIOPosix
import Synchronization

/// One datagram a ``DatagramListener`` received.
package struct ReceivedDatagram: Sendable {
    package let peer: SocketAddress
    package let data: ByteBuffer
    /// Which bound socket received it, so the reply leaves from the same address.
    let socketIndex: Int
}
