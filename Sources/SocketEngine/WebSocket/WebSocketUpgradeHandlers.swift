import NIOCore
import NIOHTTP1
import NIOWebSocket

import Glibc

/// Sees the response head of a refused upgrade (the upgrade handler passes it on) and fails
/// the handshake with its status; fails too if the connection closes first.
final class RefusedResponseCatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    private var promise: EventLoopPromise<HTTPResponseHead>?

    init(promise: EventLoopPromise<HTTPResponseHead>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) { complete(.success(head)) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete(.failure(ChannelError.eof))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        complete(.failure(ChannelError.eof))
    }

    private func complete(_ result: Result<HTTPResponseHead, any Error>) {
        let promise = self.promise
        self.promise = nil
        promise?.completeWith(result)
    }
}

/// Notes a FIN that arrives during the HTTP upgrade, and passes it on one turn of the loop
/// later.
///
/// Why later: once a complete head asks for the upgrade, NIO removes its HTTP decoder on the
/// loop's next turn, and the decoder hands the bytes that followed the head (frames the peer
/// sent right behind its 101, or behind its request) to the upgrade only if it has not seen
/// the FIN by then: a FIN read in the same turn as the head would drop them. Passed on a turn
/// later, the FIN reaches a decoder that has already let go of those bytes; if the upgrade has
/// happened by then, this handler is gone and ``WebSocketClient/install(on:role:handshake:options:label:above:)``
/// gives the FIN to the WebSocket layer instead, after the frames.
final class EndOfInputWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private(set) var sawEndOfInput = false
    private var removed = false
    var onEndOfInput: (() -> Void)?

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let channelEvent = event as? ChannelEvent, case .inputClosed = channelEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        sawEndOfInput = true
        onEndOfInput?()
        context.eventLoop.assumeIsolated().execute { [self] in
            guard !removed else { return }
            context.fireUserInboundEventTriggered(event)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
    }
}
