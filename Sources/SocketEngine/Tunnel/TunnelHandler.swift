import NIOCore

/// A ``TunnelClient`` on an event loop: the first handler of a client channel that goes through
/// a proxy (``ChannelOpener`` puts it on before TLS, the WebSocket upgrade and the caller's
/// handlers).
///
/// The handlers above it do not hear that the channel is active until the tunnel is open — so a
/// TLS client sends its hello and a WebSocket client its upgrade to the destination, never to
/// the proxy — and their writes are held until then. Once open it passes on the bytes that came
/// behind the proxy's last message, then leaves the pipeline. The handshake has `timeout`
/// (event-loop time) from the connection to the proxy; past it, or on a refusal or a close, the
/// channel is closed and ``opened`` fails with the reason.
final class TunnelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var client: TunnelClient
    private let promise: EventLoopPromise<TunnelReport>
    private let timeout: TimeAmount
    private var received = ByteBuffer()
    private var held: [(NIOAny, EventLoopPromise<Void>?)] = []
    private var flushHeld = false
    private var started: NIODeadline?
    private var timer: Scheduled<Void>?
    private var finished = false

    /// Completes once the tunnel is open (or fails with why it is not).
    var opened: EventLoopFuture<TunnelReport> { promise.futureResult }

    init(client: TunnelClient, timeout: TimeAmount, promise: EventLoopPromise<TunnelReport>) {
        self.client = client
        self.timeout = timeout
        self.promise = promise
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { begin(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        if !finished {
            finished = true
            promise.fail(client.closedEarly(buffered: received.readableBytes))
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        begin(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(client.closedEarly(buffered: received.readableBytes), context: context)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !finished else {
            context.fireChannelRead(data)
            return
        }
        var chunk = unwrapInboundIn(data)
        received.writeBuffer(&chunk)
        do {
            while true {
                switch try client.receive(&received) {
                case .send(let bytes):
                    context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
                case .wait:
                    return
                case .open:
                    open(context: context)
                    return
                }
            }
        } catch {
            fail(error, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // With remote half-closure on, the proxy's FIN comes as an event, not as inactive.
        if !finished, let event = event as? ChannelEvent, event == .inputClosed {
            fail(client.closedEarly(buffered: received.readableBytes), context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if finished { context.fireChannelReadComplete() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !finished {
            fail(SocketEngineError.wrapping(error, context: "\(client.proxy.kind.protocolName) proxy \(client.label)"), context: context)
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard finished else {
            held.append((data, promise))
            return
        }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        guard finished else {
            flushHeld = true
            return
        }
        context.flush()
    }

    // MARK: Steps

    private func begin(context: ChannelHandlerContext) {
        guard started == nil, !finished else { return }
        started = .now()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            let error = SocketEngineError(
                .connectTimeout,
                "\(client.proxy.kind.protocolName) proxy \(client.label) did not open the tunnel to \(client.target) within \(SocketEngineError.describe(timeout))")
            fail(error, context: context)
        }
        context.writeAndFlush(wrapOutboundOut(client.start()), promise: nil)
    }

    /// The tunnel is open: the handlers above hear the channel is active, get what came behind
    /// the proxy's answer, and their held writes go out; then this handler leaves.
    private func open(context: ChannelHandlerContext) {
        finished = true
        timer?.cancel()
        let elapsed = NIODeadline.now() - (started ?? .now())
        let report = TunnelReport(
            proxy: client.proxy, proxyAddress: client.label, target: client.target.description,
            duration: .nanoseconds(max(0, elapsed.nanoseconds)))
        context.fireChannelActive()
        if received.readableBytes > 0 {
            let rest = received
            received = ByteBuffer()
            context.fireChannelRead(wrapInboundOut(rest))
            context.fireChannelReadComplete()
        }
        let writes = held
        held = []
        for (data, promise) in writes { context.write(data, promise: promise) }
        if flushHeld || !writes.isEmpty { context.flush() }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        promise.succeed(report)
    }

    private func fail(_ error: any Error, context: ChannelHandlerContext) {
        guard !finished else { return }
        finished = true
        timer?.cancel()
        let writes = held
        held = []
        for (_, promise) in writes { promise?.fail(error) }
        promise.fail(error)
        context.close(promise: nil)
    }
}
