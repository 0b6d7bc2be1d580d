import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Admits or refuses each accepted client on the listening channel's event loop, in accept
/// order: the access policy first, then the client limit. A refused client is closed before
/// NIO registers it; an admitted one holds a place until it closes.
final class AdmissionHandler: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let options: ListenOptions
    private let refusals: Refusals
    private let active: SharedCounter

    init(options: ListenOptions, refusals: Refusals, active: SharedCounter) {
        self.options = options
        self.refusals = refusals
        self.active = active
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        let peer = child.remoteAddress
        var refusal = options.access.refusal(for: peer)
        if refusal == nil {
            if let limit = options.maximumClients {
                if !active.tryIncrement(below: limit) { refusal = "--max-clients \(limit) reached" }
            } else {
                active.add()
            }
        }
        if let refusal {
            refusals.refuse(peer, because: refusal)
            child.close(promise: nil)
            return
        }
        let active = self.active
        child.closeFuture.whenComplete { _ in active.subtract() }
        context.fireChannelRead(data)
    }
}
