import NIOCore

extension ConnectionHandler {
    /// The relay's fast path: this side's bytes go straight into a partner channel on the same
    /// event loop, with no task between the two sockets (see ``Connection/forward(to:)``).
    struct Forwarding {
        let partner: any Channel
        let promise: EventLoopPromise<Void>
        /// Written to the partner since its last flush.
        var unflushed = false
    }

    /// From now on write everything that arrives — what is buffered first — to `partner`, flushed
    /// once per read burst; hold this socket's reads while `partner` cannot take more. Completes
    /// `promise` at the end of this side's input, or fails it with this side's error.
    func forwardAll(to partner: any Channel, partnerHandler: ConnectionHandler, promise: EventLoopPromise<Void>) {
        guard forwarding == nil, discarding == nil, answering == nil, pending.isEmpty, !isDatagram else {
            promise.fail(SocketEngineError(.invalidConfiguration, "\(label): forward while reads are pending"))
            return
        }
        forwarding = Forwarding(partner: partner, promise: promise)
        scannedChunks = 0
        buffered = 0
        while let chunk = chunks.popFirst() { partner.write(chunk, promise: nil) }
        partner.flush()
        partnerHandler.whenWritableAgain = { [weak self] in self?.resumeForwarding() }
        finishForwardingIfDone()
        resumeForwarding()
    }

    func forward(_ chunk: ByteBuffer) {
        guard let partner = forwarding?.partner else { return }
        partner.write(chunk, promise: nil)
        forwarding?.unflushed = true
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        burst.readTurnEnded()
        if let forwarding, forwarding.unflushed {
            self.forwarding?.unflushed = false
            forwarding.partner.flush()
        }
        context.fireChannelReadComplete()
    }

    /// Reads again once the partner can take more.
    func resumeForwarding() {
        guard forwarding != nil, heldRead, let context, !shouldHoldReads else { return }
        heldRead = false
        context.read()
    }

    func finishForwardingIfDone() {
        guard let forwarding else { return }
        if let failure {
            self.forwarding = nil
            forwarding.partner.flush()
            forwarding.promise.fail(failure)
        } else if inputClosed {
            self.forwarding = nil
            // Done once everything forwarded is written: an empty write completes after the
            // ones before it, and only then may the caller shut the partner's output (NIO fails
            // writes still queued when the output is shut).
            let promise = forwarding.promise
            forwarding.partner.writeAndFlush(ByteBuffer()).whenComplete { _ in promise.succeed(()) }
        }
    }
}
