import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SocketEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves with what is wrong with the certificate a server sends (for the diagnosis).
final class CertificateGrabber: ChannelInboundHandler {
    typealias InboundIn = NIOAny
    private let promise: EventLoopPromise<String?>

    init(promise: EventLoopPromise<String?>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            let peer = (try? context.pipeline.syncOperations.handler(type: NIOSSLHandler.self))?.peerCertificate
            promise.succeed(peer.map(TLSLayer.describeRefusal))
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.succeed(nil)
        context.close(promise: nil)
    }
}
