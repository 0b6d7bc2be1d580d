import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Servers that answer each message on its own (echo, canned replies): every frame is cut,
/// answered and written here on the event loop, without a task per message.
extension ConnectionHandler {
    /// From now on answer every frame `decoder` cuts with `answer(frame)` (nil: no answer),
    /// written `delay` after the frame arrived, in order. Completes when the peer has finished
    /// and every answer is written; fails on a frame over the limit (the connection is closed)
    /// or a connection error. Reads are held while the socket cannot take more answers.
    func answerAll(decoder: FrameDecoder, delay: TimeAmount?, promise: EventLoopPromise<Void>, answer: @escaping @Sendable (ByteBuffer) throws(SocketEngineError) -> ByteBuffer?) {
        guard answering == nil, discarding == nil, pending.isEmpty, !isDatagram else {
            promise.fail(SocketEngineError(.invalidConfiguration, "\(label): answering while other reads are pending"))
            return
        }
        scannedChunks = 0
        answering = Answering(decoder: decoder, delay: delay, promise: promise, answer: answer)
        serve()
    }

    /// Answers bypass this handler's own `write` (they start below it): tap them here.
    func writeAnswer(_ reply: ByteBuffer, _ context: ChannelHandlerContext) {
        if let tap { tap(TrafficRecord(direction: .sent, bytes: reply, connection: label)) }
        record(.sent(reply))
        context.write(wrapOutboundOut(.byteBuffer(reply)), promise: nil)
    }

    /// Flushes the answers written since the last flush and counts their `bytes` once the
    /// last of them has reached the kernel (writes complete in order).
    func flushAnswers(_ context: ChannelHandlerContext, bytes: Int) {
        let statistics = self.statistics
        let promise = context.eventLoop.makePromise(of: Void.self)
        statistics.willSend()
        promise.futureResult.whenSuccess { statistics.didSend(bytes) }
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer())), promise: promise)
    }

    /// Stops answering (the task waiting for it was cancelled).
    func cancelAnswering() {
        guard let state = answering else { return }
        answering = nil
        state.promise.fail(CancellationError())
    }

    func serveAnswers() {
        guard var state = answering, let context else {
            if let state = answering {
                answering = nil
                state.promise.fail(failure ?? SocketEngineError(.connectionClosed, "\(label): connection closed"))
            }
            return
        }
        var wrote = 0
        var exhausted = false
        while context.channel.isWritable && state.scheduled < Self.maximumScheduledAnswers {
            let ended = inputClosed || failure != nil
            let reply: ByteBuffer?
            do {
                guard let frame = try decodeNext(&state.decoder, atEOF: ended) else {
                    exhausted = true
                    break
                }
                reply = try state.answer(frame)
            } catch {
                answering = nil
                if wrote > 0 { flushAnswers(context, bytes: wrote) }
                record(failure: SocketEngineError(error.code, "\(label): \(error.message)"))
                chunks.removeAll()
                buffered = 0
                scannedChunks = 0
                state.promise.fail(failure ?? error)
                context.close(promise: nil)
                return
            }
            guard let reply else { continue }
            if let delay = state.delay {
                state.scheduled += 1
                context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
                    writeAnswer(reply, context)
                    flushAnswers(context, bytes: reply.readableBytes)
                    answering?.scheduled -= 1
                    serve()
                }
            } else {
                writeAnswer(reply, context)
                wrote += reply.readableBytes
            }
        }
        if wrote > 0 { flushAnswers(context, bytes: wrote) }
        if exhausted && (inputClosed || failure != nil) && state.scheduled == 0 {
            answering = nil
            if let failure {
                state.promise.fail(failure)
            } else {
                state.promise.succeed(())
            }
            return
        }
        answering = state
    }
}
