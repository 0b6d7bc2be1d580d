import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SocketEngine

import Glibc

/// Nearest the socket: closes it once what is queued for it has been written, below the TLS
/// layer, whose close would otherwise wait its `shutdownTimeout` for a close_notify from a peer
/// that has already ended its side. Should the peer not read, that timeout still closes.
final class SocketEndCloser: ChannelOutboundHandler {
    typealias OutboundIn = NIOAny
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func closeAfterQueuedWrites() {
        guard let context else { return }
        // Writes complete in order: when this empty one is done, our close_notify is written.
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(capacity: 0)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
