import NIOCore

extension ConnectionHandler {
    /// The relay's fast path (``Connection/forward(to:)``): every chunk this side reads goes
    /// straight into a partner channel on the same event loop, with no task between the two
    /// sockets, flushed once per read turn.
    struct Forwarding {
        let partner: any Channel
        let promise: EventLoopPromise<Void>
        /// Written to the partner since its last flush.
        private var unflushed = false

        init(partner: any Channel, promise: EventLoopPromise<Void>) {
            self.partner = partner
            self.promise = promise
        }

        /// This side's reads wait while the partner cannot take more.
        var holdsReads: Bool { !partner.isWritable }

        /// Writes what was buffered before forwarding began, and flushes it.
        func start(with buffered: inout CircularBuffer<ByteBuffer>) {
            while let chunk = buffered.popFirst() { partner.write(chunk, promise: nil) }
            partner.flush()
        }

        /// Writes one received chunk to the partner (flushed at the end of the read turn).
        mutating func forward(_ chunk: ByteBuffer) {
            partner.write(chunk, promise: nil)
            unflushed = true
        }

        /// The read turn ended: true when what it forwarded needs a flush (the caller flushes,
        /// with this payload back in place).
        mutating func readTurnEnded() -> Bool {
            defer { unflushed = false }
            return unflushed
        }

        /// Forwarding is over once this side has failed or ended its input.
        func isOver(failure: SocketEngineError?, inputClosed: Bool) -> Bool {
            failure != nil || inputClosed
        }

        /// Completes the promise: with this side's `failure`, or once everything forwarded is
        /// written — an empty write completes after the ones before it, and only then may the
        /// caller shut the partner's output (NIO fails writes still queued when it is shut).
        func complete(failure: SocketEngineError?) {
            if let failure {
                partner.flush()
                promise.fail(failure)
                return
            }
            let promise = self.promise
            partner.writeAndFlush(ByteBuffer()).whenComplete { _ in promise.succeed(()) }
        }
    }
}
