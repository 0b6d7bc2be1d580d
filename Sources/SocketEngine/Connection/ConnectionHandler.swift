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

    struct PendingRead {
        let id: UInt64
        var decoder: FrameDecoder
        let promise: EventLoopPromise<ByteBuffer?>
        var timeout: Scheduled<Void>?
    }

    let isDatagram: Bool
    /// UDP: a message that finds the queue full is dropped (and counted). WebSocket messages
    /// never are: reads are held instead, and one read's worth of messages may overshoot.
    let dropsWhenFull: Bool
    var datagramBytes = 0
    let bufferLimit: Int
    let datagramLimit: Int
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
    /// Received bytes not yet read, as the chunks they arrived in: a read of whatever is
    /// available hands a chunk out without copying; chunks are merged only when a frame spans them.
    var chunks = CircularBuffer<ByteBuffer>()
    var buffered = 0
    /// Chunks after the first that are known to hold no byte ending the pending delimiter.
    var scannedChunks = 0
    /// Chunks smaller than this are copied onto the previous one, so a peer dribbling tiny
    /// segments costs memory for its bytes, not one allocation per segment.
    private static let smallChunk = 8 * 1024
    private static let coalescedChunk = 64 * 1024
    var datagrams = CircularBuffer<ByteBuffer>()
    /// WebSocket: the kind of each message in `datagrams`, in step with it (set by the
    /// WebSocket layer through `arrivingKind` just before it passes a message up), and the kind
    /// of the message the latest read returned (``Connection/readMessage(timeout:)``).
    var datagramKinds = CircularBuffer<WebSocketMessageKind>()
    var arrivingKind: WebSocketMessageKind?
    private(set) var deliveredKind: WebSocketMessageKind?
    var pending = CircularBuffer<PendingRead>()
    var inputClosed = false
    var failure: SocketEngineError?
    var heldRead = false
    var writableWaiters: [EventLoopPromise<Void>] = []
    /// Set by ``discardAll(_:)``: incoming bytes are counted and dropped on arrival.
    var discarding: (promise: EventLoopPromise<Int>, count: Int)?
    /// Set by ``answerAll(decoder:delay:promise:answer:)``: every frame is answered here, on the
    /// event loop, without a trip through a task per message.
    var answering: Answering?
    /// Set by ``forwardAll(to:partnerHandler:promise:)``: every chunk goes straight to a partner.
    var forwarding: Forwarding?
    /// Called when this channel can take writes again: the partner forwarding into it resumes.
    var whenWritableAgain: (() -> Void)?

    struct Answering {
        var decoder: FrameDecoder
        let delay: TimeAmount?
        let promise: EventLoopPromise<Void>
        let answer: @Sendable (ByteBuffer) throws(SocketEngineError) -> ByteBuffer?
        /// Delayed answers not yet written.
        var scheduled = 0
    }

    /// At most this many delayed answers wait at once; beyond it the socket is not read.
    static let maximumScheduledAnswers = 4096
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
    }

    // MARK: Requests from the Connection (always on the event loop)

    func enqueue(id: UInt64, decoder: FrameDecoder, timeout: TimeAmount?, promise: EventLoopPromise<ByteBuffer?>) {
        var read = PendingRead(id: id, decoder: decoder, promise: promise, timeout: nil)
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
        scannedChunks = 0
        guard discarding == nil, pending.isEmpty else {
            promise.fail(SocketEngineError(.invalidConfiguration, "\(label): discard while reads are pending"))
            return
        }
        let already = buffered + datagrams.reduce(0) { $0 + $1.readableBytes }
        chunks.removeAll()
        datagrams.removeAll()
        datagramKinds.removeAll()
        datagramBytes = 0
        buffered = 0
        discarding = (promise, already)
        finishDiscardingIfDone()
        if heldRead, let context {
            heldRead = false
            context.read()
        }
    }

    func finishDiscardingIfDone() {
        guard let (promise, count) = discarding else { return }
        if let failure {
            discarding = nil
            promise.fail(failure)
        } else if inputClosed {
            discarding = nil
            promise.succeed(count)
        }
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
        if discarding != nil {
            discarding?.count += chunk.readableBytes
            return
        }
        if forwarding != nil {
            forward(chunk)
            return
        }
        if isDatagram {
            let kind = arrivingKind
            arrivingKind = nil
            if dropsWhenFull && datagrams.count >= datagramLimit {
                statistics.didDrop()
            } else {
                datagrams.append(chunk)
                if let kind { datagramKinds.append(kind) }
                datagramBytes += chunk.readableBytes
            }
        } else if chunk.readableBytes > 0 {
            append(chunk)
        }
        serve()
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
            if answering != nil { serve() }
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

    func append(_ chunk: ByteBuffer) {
        buffered += chunk.readableBytes
        let lastIndex = chunks.index(before: chunks.endIndex)
        if chunk.readableBytes < Self.smallChunk, !chunks.isEmpty,
           chunks[lastIndex].readableBytes + chunk.readableBytes <= Self.coalescedChunk {
            chunks[lastIndex].writeImmutableBuffer(chunk)
            // The last chunk changed: it must be searched again.
            scannedChunks = min(scannedChunks, max(0, chunks.count - 2))
        } else {
            chunks.append(chunk)
        }
    }

    var shouldHoldReads: Bool {
        if let forwarding { return !forwarding.partner.isWritable }
        if isDatagram { return datagrams.count >= datagramLimit || (!dropsWhenFull && datagramBytes >= bufferLimit) }
        if let answering {
            let writable = context?.channel.isWritable ?? false
            return !writable || answering.scheduled >= Self.maximumScheduledAnswers || burst.isYielding
                || buffered >= max(bufferLimit, answering.decoder.bufferNeeded)
        }
        let needed = max(bufferLimit, pending.first?.decoder.bufferNeeded ?? 0)
        return buffered >= needed
    }

    func serve() {
        finishDiscardingIfDone()
        if forwarding != nil { finishForwardingIfDone() }
        if answering != nil { serveAnswers() }
        while var read = pending.first {
            // Bytes that arrived before an error or EOF are delivered before the error is.
            let ended = inputClosed || failure != nil
            let result: ByteBuffer?
            do {
                if isDatagram {
                    result = datagrams.popFirst()
                    datagramBytes -= result?.readableBytes ?? 0
                    deliveredKind = result == nil ? nil : datagramKinds.popFirst()
                } else {
                    result = try decodeNext(&read.decoder, atEOF: ended)
                }
            } catch {
                pending.removeFirst()
                read.timeout?.cancel()
                read.promise.fail(error)
                if error.code == .frameTooLarge {
                    // The stream cannot be resynchronised: this connection is over.
                    record(failure: SocketEngineError(error.code, "\(label): \(error.message)"))
                    chunks.removeAll()
                    buffered = 0
                    scannedChunks = 0
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

    /// Runs `decoder` over the received chunks. Chunks are joined only once the decoder's need
    /// is met — all the bytes a counted frame needs, or a chunk holding a delimiter byte — and
    /// then in one exactly sized copy, so waiting for a frame never holds more than its bytes.
    func decodeNext(_ decoder: inout FrameDecoder, atEOF: Bool) throws(SocketEngineError) -> ByteBuffer? {
        while true {
            guard var first = chunks.first else {
                var empty = ByteBuffer()
                return try decoder.decode(&empty, atEOF: atEOF)
            }
            let isLast = chunks.count == 1
            let before = first.readableBytes
            let frame: ByteBuffer?
            do {
                frame = try decoder.decode(&first, atEOF: atEOF && isLast)
            } catch {
                chunks[chunks.startIndex] = first
                throw error
            }
            buffered -= before - first.readableBytes
            if first.readableBytes == 0 {
                chunks.removeFirst()
            } else {
                chunks[chunks.startIndex] = first
            }
            if let frame {
                scannedChunks = 0
                return frame
            }
            if isLast || first.readableBytes == 0 { return nil }

            // More chunks are queued behind a first chunk that is not enough on its own.
            let joinThrough: Int
            switch atEOF ? .more : decoder.need(after: first) {
            case .more:
                joinThrough = atEOF ? chunks.count - 1 : 1
            case .bytes(let needed):
                guard buffered >= needed else { return nil }
                join(through: chunks.count - 1, upTo: needed)
                continue
            case .delimiterByte(let byte):
                // Search only chunks not searched before (each chunk once per frame).
                let firstUnsearched = min(chunks.count, 1 + scannedChunks)
                guard let holder = (firstUnsearched..<chunks.count).first(where: {
                    chunks[chunks.index(chunks.startIndex, offsetBy: $0)].withUnsafeReadableBytes { raw in
                        raw.baseAddress.map { memchr($0, Int32(byte), raw.count) != nil } ?? false
                    }
                }) else {
                    scannedChunks = chunks.count - 1
                    if let overflow = decoder.delimiterOverflow, buffered > overflow {
                        throw decoder.tooLong(buffered)
                    }
                    return nil
                }
                joinThrough = holder
            }
            join(through: joinThrough, upTo: nil)
        }
    }

    /// Joins chunks 1…`last` onto the first, reserving the final size once; with `limit`,
    /// takes only as many bytes as make the first chunk `limit` long.
    func join(through last: Int, upTo limit: Int?) {
        guard last >= 1, var first = chunks.first else { return }
        scannedChunks = 0
        var total = first.readableBytes
        for offset in 1...last {
            total += chunks[chunks.index(chunks.startIndex, offsetBy: offset)].readableBytes
        }
        let target = limit.map { min($0, total) } ?? total
        var joined = ByteBufferAllocator().buffer(capacity: target)
        joined.writeImmutableBuffer(first)
        chunks.removeFirst()
        while joined.readableBytes < target, var next = chunks.first {
            let take = min(next.readableBytes, target - joined.readableBytes)
            if take == next.readableBytes {
                joined.writeImmutableBuffer(next)
                chunks.removeFirst()
            } else if let piece = next.readSlice(length: take) {
                joined.writeImmutableBuffer(piece)
                chunks[chunks.startIndex] = next
            }
        }
        first = joined
        chunks.prepend(first)
    }

    func failWritableWaiters() {
        let waiters = writableWaiters
        writableWaiters.removeAll()
        let error = failure ?? SocketEngineError(.connectionClosed, "\(label): connection closed")
        waiters.forEach { $0.fail(error) }
    }
}
