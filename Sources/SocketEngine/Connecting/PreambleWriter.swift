import NIOCore

/// The first handler of a client channel whose connection begins with bytes of the engine's
/// own (``ConnectOptions/preamble``: the PROXY protocol header of `proxy
/// --send-proxy-protocol`): writes them as soon as the channel is active, before any handler
/// above it (TLS, the WebSocket upgrade, the caller's) sees it active, then leaves.
final class PreambleWriter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundOut = ByteBuffer

    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
        context.fireChannelActive()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
