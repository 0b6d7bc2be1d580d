import NIOCore
import NIOWebSocket
import WebSocketDeflate

/// The WebSocket layer of a connection, between NIO's frame codec and the engine's
/// ``ConnectionHandler``: turns frames into messages (one read = one message, like a
/// datagram) and each written buffer into one message, and carries out the parts of RFC 6455
/// that are not about data.
///
/// ```
/// socket <-> WebSocketFrameWriter/Reader <-> WebSocketHandler <-> ConnectionHandler
///            (frame syntax; NIO's decoder,  frames | messages      (queued reads)
///             a burst per turn of the loop)
/// ```
///
/// - Pings are answered with a pong carrying the same payload, also between the fragments of
///   a message; while the socket can take no more, only the latest ping is answered, once it
///   can (a peer that pings and never reads cannot grow the send buffer). `pingInterval`
///   sends pings of its own.
/// - Violations found by ``WebSocketMessageAssembler`` or by NIO's decoder fail the connection:
///   a close frame with the code (1002, 1007, 1009), an error for whoever reads, and the TCP
///   connection closed once the peer answers (or after `closeTimeout`).
/// - A close frame from the peer — valid, even in the middle of a fragmented message — is
///   answered with 1000 and ends the messages (reads return nil). A code other than 1000 or
///   1001 is reported as an error (``SocketEngineError/Code/webSocketClosed``).
/// - Half-closing the connection (end of input) sends this side's close frame instead of a
///   FIN; closing it sends one first if none was sent.
/// - The server closes the TCP connection when the close handshake is done; the client waits
///   for the server to do so (RFC 6455 §7.1.1), at most `closeTimeout`.
/// - With an ``WebSocketOptions/Answer`` every message is answered here, on the event loop,
///   and nothing is delivered upwards; reads are held while the socket cannot take more.
///
/// - With permessage-deflate agreed (``WebSocketHandshake/compression``) every data message
///   this side sends is compressed (RSV1 on its frame, within the agreed window, the context
///   emptied after each message when the agreement says so); control frames never are. The
///   peer's compressed messages are inflated by ``WebSocketMessageAssembler``, bounded by the
///   message size limit.
///
/// 1005, 1006 and 1015 are never sent.
final class WebSocketHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = WebSocketFrame

    enum Role: Sendable {
        case client
        case server
    }

    private let role: Role
    private let options: WebSocketOptions
    private var assembler: WebSocketMessageAssembler
    /// Compresses this side's messages (nil: permessage-deflate was not agreed).
    private let deflater: MessageDeflater?
    let handshake: WebSocketHandshake
    /// Names the connection in events and errors.
    var label: String
    /// The connection's counters, for messages answered here (they never reach the
    /// ConnectionHandler that counts the others).
    var statistics: ConnectionStatistics?
    var tap: TrafficTap?
    /// The engine's handler above, which records what is answered here (`--record`) and is told
    /// the kind of each message passed up; it is removed with the pipeline, as this one is.
    weak var connectionHandler: ConnectionHandler?

    private var context: ChannelHandlerContext?
    private var closeSent = false
    private var closeReceived = false
    private var failed = false
    /// A full close asked for from above, carried out when the close handshake allows it.
    private var heldClose: EventLoopPromise<Void>?
    private var closeTimer: Scheduled<Void>?
    private var pingTask: Scheduled<Void>?
    private var heldRead = false
    /// The latest ping not yet answered because the socket could take no more.
    private var pendingPong: ByteBuffer?
    private var answersToFlush = false
    /// The kind of the next message written, when one was set for it (``WebSocketNextMessageKind``).
    private var nextKind: WebSocketMessageKind?
    /// Completes when this side's close frame has been written (the TCP connection is closed
    /// only after it, or the frame could be lost).
    private var closeWritten: EventLoopFuture<Void>?

    init(role: Role, options: WebSocketOptions, handshake: WebSocketHandshake, label: String) {
        self.role = role
        self.options = options
        self.handshake = handshake
        self.label = label
        let sender: PerMessageDeflate.Role = role == .client ? .client : .server
        let peer: PerMessageDeflate.Role = role == .client ? .server : .client
        let inflater = handshake.compression.map {
            MessageInflater(limit: options.maximumMessageSize, resetsEachMessage: $0.noContextTakeover(sentBy: peer))
        }
        self.deflater = handshake.compression.map {
            MessageDeflater(windowBits: $0.maxWindowBits(sentBy: sender), resetsEachMessage: $0.noContextTakeover(sentBy: sender))
        }
        self.assembler = WebSocketMessageAssembler(expectsMaskedFrames: role == .server, maximumMessageSize: options.maximumMessageSize, inflater: inflater)
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        schedulePing(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopTimers()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopTimers()
        noteAbnormalEnd(context: context)
        if let heldClose {
            self.heldClose = nil
            heldClose.succeed(())
        }
        context.fireChannelInactive()
    }

    private func stopTimers() {
        pingTask?.cancel()
        pingTask = nil
        closeTimer?.cancel()
        closeTimer = nil
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if closeReceived { return }
        if failed {
            // After failing only the peer's close matters: it lets the TCP connection end.
            if frame.opcode == .connectionClose { peerClosed(code: nil, reason: "", context: context) }
            return
        }
        switch assembler.receive(frame) {
        case .none:
            break
        case .violation(let violation):
            fail(violation, context: context)
        case .message(let kind, let message):
            if let answer = options.answer {
                answerMessage(kind, message, answer: answer, context: context)
            } else {
                connectionHandler?.arrivingKind = kind
                context.fireChannelRead(wrapInboundOut(message))
            }
        case .ping(let payload):
            guard !closeSent else { return }
            guard context.channel.isWritable else {
                // A peer that pings and never reads must not fill our send buffer: only the
                // latest ping is answered once there is room (RFC 6455 §5.5.3 allows it).
                pendingPong = payload
                return
            }
            send(.pong, payload, context: context, flush: true)
            emit(.pingAnswered(connection: label))
        case .pong(let payload):
            var payload = payload
            let after = payload.readableBytes == 8 ? payload.readInteger(as: UInt64.self).map { sent in
                Duration.nanoseconds(Int64(truncatingIfNeeded: context.eventLoop.now.uptimeNanoseconds &- sent))
            } : nil
            emit(.pongReceived(connection: label, after: after))
        case .close(let code, let reason):
            peerClosed(code: code, reason: reason, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if answersToFlush {
            answersToFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let decoding = error as? NIOWebSocketError {
            switch decoding {
            case .invalidFrameLength:
                fail(WebSocketViolation(WebSocketCloseCode.messageTooBig, "frame longer than the limit of \(plural(options.maximumMessageSize, "byte"))"), context: context)
            case .fragmentedControlFrame:
                fail(.protocolError("fragmented control frame"), context: context)
            case .multiByteControlFrameLength:
                fail(.protocolError("control frame longer than 125 bytes"), context: context)
            }
            return
        }
        context.fireErrorCaught(error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event {
            // The peer sent FIN: WebSocket has no half-close, so the connection is over.
            noteAbnormalEnd(context: context)
            context.fireUserInboundEventTriggered(event)
            finishClosing(context: context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The TCP connection ended before either side sent a close frame: what RFC 6455 reports
    /// locally as 1006 (never sent). An error for whoever reads next.
    private func noteAbnormalEnd(context: ChannelHandlerContext) {
        guard !closeSent, !closeReceived, !failed else { return }
        closeReceived = true
        emit(.closedAbnormally(connection: label))
        context.fireErrorCaught(SocketEngineError(
            .webSocketClosed,
            "\(label): the peer ended the connection without a WebSocket close frame (1006, abnormal closure)"
        ))
    }

    private func peerClosed(code: UInt16?, reason: String, context: ChannelHandlerContext) {
        closeReceived = true
        emit(.closeReceived(connection: label, code: code, reason: reason))
        // A reply to this side's close (which may echo its code) is no news.
        let peerInitiated = !closeSent
        if !closeSent && options.defersCloseReply {
            // Answered when this side ends its output (a relay's other side finished).
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            return
        }
        if !closeSent {
            // Answered with 1000 whatever the peer's (valid) code: the close handshake is done.
            sendClose(code: WebSocketCloseCode.normal, reason: "", context: context)
        }
        if let code, code != WebSocketCloseCode.normal, code != WebSocketCloseCode.goingAway, peerInitiated, !failed {
            let text = reason.isEmpty ? "" : " '\(reason)'"
            context.fireErrorCaught(SocketEngineError(
                .webSocketClosed,
                "\(label): the peer closed the WebSocket with \(WebSocketCloseCode.describe(code))\(text)"
            ))
        }
        // No more messages: reads return nil once the queued ones are read.
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        handshakeDone(context: context)
    }

    /// Both close frames have crossed: the server closes TCP now, the client gives it time to.
    private func handshakeDone(context: ChannelHandlerContext) {
        switch role {
        case .server:
            closeTCP(context: context)
        case .client:
            armCloseTimer(context: context)
        }
    }

    private func fail(_ violation: WebSocketViolation, context: ChannelHandlerContext) {
        guard !failed, !closeReceived else { return }
        failed = true
        emit(.failed(connection: label, violation))
        context.fireErrorCaught(SocketEngineError(
            .webSocketProtocol,
            "\(label): \(violation.reason): closed with \(WebSocketCloseCode.describe(violation.closeCode))"
        ))
        if !closeSent {
            sendClose(code: violation.closeCode, reason: violation.reason, context: context)
        }
        armCloseTimer(context: context)
    }

    // MARK: Answering on the event loop

    private func answerMessage(_ kind: WebSocketMessageKind, _ message: ByteBuffer, answer: WebSocketOptions.Answer, context: ChannelHandlerContext) {
        statistics?.didReceive(message.readableBytes)
        tap?(TrafficRecord(direction: .received, bytes: message, connection: label))
        guard !closeSent else { return }
        let reply: ByteBuffer
        let replyKind: WebSocketMessageKind
        switch answer {
        case .echo:
            (replyKind, reply) = (kind, message)
        case .respond(let body):
            (replyKind, reply) = (options.messageKind, body)
        }
        tap?(TrafficRecord(direction: .sent, bytes: reply, connection: label))
        connectionHandler?.recordAnswered(received: message, sent: reply)
        let statistics = self.statistics
        let count = reply.readableBytes
        let written = context.eventLoop.makePromise(of: Void.self)
        statistics?.willSend()
        written.futureResult.whenSuccess { statistics?.didSend(count) }
        context.write(wrapOutboundOut(dataFrame(replyKind, reply, allocator: context.channel.allocator)), promise: written)
        answersToFlush = true
    }

    func read(context: ChannelHandlerContext) {
        if options.answer != nil, !context.channel.isWritable {
            heldRead = true
            return
        }
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let payload = pendingPong {
            pendingPong = nil
            if !closeSent {
                send(.pong, payload, context: context, flush: true)
                emit(.pingAnswered(connection: label))
            }
        }
        if context.channel.isWritable, heldRead {
            heldRead = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .byteBuffer(let message) = unwrapOutboundIn(data) else {
            promise?.fail(SocketEngineError(.unsupported, "\(label): files cannot be sent as WebSocket messages"))
            return
        }
        guard !closeSent else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        let kind = nextKind ?? options.messageKind
        nextKind = nil
        context.write(wrapOutboundOut(dataFrame(kind, message, allocator: context.channel.allocator)), promise: promise)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let next = event as? WebSocketNextMessageKind else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        nextKind = next.kind
        promise?.succeed(())
    }

    /// A whole message in one frame: compressed, with RSV1, when permessage-deflate was agreed
    /// (and zlib did its part: otherwise sent as it is, which RFC 7692 §6 allows).
    private func dataFrame(_ kind: WebSocketMessageKind, _ message: ByteBuffer, allocator: ByteBufferAllocator) -> WebSocketFrame {
        guard let deflater, let payload = message.withUnsafeReadableBytes({ deflater.compress($0) }) else {
            return frame(kind.opcode, message)
        }
        var buffer = allocator.buffer(capacity: payload.count)
        buffer.writeBytes(payload)
        return WebSocketFrame(fin: true, rsv1: true, opcode: kind.opcode, maskKey: role == .client ? .random() : nil, data: buffer)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .output && !context.channel.isActive {
            // Nothing to end: WebSocket has no half-close of its own to undo.
            promise?.succeed(())
            return
        }
        guard context.channel.isActive else {
            context.close(mode: mode, promise: promise)
            return
        }
        switch mode {
        case .output:
            // End of input: this side's close frame instead of a FIN.
            if !closeSent { sendClose(code: closeReceived ? WebSocketCloseCode.normal : options.closeCode, reason: closeReceived ? "" : options.closeReason, context: context) }
            if closeReceived {
                // The deferred reply to the peer's close: the handshake is done now.
                handshakeDone(context: context)
            } else {
                armCloseTimer(context: context)
            }
            promise?.succeed(())
        case .all:
            if !closeSent {
                sendClose(code: options.closeCode, reason: options.closeReason, context: context)
            }
            if let promise {
                if let heldClose { heldClose.futureResult.cascade(to: promise) } else { heldClose = promise }
            } else if heldClose == nil {
                heldClose = context.eventLoop.makePromise()
            }
            if role == .server {
                closeTCP(context: context)
                return
            }
            // The client waits for the server's close (frame, then TCP), bounded by the timer.
            armCloseTimer(context: context)
        case .input:
            context.close(mode: mode, promise: promise)
        }
    }

    private func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: opcode, maskKey: role == .client ? .random() : nil, data: data)
    }

    private func send(_ opcode: WebSocketOpcode, _ data: ByteBuffer, context: ChannelHandlerContext, flush: Bool) {
        let frame = wrapOutboundOut(frame(opcode, data))
        if flush {
            context.writeAndFlush(frame, promise: nil)
        } else {
            context.write(frame, promise: nil)
        }
    }

    private func sendClose(code: UInt16, reason: String, context: ChannelHandlerContext) {
        guard !closeSent else { return }
        closeSent = true
        var payload = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        payload.writeInteger(code)
        // A close payload is at most 125 bytes: the reason is cut at a character boundary.
        var cut = Substring(reason)
        while cut.utf8.count > 123 { cut = cut.dropLast() }
        payload.writeString(String(cut))
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(frame(.connectionClose, payload)), promise: written)
        closeWritten = written.futureResult
        emit(.closeSent(connection: label, code: code, reason: String(cut)))
    }

    private func schedulePing(context: ChannelHandlerContext) {
        guard let interval = options.pingInterval else { return }
        pingTask = context.eventLoop.assumeIsolated().scheduleTask(in: interval.timeAmount) { [self] in
            sendPing()
        }
    }

    private func sendPing() {
        guard let context, !closeSent, context.channel.isActive else { return }
        schedulePing(context: context)
        // Nothing piles up behind a send buffer that is already full.
        guard context.channel.isWritable else { return }
        var payload = context.channel.allocator.buffer(capacity: 8)
        payload.writeInteger(context.eventLoop.now.uptimeNanoseconds)
        send(.ping, payload, context: context, flush: true)
        emit(.pingSent(connection: label))
    }

    // MARK: Ending the TCP connection

    private func armCloseTimer(context: ChannelHandlerContext) {
        guard closeTimer == nil else { return }
        closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: options.closeTimeout.timeAmount) { [self] in
            guard let context = self.context else { return }
            closeTCP(context: context)
        }
    }

    /// The peer's FIN, or the timer: nothing more will come.
    private func finishClosing(context: ChannelHandlerContext) {
        closeTCP(context: context)
    }

    private func closeTCP(context: ChannelHandlerContext) {
        closeTimer?.cancel()
        closeTimer = nil
        let promise = heldClose
        heldClose = nil
        guard context.channel.isActive else {
            promise?.succeed(())
            return
        }
        guard let closeWritten else {
            context.close(mode: .all, promise: promise)
            return
        }
        // After the close frame is out (written or failed: either way nothing is left to wait for).
        closeWritten.assumeIsolated().whenComplete { _ in
            context.close(mode: .all, promise: promise)
        }
    }

    private func emit(_ event: WebSocketEvent) {
        options.onEvent?(event)
    }
}
