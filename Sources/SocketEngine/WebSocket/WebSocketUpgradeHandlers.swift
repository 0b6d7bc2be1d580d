import NIOCore
import NIOHTTP1
import NIOWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

/// Carries the handshakes' futures from the channel initializer to the connector, which
/// removes it once it has won the race.
final class HandshakeNote: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    let security: EventLoopFuture<SecurityReport?>
    let upgrade: EventLoopFuture<(Connection, WebSocketHandshake)>

    init(security: EventLoopFuture<SecurityReport?>, upgrade: EventLoopFuture<(Connection, WebSocketHandshake)>) {
        self.security = security
        self.upgrade = upgrade
    }
}

/// Notes a FIN that arrives during the HTTP upgrade: NIO's upgrade handlers pass it on to
/// handlers that are not there yet, so it would be lost.
final class EndOfInputWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private(set) var sawEndOfInput = false
    var onEndOfInput: (() -> Void)?

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event {
            sawEndOfInput = true
            onEndOfInput?()
        }
        context.fireUserInboundEventTriggered(event)
    }
}
