import NIOCore

extension Connection {
    /// True when ``forward(to:)`` can join this connection to `other`: two byte streams (TCP,
    /// Unix, TLS) on the same event loop.
    func canForward(to other: Connection) -> Bool {
        !transport.isMessageOriented && !other.transport.isMessageOriented && channel.eventLoop === other.channel.eventLoop
    }

    /// Writes everything this connection receives — what is buffered first — into `other` on the
    /// event loop itself, flushed once per read burst, until this side's input ends (returns) or
    /// fails (throws, e.g. `.connectionReset`). While `other` cannot take more, this socket is
    /// not read: back-pressure without a buffer of our own. Does not end `other`'s output.
    ///
    /// The relay's fast path when nothing needs to see the bytes on the way (no faults, no
    /// framing, no live view): no task switch per chunk, so the added latency is the event
    /// loop's alone. Call only when ``canForward(to:)``.
    func forward(to other: Connection) async throws {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let handler = self.handler
        let partnerHandler = other.handler
        let partner = other.channel
        channel.eventLoop.execute {
            handler.value.forwardAll(to: partner, partnerHandler: partnerHandler.value, promise: promise)
        }
        do {
            try await promise.futureResult.get()
        } catch {
            throw SocketEngineError.wrapping(error, context: label)
        }
    }
}
