import NIOCore
import ProxyProtocol

/// The first handler of an accepted client's channel when the listener takes the PROXY
/// protocol (`listen --accept-proxy-protocol`): reads the header a proxy writes before the
/// client's first byte (v1 or v2), then hands the channel to the rest of its set-up with the
/// addresses the header carries, passes on the bytes behind the header (from the pipeline's head,
/// through what the set-up put below it) and stays as a pass-through
/// that answers ``carried`` (the client's label and recording use it, see
/// ``Connection/peerAddresses(of:)``).
///
/// A malformed header, none within the handshake timeout (the loop's time) or a close before
/// the whole header is a refusal: `ready` is told why and the channel is closed. At most
/// ``ProxyProtocolHeader/longestHeader`` bytes are held.
final class ProxyProtocolReceiver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The header, once read.
    private(set) var header: ProxyProtocolHeader?
    /// The addresses the header carried; nil before it or when it carried none.
    var carried: ProxyProtocolHeader.Addresses? { header?.addresses }

    private let timeout: Duration
    /// Told once: the header (the channel's set-up then goes on) or why the client is refused.
    private var ready: ((Result<ProxyProtocolHeader, SocketEngineError>) -> Void)?
    private var pending: ByteBuffer?
    private var timer: Scheduled<Void>?

    init(timeout: Duration, ready: @escaping (Result<ProxyProtocolHeader, SocketEngineError>) -> Void) {
        self.timeout = timeout
        self.ready = ready
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loop = context.eventLoop.assumeIsolated()
        timer = loop.scheduleTask(in: timeout.timeAmount) { [self] in
            refuse(context, SocketEngineError(.proxyHeader, "no PROXY protocol header within \(timeout.formatted)"))
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard ready != nil else {
            // The header is read (or the client refused): the bytes are the connection's.
            if header != nil { context.fireChannelRead(data) }
            return
        }
        var chunk = unwrapInboundIn(data)
        if pending == nil {
            pending = chunk
        } else {
            pending?.writeBuffer(&chunk)
        }
        guard let bytes = pending else { return }
        let parsed: ProxyProtocolHeader.Parsed
        do {
            parsed = try bytes.withUnsafeReadableBytes { raw throws(ProxyProtocolHeader.Failure) in try ProxyProtocolHeader.parse(raw) }
        } catch {
            refuse(context, SocketEngineError(.proxyHeader, "malformed PROXY protocol header: \(error)"))
            return
        }
        guard case .header(let header, let length) = parsed else { return }
        timer?.cancel()
        self.header = header
        let ready = self.ready
        self.ready = nil
        var rest = bytes
        rest.moveReaderIndex(forwardBy: length)
        pending = nil
        ready?(.success(header))
        // From the pipeline's head: the set-up may have put handlers below this one (the TLS
        // layer puts itself first), and they must see these bytes first.
        if rest.readableBytes > 0 { context.pipeline.syncOperations.fireChannelRead(wrapInboundOut(rest)) }
        context.pipeline.syncOperations.fireChannelReadComplete()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if ready == nil, header != nil { context.fireChannelReadComplete() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if ready != nil {
            refuse(context, SocketEngineError(.proxyHeader, "closed before a whole PROXY protocol header"))
        }
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if ready != nil, let event = event as? ChannelEvent, case .inputClosed = event {
            refuse(context, SocketEngineError(.proxyHeader, "closed before a whole PROXY protocol header"))
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func refuse(_ context: ChannelHandlerContext, _ error: SocketEngineError) {
        guard let ready else { return }
        self.ready = nil
        timer?.cancel()
        pending = nil
        context.close(promise: nil)
        ready(.failure(error))
    }
}
