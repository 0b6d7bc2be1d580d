import NIOCore
import Synchronization

import Glibc

/// Turns received datagrams into plain buffers for the connection handler, and stamps nothing
/// on the way out: a connected UDP socket accepts plain buffers.
package final class DatagramUnwrapHandler: ChannelInboundHandler, Sendable {
    package typealias InboundIn = AddressedEnvelope<ByteBuffer>
    package typealias InboundOut = ByteBuffer

    package init() {}

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(wrapInboundOut(unwrapInboundIn(data).data))
    }
}
