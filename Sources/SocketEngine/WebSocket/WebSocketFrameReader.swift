import NIOCore
import NIOWebSocket

/// NIO's WebSocket frame decoder run one burst at a time, in place of the
/// `ByteToMessageHandler` that NIO's upgraders install, which decodes every frame of every
/// read before its event loop moves on to another channel.
///
/// A peer sending zero-length continuation frames puts some 11,000 frames in each 64 KiB read,
/// four reads a turn; decoded at once, they keep every other client of the loop waiting. Here
/// at most ``ReadBurst/messageLimit`` frames are decoded per turn: the rest wait for the loop's
/// next poll (``LoopYield``), and the socket is not read again until they are decoded.
///
/// ```
/// socket -> WebSocketFrameReader -> WebSocketHandler -> ConnectionHandler
///           bytes | frames, a burst per turn
/// ```
///
/// The frames, their checks and their errors are NIO's own (`WebSocketFrameDecoder`): a frame
/// over the limit, a fragmented or long control frame is reported once and what follows is
/// dropped, as `ByteToMessageHandler` does. The end of input reaches the handlers above after
/// the frames that came before it; when the channel closes, what is left is decoded at once
/// (it is at most one turn's reads) before the handlers above hear of it.
final class WebSocketFrameReader: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = WebSocketFrame
    typealias OutboundIn = Any
    typealias OutboundOut = Any

    private let decoder: WebSocketFrameDecoder
    /// Bytes read and not decoded yet.
    private var received = ByteBuffer()
    private var burst = ReadBurst()
    private var context: ChannelHandlerContext?
    /// False until NIO's decoder has left the pipeline (a turn after ``install(on:maximumFrameSize:)``):
    /// until then bytes and the end wait here, for a frame passed on would reach NIO's decoder.
    private var isOpen = false
    /// Inside `decode`: the handlers above may close the channel meanwhile.
    private var isDecoding = false
    private var failed = false
    private var heldRead = false
    private var heldInputClosed = false
    private var heldInactive = false
    /// The channel's end has been passed on.
    private var finished = false

    private init(maximumFrameSize: Int) {
        decoder = WebSocketFrameDecoder(maxFrameSize: maximumFrameSize)
    }

    /// Takes the place of the decoder NIO's upgrader has just added to `channel`'s pipeline
    /// (in the upgrader's pipeline callback, on the loop, before any frame has arrived).
    static func install(on channel: any Channel, maximumFrameSize: Int) throws {
        let operations = channel.pipeline.syncOperations
        let replaced = try operations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
        let reader = WebSocketFrameReader(maximumFrameSize: maximumFrameSize)
        try operations.addHandler(reader, position: .before(replaced))
        let removed = channel.eventLoop.makePromise(of: Void.self)
        operations.removeHandler(replaced, promise: removed)
        removed.futureResult.assumeIsolated().whenComplete { _ in reader.open() }
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    private func open() {
        isOpen = true
        guard let context else { return }
        if heldInactive {
            finish(context: context)
            return
        }
        decodeBurst(context: context)
        context.fireChannelReadComplete()
        afterBurst(context: context)
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        var bytes = unwrapInboundIn(data)
        if received.readableBytes == 0 {
            received = bytes
        } else {
            received.writeBuffer(&bytes)
        }
        decodeBurst(context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
        burst.readTurnEnded()
        afterBurst(context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let channelEvent = event as? ChannelEvent, case .inputClosed = channelEvent,
           !isOpen || isDecoding || burst.isYielding {
            heldInputClosed = true
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Passed on at once, or once NIO's decoder has gone, or once the decoding under way
        // (whose frames made the handlers above close the channel) is done.
        heldInactive = true
        if isOpen && !isDecoding { finish(context: context) }
    }

    // MARK: Outbound

    func read(context: ChannelHandlerContext) {
        if !isOpen || burst.isYielding {
            heldRead = true
        } else {
            context.read()
        }
    }

    // MARK: Decoding

    /// Decodes frames until the bytes run out or, when `bounded`, the burst is spent (then the
    /// rest waits for the loop's next poll).
    private func decodeBurst(context: ChannelHandlerContext, bounded: Bool = true) {
        guard isOpen, !isDecoding, !failed else { return }
        isDecoding = true
        // Decoded from a local copy: bytes arriving meanwhile are added to `received` afterwards.
        var buffer = received
        received = ByteBuffer()
        while buffer.readableBytes > 0 {
            if bounded && !heldInactive && burst.isSpent {
                burst.yield(on: context.eventLoop) { [weak self] in self?.resume() }
                break
            }
            let state: DecodingState
            do {
                state = try decoder.decode(context: context, buffer: &buffer)
            } catch {
                failed = true
                buffer = ByteBuffer()
                received = ByteBuffer()
                context.fireErrorCaught(error)
                break
            }
            guard state == .continue else { break }
            burst.count()
        }
        if received.readableBytes > 0 { buffer.writeBuffer(&received) }
        if buffer.readableBytes == 0 {
            received = ByteBuffer()
        } else {
            if buffer.readerIndex > 64 * 1024 { buffer.discardReadBytes() }
            received = buffer
        }
        isDecoding = false
        if bounded && heldInactive { finish(context: context) }
    }

    private func resume() {
        burst.begin()
        guard let context, !finished else { return }
        decodeBurst(context: context)
        context.fireChannelReadComplete()
        afterBurst(context: context)
    }

    /// The backlog is decoded: what waited behind it goes on.
    private func afterBurst(context: ChannelHandlerContext) {
        guard isOpen, !isDecoding, !burst.isYielding, !heldInactive else { return }
        if heldInputClosed {
            heldInputClosed = false
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
        if heldRead {
            heldRead = false
            context.read()
        }
    }

    /// The channel has closed: decode what is left (one turn's reads at most), then pass on
    /// the end.
    private func finish(context: ChannelHandlerContext) {
        guard !finished else { return }
        finished = true
        decodeBurst(context: context, bounded: false)
        heldInactive = false
        if heldInputClosed {
            heldInputClosed = false
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
        context.fireChannelInactive()
    }
}
