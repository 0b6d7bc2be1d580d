import NIOCore
import SocketEngine

/// One load-test connection on an event loop: sends the slot's messages (paced by the
/// schedule, or one per reply), matches replies to messages in order (``LoadSlot``), and
/// records each latency in its loop's ``LoadShard``. Everything happens on the channel's event
/// loop, in NIO callbacks: no task, lock or atomic per message.
final class LoadConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    var slot: Int { state.slot }
    /// The shard outlives its handlers (it closes them before it goes away).
    private unowned(unsafe) let shard: LoadShard
    private let run: RunContext
    private let datagram: Bool
    /// A message transport (WebSocket): each write is one message, each read one reply.
    private let messages: Bool
    // The per-message state below is touched only on this handler's event loop, so the
    // runtime's exclusivity check (a thread-local access-set lookup per access) finds nothing;
    // `@exclusivity(unchecked)` leaves it out for these properties alone (measured: send-only
    // c=1, 90-95 ns of client CPU per message with the checks, 80 without, as with the whole-
    // module unsafe flag this replaces).
    /// Messages written since the last flush.
    @exclusivity(unchecked) private var unflushed = false
    @exclusivity(unchecked) private var state: LoadSlot
    private let expectsReplies: Bool
    private let openLoop: Bool
    private let schedule: RateSchedule?
    private let pipeline: Int
    /// Read at each decision: ``LoadRunner/stop()`` brings it forward.
    private var stopNanos: Int64 { run.stopNanos }

    @exclusivity(unchecked) private var channelContext: ChannelHandlerContext?
    @exclusivity(unchecked) private var decoder: FrameDecoder?
    /// HTTP targets: responses are cut by the scanner straight from each read (bodies dropped
    /// as they come; only an unfinished head is kept in ``received``) instead of by ``decoder``.
    @exclusivity(unchecked) private var http: HTTPResponseCutter?
    /// HTTP: the server closed the connection after a response; it is opened again at once.
    private var closedByServer = false
    /// HTTP with a constant request: a flush of one request writes the prebuilt buffer itself.
    private let zeroCopy: Bool
    @exclusivity(unchecked) private var received = ByteBuffer()
    @exclusivity(unchecked) private var sending = false
    @exclusivity(unchecked) private var batch: ByteBuffer?
    private var timer: Scheduled<Void>?
    private var endedByUs = false
    private var failure: (any Error)?
    /// Send-only closed loop: a refill is queued on the loop.
    @exclusivity(unchecked) private var refillQueued = false
    /// Send-only stream: runs of messages written and not yet taken by the socket.
    @exclusivity(unchecked) private var unsentRuns = 0

    /// Over TLS, a connection counts as established (and starts sending) once its handshake is
    /// done, not when TCP connects; a failed handshake is a failed connect.
    private let awaitsHandshake: Bool
    private var handshakeDone = false
    private var activeContext: ChannelHandlerContext?

    init(slot: Int, shard: LoadShard, datagram: Bool, messages: Bool = false, awaitsHandshake: Bool = false) {
        self.awaitsHandshake = awaitsHandshake
        self.messages = messages
        self.shard = shard
        run = shard.context
        self.datagram = datagram
        state = LoadSlot(slot: slot, run: run, rules: shard.rules)
        expectsReplies = run.plan.framing != nil
        schedule = run.schedule
        openLoop = schedule != nil
        pipeline = run.pipeline
        zeroCopy = run.plan.isHTTP && run.template(slot: slot).isConstant
        if run.plan.isHTTP && !datagram && !messages {
            http = HTTPResponseCutter(sendsHEAD: run.sendsHEAD)
        } else if let framing = run.plan.framing, !datagram, !messages {
            decoder = FrameDecoder(framing: framing, maximumFrameSize: run.plan.maximumFrameSize)
        }
    }

    /// Unanswered messages; send-only, the runs of messages written and not yet taken by the
    /// socket (the run waits for them before it closes, so nothing counted as sent is dropped).
    var outstandingCount: Int { state.openCount + unsentRuns }

    /// Bytes read and kept for the next read: an unfinished frame, or an unfinished HTTP head
    /// (never a body's bytes).
    var bufferedBytes: Int { received.readableBytes }

    /// Open loop: a message due before the end of sending is still waiting to go (its timer
    /// has not fired yet, or the pipeline is full).
    var hasDueMessages: Bool {
        guard sending, let schedule, !stopped else { return false }
        guard let offset = schedule.time(ofMessage: state.nextNumber) else { return false }
        return offset < stopNanos
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        // A datagram channel is added once connected, when it is already active.
        if context.channel.isActive { activate(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        activate(context)
        context.fireChannelActive()
    }

    /// The TLS handshake succeeded (called on the loop by the connector).
    func handshakeCompleted() {
        handshakeDone = true
        if let context = activeContext { activate(context) }
    }

    private func activate(_ context: ChannelHandlerContext) {
        activeContext = context
        if awaitsHandshake && !handshakeDone { return }
        guard channelContext == nil, !endedByUs else { return }
        channelContext = context
        // A reopened connection goes on with its slot's messages (its share of --requests).
        if let saved = shard.slotStates.removeValue(forKey: state.slot) { state = saved }
        shard.opened(slot: slot, handler: self)
        // After a server's close (HTTP) the slot goes on where it was, skipping nothing.
        let reopened = state.takeServerClose()
        if run.hasBegun { begin(replacing: !reopened) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        sending = false
        if awaitsHandshake && channelContext == nil {
            // Never established: the TLS handshake failed (or the peer closed during it).
            if !endedByUs && !run.isFinished {
                shard.connectFailed(slot: slot, error: failure ?? SocketEngineError(.tlsFailed, "TLS handshake not completed"))
            }
            context.fireChannelInactive()
            return
        }
        if http != nil && !closedByServer && !endedByUs && failure == nil && channelContext != nil && !run.isFinished {
            serverEnded()
        }
        if closedByServer && !endedByUs && !run.isFinished {
            shard.slotStates[state.slot] = state
            shard.closedByServer(slot: slot)
            channelContext = nil
            context.fireChannelInactive()
            return
        }
        state.dropPending(timeout: nil, stats: &shard.stats)
        if channelContext != nil { shard.slotStates[state.slot] = state }
        if !endedByUs && !run.isFinished {
            let kind = failure.map(ErrorKind.of) ?? .closedByPeer
            shard.record(error: kind, failure ?? ChannelError.eof)
            shard.closed(slot: slot, lost: true)
        } else {
            shard.closed(slot: slot, lost: false)
        }
        channelContext = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if failure == nil { failure = error }
        context.close(promise: nil)
    }

    /// Start sending: at the end of the ramp-up (`replacing` false: from the slot's first
    /// message), or as a connection that replaces a lost one (`replacing` true).
    func begin(replacing: Bool = false) {
        guard !sending, channelContext != nil else { return }
        sending = true
        if openLoop {
            // A replacement connection does not send what fell due while the slot was down:
            // those messages are counted as unsent. (At the start nothing is skipped, however
            // long the loop takes to start all its connections: those messages are just late.)
            if replacing { skipToNow() }
            sendDue()
        } else {
            fill()
        }
    }

    /// Closes at the end of the run; unanswered messages are lost.
    func closeAtEnd() -> EventLoopFuture<Void> {
        endedByUs = true
        sending = false
        timer?.cancel()
        guard let context = channelContext else { return shard.loop.makeSucceededVoidFuture() }
        let promise = context.eventLoop.makePromise(of: Void.self)
        context.close(promise: promise)
        return promise.futureResult.recover { _ in }
    }

    // MARK: Sending

    private var stopped: Bool { state.isExhausted(run) }

    /// Closed loop: keep the pipeline full (send-only: write while the socket takes it).
    private func fill() {
        guard sending, let context = channelContext else { return }
        let now = shard.now
        if now - run.start >= stopNanos { sending = false; return }
        if expectsReplies {
            while state.pending.count < pipeline && !stopped {
                send(dueAt: now, now: now)
            }
            flush()
            return
        }
        // Send-only: write up to 256 KiB per turn of the loop, then yield to the loop.
        var written = 0
        if datagram || messages {
            while context.channel.isWritable && written < 256 * 1024 && !stopped {
                written += send(dueAt: now, now: now)
            }
        } else {
            // A stream takes runs of messages prepared at once (written as they are: no copy).
            while context.channel.isWritable && written < 256 * 1024, let chunk = state.nextRun(now: now, start: run.start, stats: &shard.stats) {
                written += chunk.readableBytes
                let taken = context.eventLoop.makePromise(of: Void.self)
                unsentRuns += 1
                taken.futureResult.assumeIsolated().whenComplete { [self] _ in unsentRuns -= 1 }
                context.write(wrapOutboundOut(chunk), promise: taken)
                unflushed = true
            }
        }
        flush()
        if !stopped && context.channel.isWritable && !refillQueued {
            refillQueued = true
            context.eventLoop.assumeIsolated().execute { [self] in
                refillQueued = false
                fill()
            }
        }
    }

    /// Open loop: send every message that is due (the pipeline permitting), then wait for the
    /// next one's time.
    private func sendDue() {
        guard sending, let schedule, let context = channelContext else { return }
        timer?.cancel()
        timer = nil
        let now = shard.now
        // What the server's close left unanswered goes first (HTTP).
        while state.hasRequeued && state.pending.count < pipeline { send(dueAt: now, now: now) }
        while !stopped {
            guard let offset = schedule.time(ofMessage: state.nextNumber), offset < stopNanos else {
                sending = false
                break
            }
            let due = run.start + offset
            if due > now {
                timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: NIODeadline.uptimeNanoseconds(UInt64(clamping: due))) { [self] in
                    timer = nil
                    sendDue()
                }
                break
            }
            if expectsReplies && state.pending.count >= pipeline { break }  // a reply will call us
            if !expectsReplies && !context.channel.isWritable { break }  // writability will
            send(dueAt: due, now: now)
        }
        flush()
    }

    /// Moves `nextIndex` to the first message not yet due; the skipped ones are unsent.
    private func skipToNow() {
        guard let schedule, run.hasBegun else { return }
        let elapsed = shard.now - run.start
        while let offset = schedule.time(ofMessage: state.nextNumber), offset < elapsed - 1_000_000, !stopped {
            state.skip()
        }
    }

    /// Queues one message (written at the next ``flush()``); returns its size.
    @discardableResult
    private func send(dueAt due: Int64, now: Int64) -> Int {
        // Taken out of `batch` first, so appending does not copy a shared buffer.
        var buffer: ByteBuffer
        if let existing = batch {
            buffer = existing
            batch = nil
        } else if zeroCopy {
            buffer = ByteBuffer()  // no storage: a constant HTTP request is written as it was built
        } else {
            buffer = channelContext?.channel.allocator.buffer(capacity: 512) ?? ByteBuffer()
        }
        let size = state.append(dueAt: due, now: now, start: run.start, to: &buffer, stats: &shard.stats)
        batch = buffer
        http?.sent(pending: state.pending.count)
        if datagram {
            flush()  // one datagram per message
        } else if messages {
            write()  // one WebSocket message per message, flushed together
        }
        return size
    }

    private func write() {
        guard let context = channelContext, let buffer = batch, buffer.readableBytes > 0 else { return }
        batch = nil
        context.write(wrapOutboundOut(buffer), promise: nil)
        unflushed = true
    }

    private func flush() {
        write()
        guard unflushed, let context = channelContext else { return }
        unflushed = false
        context.flush()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable && !expectsReplies {
            if openLoop { sendDue() } else { fill() }
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Receiving

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard expectsReplies else {
            shard.stats.counters.bytesReceived += buffer.readableBytes
            return
        }
        let now = shard.now
        if datagram || messages {
            state.reply(buffer, bytes: buffer.readableBytes, now: now, stats: &shard.stats)
        } else if var decoder {
            do {
                if received.readableBytes == 0 {
                    // Nothing left over: frames are cut straight from this read, and only a
                    // trailing partial frame is kept.
                    try decodeFrames(from: &buffer, decoder: &decoder, now: now)
                    if buffer.readableBytes > 0 { received.writeBuffer(&buffer) }
                } else {
                    received.writeBuffer(&buffer)
                    try decodeFrames(from: &received, decoder: &decoder, now: now)
                    received.discardReadBytes()
                }
                self.decoder = decoder
            } catch {
                self.decoder = decoder
                failure = failure ?? error
                context.close(promise: nil)
                return
            }
        } else if http != nil {
            do {
                if try readHTTP(&buffer, now: now, atEOF: false) {
                    closeForServer(context)
                    return
                }
            } catch {
                failure = failure ?? error
                context.close(promise: nil)
                return
            }
        }
        if sending {
            if openLoop { sendDue() } else { fill() }
        }
    }

    private func decodeFrames(from buffer: inout ByteBuffer, decoder: inout FrameDecoder, now: Int64) throws {
        var consumedFrom = buffer.readerIndex
        while let frame = try decoder.decode(&buffer) {
            // Wire bytes: the frame with its delimiter or length prefix.
            state.reply(frame, bytes: buffer.readerIndex - consumedFrom, now: now, stats: &shard.stats)
            consumedFrom = buffer.readerIndex
        }
    }

    /// Cuts the HTTP responses in `buffer` (and what an earlier read left of a head); true when
    /// the server closes after one. Only an unfinished head is kept in ``received``.
    private func readHTTP(_ buffer: inout ByteBuffer, now: Int64, atEOF: Bool) throws(SocketEngineError) -> Bool {
        guard var cutter = http else { return false }
        defer { http = cutter }
        if received.readableBytes == 0 {
            let closing = try cutter.cut(&buffer, atEOF: atEOF, state: &state, now: now, stats: &shard.stats)
            if !closing && buffer.readableBytes > 0 { received.writeBuffer(&buffer) }
            return closing
        }
        received.writeBuffer(&buffer)
        let closing = try cutter.cut(&received, atEOF: atEOF, state: &state, now: now, stats: &shard.stats)
        if received.readableBytes == 0 { received.clear() } else { received.discardReadBytes() }
        return closing
    }

    /// The server's close after a response (HTTP): counted, what was pipelined behind it goes
    /// again on the next connection, which opens at once (``channelInactive(context:)``).
    private func closeForServer(_ context: ChannelHandlerContext) {
        shard.stats.counters.countServerClose()
        state.serverClosed()
        closedByServer = true
        sending = false
        timer?.cancel()
        timer = nil
        received.clear()
        context.close(promise: nil)
    }

    /// The server closed an HTTP connection unasked: a body that runs until close ends here
    /// (a response, then a server's close), an idle connection is a server's close too; a
    /// response cut in the middle is an `http` error and the requests waiting are lost.
    private func serverEnded() {
        var none = ByteBuffer()
        do {
            if try readHTTP(&none, now: shard.now, atEOF: true) || state.pending.isEmpty {
                shard.stats.counters.countServerClose()
                state.serverClosed()
                closedByServer = true
            }
        } catch {
            failure = error
        }
    }

    // MARK: Timeouts and endings

    /// Called every sweep: a message older than the reply timeout times out. Over a stream the
    /// connection is then closed (later replies could no longer be matched) and reopened.
    func checkTimeouts(now: Int64) {
        let limit = run.plan.replyTimeout.nanosecondsClamped
        guard state.hasTimedOut(now: now, limit: limit) else { return }
        let error = run.replyTimeoutError
        if datagram {
            state.dropTimedOut(now: now, limit: limit, stats: &shard.stats)
            shard.record(error: .timeout, error)
            return
        }
        failure = error
        state.dropPending(timeout: (now, limit), stats: &shard.stats)
        channelContext?.close(promise: nil)
    }
}
