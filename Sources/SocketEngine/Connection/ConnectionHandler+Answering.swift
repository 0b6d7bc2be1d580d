import NIOCore

import Glibc

/// Servers that answer each message on its own (echo, canned replies): every frame is cut,
/// answered and written here on the event loop, without a task per message.
extension ConnectionHandler {
    /// The state of ``answerAll(decoder:delay:promise:answer:)``.
    struct Answering {
        /// At most this many delayed answers wait at once; beyond it the socket is not read.
        static let maximumScheduled = 4096

        /// The received bytes, cut into frames by `decoder`.
        var input: ReceivedChunks
        var decoder: FrameDecoder
        let delay: TimeAmount?
        let promise: EventLoopPromise<Void>
        let answer: @Sendable (ByteBuffer) throws(SocketEngineError) -> Answer
        /// Delayed answers not yet written.
        private(set) var scheduled = 0
        /// An answer asked for the connection to end after it: no more frames are cut, and the
        /// connection is closed once that answer is written.
        var closing = false
        /// The close `closing` asks for has been set to follow the writes before it.
        var closeIssued = false

        /// Gives the last answer to a stream that cannot be cut or answered (an HTTP 400 or
        /// 413); nil, or nil bytes: the connection is closed with nothing more written.
        let lastWords: (@Sendable (SocketEngineError) -> ByteBuffer?)?
        /// The error that ended answering once `lastWords` are written and the connection closed.
        var failureAfterClose: SocketEngineError?
        /// Bytes dropped since the last words (see ``LingeringClose``).
        var lingered = 0
        /// What to write before a frame is whole, once per frame, from its start as far as it has
        /// come (an HTTP `100 Continue` to a head that asks for it); nil: nothing yet.
        let interim: (@Sendable (ByteBuffer) -> ByteBuffer?)?
        /// `interim` has answered the frame in hand.
        var interimAnswered = false

        init(
            input: ReceivedChunks, decoder: FrameDecoder, delay: TimeAmount?, promise: EventLoopPromise<Void>,
            lastWords: (@Sendable (SocketEngineError) -> ByteBuffer?)? = nil,
            interim: (@Sendable (ByteBuffer) -> ByteBuffer?)? = nil,
            answer: @escaping @Sendable (ByteBuffer) throws(SocketEngineError) -> Answer
        ) {
            self.interim = interim
            self.input = input
            self.decoder = decoder
            self.delay = delay
            self.promise = promise
            self.lastWords = lastWords
            self.answer = answer
        }

        /// As many delayed answers wait as may: read nothing more for now.
        var isFull: Bool { scheduled >= Self.maximumScheduled }
        /// Bytes the decoder needs buffered to cut its next frame.
        var bufferNeeded: Int { decoder.bufferNeeded }

        mutating func answerScheduled() { scheduled += 1 }
        mutating func delayedAnswerWritten() { scheduled -= 1 }
    }

    /// Answers bypass this handler's own `write` (they start below it): tap them here.
    func writeAnswer(_ reply: ByteBuffer, _ context: ChannelHandlerContext) {
        noteAnswer(reply)
        context.write(wrapOutboundOut(.byteBuffer(reply)), promise: nil)
    }

    /// An answer seen by the tap and the recorder, each on its own (the bytes may go out joined).
    func noteAnswer(_ reply: ByteBuffer) {
        if let tap { tap(TrafficRecord(direction: .sent, bytes: reply, connection: label)) }
        record(.sent(reply))
    }

