import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns received datagrams into plain buffers for the connection handler, and stamps nothing
/// on the way out: a connected UDP socket accepts plain buffers.
public final class DatagramUnwrapHandler: ChannelInboundHandler, Sendable {
    public typealias InboundIn = AddressedEnvelope<ByteBuffer>
    public typealias InboundOut = ByteBuffer

    public init() {}

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(wrapInboundOut(unwrapInboundIn(data).data))
    }
}
