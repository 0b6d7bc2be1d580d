import NIOCore

import Glibc

/// The channel handler behind a ``Connection``: a receive buffer served to a FIFO queue of read
/// requests, each with its own timeout, plus writability waiters for back-pressured writes.
///
/// It lives on the channel's event loop and is only touched there. The receive buffer is
/// bounded: once it holds `bufferLimit` bytes (or what the oldest pending read needs, whichever
/// is larger) the handler stops asking the socket for more, so a peer that sends faster than
/// the application reads fills the kernel's buffers, not ours.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    let isDatagram: Bool
    /// See ``DatagramQueue/dropsWhenFull``.
    let dropsWhenFull: Bool
    let bufferLimit: Int
    private let datagramLimit: Int
    let statistics: ConnectionStatistics
    /// Sees every byte in both directions (for `--hexdump`), on the event loop.
    var tap: TrafficTap?
    /// Hears the connection's life for `--record` once ``startRecording()`` has been called.
    var recorder: ConnectionRecorder?
    var recording = RecordingState.off
    /// Stream transports other than UDP are recorded as TCP.
    var transportForRecording: Endpoint.Transport = .tcp
    var recordingNumber: UInt64 = 0

    enum RecordingState {
        case off
        /// Handed to the application; the channel is not active yet.
        case waiting
        case open
        case closed
    }

    /// Called once when the channel becomes active (accepted connections are handed out then,
    /// not earlier: until it is registered, closing the listener would close it).
    var onActive: (() -> Void)?
    /// Names the connection in error messages (the peer address once connected).
    var label: String

    var context: ChannelHandlerContext?
    /// WebSocket: the kind of the message about to arrive (set by the WebSocket layer just
    /// before it passes a message up), and the kind of the message the latest read returned
    /// (``Connection/readMessage(timeout:)``).
    var arrivingKind: WebSocketMessageKind?
    private(set) var deliveredKind: WebSocketMessageKind?
    private(set) var pending = CircularBuffer<PendingRead>()
    private(set) var inputClosed = false
    private(set) var failure: SocketEngineError?
    private var heldRead = false
    private var writableWaiters: [EventLoopPromise<Void>] = []
    /// Called when this channel can take writes again: the partner forwarding into it resumes.
    private var whenWritableAgain: (() -> Void)?

    /// What the handler does with what it receives. Only this file switches on it; a payload is
    /// changed by taking it out (leaving ``Mode/transitioning``) and putting it back, so no
    /// second reference to it is left to copy on write.
    private enum Mode {
        /// Reads the application asks for one at a time (``enqueue(id:decoder:timeout:promise:)``)
        /// of a stream's received chunks.
        case reads(ReceivedChunks)
        /// The same, of whole messages.
        case datagrams(DatagramQueue)
        /// ``answerAll(decoder:delay:promise:answer:)``: every frame is answered here, on the
        /// event loop, without a trip through a task per message.
        case answering(Answering)
        /// ``forwardAll(to:partnerHandler:promise:)``: every chunk goes straight to a partner.
        case forwarding(Forwarding)
        /// ``discardAll(_:)``: incoming bytes are counted and dropped on arrival.
        case discarding(Discarding)
        /// A payload is out being changed.
        case transitioning
    }

    private var mode = Mode.transitioning

    /// Reads are the application's, one at a time (no answering, forwarding or discarding).
    var servesReads: Bool {
        switch mode {
        case .reads, .datagrams: return true
        case .answering, .forwarding, .discarding, .transitioning: return false
        }
    }

    /// The mode a connection starts in, and returns to when answering, forwarding or
    /// discarding ends.
    private var readsMode: Mode {
        isDatagram ? .datagrams(DatagramQueue(limit: datagramLimit, byteLimit: bufferLimit, dropsWhenFull: dropsWhenFull)) : .reads(ReceivedChunks())
    }
    /// Frames answered in this turn of the loop (answering only: reads the application asks
    /// for one at a time need no bound).
    var burst = ReadBurst()

    init(isDatagram: Bool, dropsWhenFull: Bool = true, bufferLimit: Int, datagramLimit: Int = 4096, statistics: ConnectionStatistics, label: String) {
        self.isDatagram = isDatagram
        self.dropsWhenFull = dropsWhenFull
        self.bufferLimit = max(1, bufferLimit)
        self.datagramLimit = datagramLimit
        self.statistics = statistics
        self.label = label
        mode = readsMode
    }

    // MARK: Requests from the Connection (always on the event loop)

    func enqueue(id: UInt64, decoder: FrameDecoder, timeout: TimeAmount?, closesWhenTooLarge: Bool = true, promise: EventLoopPromise<ByteBuffer?>) {
        var read = PendingRead(id: id, decoder: decoder, promise: promise, timeout: nil, closesWhenTooLarge: closesWhenTooLarge)
        if let timeout, let loop = context?.eventLoop {
            let label = self.label
            read.timeout = loop.assumeIsolated().scheduleTask(in: timeout) { [weak self] in
                self?.expire(id: id, error: SocketEngineError(
                    .readTimeout,
                    "\(label): no data within \(SocketEngineError.describe(timeout))"
                ))
            }
        }
        pending.append(read)
        serve()
    }

    /// From now on drop (and count) everything that arrives; complete at end of stream.
    func discardAll(_ promise: EventLoopPromise<Int>) {
        guard servesReads, pending.isEmpty else {
            promise.fail(SocketEngineError(.invalidConfiguration, "\(label): discard while reads are pending"))
            return
        }
        var already = 0
        switch mode {
        case .reads(let input):
            already = input.buffered
        case .datagrams(var queue):
            mode = .transitioning
            already = queue.removeAll()
        case .answering, .forwarding, .discarding, .transitioning:
            break
        }
        mode = .discarding(Discarding(promise: promise, alreadyBuffered: already))
        finishModeIfDone()
        if heldRead, let context {
            heldRead = false
            context.read()
        }
    }

    /// Ends discarding or forwarding once the input has ended or the connection failed.
    private func finishModeIfDone() {
        switch mode {
        case .discarding(let discarding):
            guard discarding.isOver(failure: failure, inputClosed: inputClosed) else { return }
            mode = readsMode
            discarding.complete(failure: failure)
        case .forwarding(let forwarding):
            guard forwarding.isOver(failure: failure, inputClosed: inputClosed) else { return }
            mode = readsMode
            forwarding.complete(failure: failure)
        case .reads, .datagrams, .answering, .transitioning:
            return
        }
    }

    /// From now on answer every frame `decoder` cuts with `answer(frame)` (bytes nil: no answer),
    /// written `delay` after the frame arrived, in order; ``Answer/closeAfter`` closes the
    /// connection once written. Completes when the peer has finished and every answer is
    /// written; fails on a frame over the limit or one that cannot be cut (the connection is
    /// closed after `lastWords` for the error, if any) or a connection error. Reads are held while the socket cannot take more answers.
    func answerAll(
        decoder: FrameDecoder, delay: TimeAmount?, promise: EventLoopPromise<Void>,
        lastWords: (@Sendable (SocketEngineError) -> ByteBuffer?)? = nil, interim: (@Sendable (ByteBuffer) -> ByteBuffer?)? = nil,
        answer: @escaping @Sendable (ByteBuffer) throws(SocketEngineError) -> Answer
    ) {
        guard case .reads(var input) = mode, pending.isEmpty else {
            promise.fail(SocketEngineError(.invalidConfiguration, "\(label): answering while other reads are pending"))
            return
        }
        input.restartSearch()
        mode = .answering(Answering(input: input, decoder: decoder, delay: delay, promise: promise, lastWords: lastWords, interim: interim, answer: answer))
        serve()
    }

    /// Stops answering (the task waiting for it was cancelled).
    func cancelAnswering() {
        guard case .answering(let answering) = mode else { return }
        mode = .reads(answering.input)
        answering.promise.fail(CancellationError())
    }

    /// A delayed answer has been written.
    func delayedAnswerWritten() {
        guard case .answering(var answering) = mode else { return }
        mode = .transitioning
        answering.delayedAnswerWritten()
        mode = .answering(answering)
    }

    /// From now on write everything that arrives — what is buffered first — to `partner`, flushed
    /// once per read burst; hold this socket's reads while `partner` cannot take more. Completes
    /// `promise` at the end of this side's input, or fails it with this side's error.
    func forwardAll(to partner: any Channel, partnerHandler: ConnectionHandler, promise: EventLoopPromise<Void>) {
        guard case .reads(var input) = mode, pending.isEmpty else {
            promise.fail(SocketEngineError(.invalidConfiguration, "\(label): forward while reads are pending"))
            return
        }
        let forwarding = Forwarding(partner: partner, promise: promise)
        mode = .forwarding(forwarding)
        var unread = input.takeAll()
        forwarding.start(with: &unread)
        partnerHandler.whenWritableAgain = { [weak self] in self?.resumeForwarding() }
        finishModeIfDone()
        resumeForwarding()
    }

    /// Reads again once the partner can take more.
    func resumeForwarding() {
        guard case .forwarding = mode, heldRead, let context, !shouldHoldReads else { return }
        heldRead = false
        context.read()
    }

    func cancel(id: UInt64) {
        expire(id: id, error: CancellationError())
    }

    func whenWritable(_ promise: EventLoopPromise<Void>) {
        guard let channel = context?.channel, channel.isActive else {
            promise.fail(failure ?? SocketEngineError(.connectionClosed, "\(label): connection closed"))
            return
        }
        if channel.isWritable {
            promise.succeed(())
        } else {
            writableWaiters.append(promise)
        }
    }

    /// The reason the connection failed, if it did.
    var recordedFailure: SocketEngineError? { failure }

    func record(failure error: SocketEngineError) {
        if failure == nil { failure = error }
    }

    func expire(id: UInt64, error: any Error) {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return }
        let read = pending.remove(at: index)
        read.timeout?.cancel()
        read.promise.fail(error)
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        inputClosed = true
        serve()
        failWritableWaiters()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let chunk = unwrapInboundIn(data)
        statistics.didReceive(chunk.readableBytes)
        if let tap { tap(TrafficRecord(direction: .received, bytes: chunk, connection: label)) }
        record(.received(chunk))
        switch mode {
        case .discarding(var discarding):
            mode = .transitioning
            discarding.drop(chunk)
            mode = .discarding(discarding)
            return
        case .forwarding(var forwarding):
            mode = .transitioning
            forwarding.forward(chunk)
            mode = .forwarding(forwarding)
            return
        case .datagrams(var queue):
            let kind = arrivingKind
            arrivingKind = nil
            mode = .transitioning
            let kept = queue.receive(chunk, kind: kind)
            mode = .datagrams(queue)
            if !kept { statistics.didDrop() }
            serve()
            return
        case .reads(var input):
            guard chunk.readableBytes > 0 else { break }
            mode = .transitioning
            input.append(chunk)
            mode = .reads(input)
        case .answering(var answering):
            guard chunk.readableBytes > 0 else { break }
            mode = .transitioning
            answering.input.append(chunk)
            mode = .answering(answering)
        case .transitioning:
            break
        }
        serve()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        burst.readTurnEnded()
        if case .forwarding(var forwarding) = mode {
            mode = .transitioning
            let flush = forwarding.readTurnEnded()
            mode = .forwarding(forwarding)
            // Flushed with the mode back in place: the flush may make the partner writable,
            // which resumes this side's reads at once.
            if flush { forwarding.partner.flush() }
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event {
            record(.finished(.received))
            inputClosed = true
            serve()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelActive(context: ChannelHandlerContext) {
        if let onActive {
            self.onActive = nil
            onActive()
        }
        openRecording(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        record(.closed)
        inputClosed = true
        serve()
        failWritableWaiters()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let wrapped = SocketEngineError.wrapping(error, context: label)
        if wrapped.code == .connectionReset { record(.reset(.received)) }
        record(failure: wrapped)
        serve()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            let waiters = writableWaiters
            writableWaiters.removeAll()
            waiters.forEach { $0.succeed(()) }
            if case .answering = mode { serve() }
            whenWritableAgain?()
        }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if shouldHoldReads {
            heldRead = true
        } else {
            context.read()
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let count: Int
        switch unwrapOutboundIn(data) {
        case .byteBuffer(let bytes):
            count = bytes.readableBytes
            if let tap { tap(TrafficRecord(direction: .sent, bytes: bytes, connection: label)) }
            record(.sent(bytes))
        case .fileRegion(let region):
            count = region.readableBytes
        }
        let statistics = self.statistics
        statistics.willSend()
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.whenSuccess { statistics.didSend(count) }
        context.write(data, promise: written)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .output { record(.finished(.sent)) }
        context.close(mode: mode, promise: promise)
    }

    // MARK: Serving reads

    var shouldHoldReads: Bool {
        switch mode {
        case .forwarding(let forwarding):
            return forwarding.holdsReads
        case .answering(let answering):
            let writable = context?.channel.isWritable ?? false
            return !writable || answering.isFull || burst.isYielding
                || answering.input.buffered >= max(bufferLimit, answering.bufferNeeded)
        case .datagrams(let queue):
            return queue.holdsReads
        case .reads(let input):
            return input.buffered >= max(bufferLimit, pending.first?.decoder.bufferNeeded ?? 0)
        case .discarding, .transitioning:
            return false
        }
    }

    func serve() {
        finishModeIfDone()
        if case .answering(var answering) = mode {
            mode = .transitioning
            if let outcome = serveAnswers(&answering) {
                mode = .reads(answering.input)
                answering.promise.completeWith(outcome)
            } else {
                mode = .answering(answering)
            }
        }
        while var read = pending.first {
            // Bytes that arrived before an error or EOF are delivered before the error is.
            let ended = inputClosed || failure != nil
            let result: ByteBuffer?
            do {
                if case .datagrams(var queue) = mode {
                    mode = .transitioning
                    let next = queue.next()
                    mode = .datagrams(queue)
                    result = next?.message
                    deliveredKind = next?.kind
                } else {
                    result = try decodeRead(&read.decoder, atEOF: ended)
                }
            } catch {
                pending.removeFirst()
                read.timeout?.cancel()
                read.promise.fail(error)
                if error.code == .frameTooLarge, read.closesWhenTooLarge {
                    // The stream cannot be resynchronised: this connection is over.
                    record(failure: SocketEngineError(error.code, "\(label): \(error.text)"))
                    if case .reads = mode { mode = .reads(ReceivedChunks()) }
                    context?.close(promise: nil)
                }
                continue
            }
            if let result {
                pending.removeFirst()
                read.timeout?.cancel()
                read.promise.succeed(result)
            } else if let failure {
                pending.removeFirst()
                read.timeout?.cancel()
                read.promise.fail(failure)
            } else if inputClosed {
                pending.removeFirst()
                read.timeout?.cancel()
                read.promise.succeed(nil)
            } else {
                pending[pending.startIndex] = read
                break
            }
        }
        if heldRead && !shouldHoldReads, let context {
            heldRead = false
            context.read()
        }
    }

    /// Cuts the next frame of a stream for an application read (nil in modes with no chunks).
    private func decodeRead(_ decoder: inout FrameDecoder, atEOF: Bool) throws(SocketEngineError) -> ByteBuffer? {
        guard case .reads(var input) = mode else { return nil }
        mode = .transitioning
        defer { mode = .reads(input) }
        return try input.decodeNext(&decoder, atEOF: atEOF)
    }

    /// Everything received and not yet read, handed over in order; the buffer is emptied.
    func takeUnread() -> (chunks: CircularBuffer<ByteBuffer>, bytes: Int) {
        guard case .reads(var input) = mode else { return ([], 0) }
        mode = .transitioning
        let bytes = input.buffered
        let chunks = input.takeAll()
        mode = .reads(input)
        return (chunks, bytes)
    }

    func failWritableWaiters() {
        let waiters = writableWaiters
        writableWaiters.removeAll()
        let error = failure ?? SocketEngineError(.connectionClosed, "\(label): connection closed")
        waiters.forEach { $0.fail(error) }
    }
}