    /// Flushes the answers written since the last flush and counts their `bytes` once the
    /// last of them has reached the kernel (writes complete in order); with `thenClose`, the
    /// connection is closed once they have (or once writing them failed); with `linger` too,
    /// only its sending side is, the rest after ``LingeringClose/maximumTime``.
    func flushAnswers(_ context: ChannelHandlerContext, bytes: Int, thenClose: Bool = false, linger: Bool = false) {
        let statistics = self.statistics
        let promise = context.eventLoop.makePromise(of: Void.self)
        statistics.willSend()
        promise.futureResult.whenSuccess { statistics.didSend(bytes) }
        if thenClose {
            let channel = context.channel
            promise.futureResult.whenComplete { written in
                guard linger, case .success = written else {
                    channel.close(promise: nil)
                    return
                }
                // A channel that cannot shut down one side (an embedded one) still lingers.
                channel.close(mode: .output, promise: nil)
                channel.eventLoop.assumeIsolated().scheduleTask(in: LingeringClose.maximumTime) { channel.close(promise: nil) }
            }
        }
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer())), promise: promise)
    }

    /// Answers up to ``joinedReplyLimit`` bytes long are copied into one buffer, written when it
    /// reaches ``joinedWriteSize`` and at the end of the burst: a peer sending empty lines costs
    /// one write per 64 KiB of answers, not one write (a pending-write entry, an allocation and
    /// an iovec) per byte. Longer answers are written as they are, uncopied.
    static let joinedReplyLimit = 2048
    static let joinedWriteSize = 64 * 1024

    /// Cuts and answers frames until the socket can take no more, the burst is spent (the rest
    /// waits for the loop's next poll, see ``ReadBurst``), or no whole frame is left. Returns
    /// how answering ended, for the caller to complete `state`'s promise with; nil while it goes on.
    func serveAnswers(_ state: inout Answering) -> Result<Void, any Error>? {
        guard let context else {
            return .failure(failure ?? SocketEngineError(.connectionClosed, "\(label): connection closed"))
        }
        var wrote = 0
        var joined = ByteBuffer()
        func writeJoined() {
            guard joined.readableBytes > 0 else { return }
            context.write(wrapOutboundOut(.byteBuffer(joined)), promise: nil)
            joined = ByteBuffer()
        }
        var exhausted = false
        while context.channel.isWritable && !state.isFull {
            if state.closing { break }
            if burst.isSpent && state.input.buffered > 0 {
                burst.yield(on: context.eventLoop) { [self] in
                    burst.begin()
                    serve()
                }
                break
            }
            let ended = inputClosed || failure != nil
            let answer: Answer
            do {
                guard let frame = try state.input.decodeNext(&state.decoder, atEOF: ended) else {
                    exhausted = true
                    break
                }
                burst.count()
                state.interimAnswered = false
                answer = try state.answer(frame)
            } catch {
                state.input.removeAll()
                let wrapped = SocketEngineError(error.code, "\(label): \(error.text)")
                if let words = state.lastWords?(error) {
                    // Written after the answers before it, then the connection closes and
                    // answering ends with the error (not before: the words would be cut off).
                    state.failureAfterClose = wrapped
                    answer = Answer(words, closeAfter: true)
                } else {
                    writeJoined()
                    if wrote > 0 { flushAnswers(context, bytes: wrote) }
                    record(failure: wrapped)
                    let outcome = failure ?? error
                    context.close(promise: nil)
                    return .failure(outcome)
                }
            }
            let closeAfter = answer.closeAfter
            let linger = state.failureAfterClose != nil
            if closeAfter { state.closing = true }
            guard let reply = answer.bytes ?? (closeAfter ? ByteBuffer() : nil) else { continue }
            if let delay = state.delay {
                // The delay is the same for every answer, so this one is the last written.
                state.answerScheduled()
                context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
                    writeAnswer(reply, context)
                    flushAnswers(context, bytes: reply.readableBytes, thenClose: closeAfter, linger: linger)
                    delayedAnswerWritten()
                    serve()
                }
            } else if reply.readableBytes <= Self.joinedReplyLimit {
                noteAnswer(reply)
                if joined.readableBytes == 0 {
                    // A lone answer goes out uncopied; the next one starts the copy.
                    joined = reply
                } else {
                    joined.writeImmutableBuffer(reply)
                }
                wrote += reply.readableBytes
                if joined.readableBytes >= Self.joinedWriteSize { writeJoined() }
            } else {
                writeJoined()
                writeAnswer(reply, context)
                wrote += reply.readableBytes
            }
        }
        // An interim answer goes after every answer before it: not while delayed ones wait.
        if exhausted && !state.closing && !state.interimAnswered && state.scheduled == 0,
           let interim = state.interim, let front = state.input.front, let early = interim(front) {
            state.interimAnswered = true
            noteAnswer(early)
            joined.writeImmutableBuffer(early)
            wrote += early.readableBytes
        }
        writeJoined()
        // Undelayed, the answer that closes is the last one written in this burst.
        let closeNow = state.closing && state.delay == nil && !state.closeIssued
        if closeNow { state.closeIssued = true }
        if wrote > 0 || closeNow { flushAnswers(context, bytes: wrote, thenClose: closeNow, linger: state.failureAfterClose != nil) }
        if state.closing {
            // What follows the answer that closes is never answered. After last words it is
            // dropped as it comes, up to a bound (``LingeringClose``).
            if state.failureAfterClose != nil {
                state.lingered += state.input.buffered
                if state.lingered > LingeringClose.maximumBytes { context.close(promise: nil) }
            }
            state.input.removeAll()
            exhausted = true
        }
        if exhausted && (inputClosed || failure != nil) && state.scheduled == 0 {
            return (failure ?? state.failureAfterClose).map { .failure($0) } ?? .success(())
        }
        return nil
    }
}
