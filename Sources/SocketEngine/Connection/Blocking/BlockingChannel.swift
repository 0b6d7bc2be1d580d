import NIOCore
import NIOEmbedded

/// NIO channel handlers over a ``BlockingSocket``, driven by the thread that owns the socket:
/// the one place the engine runs an `EmbeddedChannel` outside tests.
///
/// Why an embedded channel: the TLS layer (NIOSSL) exists only as a channel handler, and so
/// does NIO's WebSocket upgrade with its `Sec-WebSocket-Accept` check; a thread that makes its
/// own system calls has no event loop to run them on, and an `EmbeddedChannel` runs its
/// handlers inline, on the calling thread. Bytes read from the socket go in with
/// `writeInbound`; what the handlers write comes out of `readOutbound` and goes to the socket.
/// Nothing runs on another thread, and no time passes on the embedded loop: the deadlines are
/// the caller's, on the socket.
///
/// The rule that keeps it moving: `EmbeddedEventLoop.run()` after every write into the
/// channel (``takeOutbound()`` does it), or what a handler queued with `execute` — TLS records,
/// NIO's HTTP decoder leaving the pipeline after a 101 — stays queued.
///
/// As a ``BlockingStream``: what reaches the end of the pipeline (plaintext, under TLS) is what
/// ``receive(into:spinUntil:waitUntil:alsoWritable:)`` returns, and what is sent goes through
/// the handlers. Not thread-safe: one thread owns it, the one that made it.
package final class BlockingChannel: BlockingStream {
    package let socket: BlockingSocket
    /// The handlers' channel: add them, then ``activate()``.
    package let channel: EmbeddedChannel
    private let peer: SocketAddress
    /// What the handlers wrote that the socket has not taken yet.
    private var pending = ByteBuffer()
    /// What the socket gave, before it goes into the channel.
    private var received = ByteBuffer()
    /// What came out of the end of the pipeline and has not been handed on.
    private var inbound = ByteBuffer()
    private var closed = false

    /// Where writes enter the pipeline.
    private let outlet = Outlet()

    /// A channel over `socket`, connected to `peer` (the handlers' messages name it, as on a
    /// socket channel).
    package init(socket: BlockingSocket, peer: SocketAddress) throws {
        self.socket = socket
        self.peer = peer
        channel = EmbeddedChannel()
        channel.remoteAddress = peer
        try channel.pipeline.syncOperations.addHandler(outlet)
    }

    /// Makes the channel active: the handlers begin (a TLS client sends its hello).
    package func activate() {
        channel.connect(to: peer, promise: nil)
        channel.embeddedEventLoop.run()
    }

    /// Carries bytes both ways until `future` (completed by the handlers) completes, and returns
    /// its value. `timedOut` is thrown at `deadline` (monotonic ns), `closed` when the peer
    /// closes first; a failure the handlers report wins over the error that surfaced it.
    package func drive<Value>(
        _ future: EventLoopFuture<Value>, until deadline: Int64, timedOut: () -> any Error, closed: () -> any Error
    ) throws -> Value {
        let outcome = Outcome<Value>()
        future.assumeIsolated().whenComplete { outcome.result = $0 }
        do {
            try flush(until: deadline, timedOut: timedOut)
            while outcome.result == nil {
                switch try socket.receive(into: &received, spinUntil: 0, waitUntil: deadline, alsoWritable: false) {
                case .bytes:
                    try feed()
                    try flush(until: deadline, timedOut: timedOut)
                case .end:
                    // As a socket channel with half-closure on hears of a FIN.
                    channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
                    try? takeOutbound()
                    if outcome.result == nil { throw closed() }
                case .nothing:
                    throw timedOut()
                }
            }
        } catch {
            if case .failure(let reason) = outcome.result { throw reason }
            throw error
        }
        switch outcome.result {
        case .success(let value): return value
        case .failure(let reason): throw reason
        case nil: throw closed()
        }
    }

    /// Passes bytes the socket gave before the channel was made (what came behind a proxy's
    /// answer) into the handlers, as a read would.
    package func receiveFirst(_ bytes: ByteBuffer) throws {
        var bytes = bytes
        received.writeBuffer(&bytes)
        try feed()
    }

    /// Takes what has reached the end of the pipeline so far (bytes that came with a handshake).
    package func takeInbound() -> ByteBuffer {
        defer { inbound = ByteBuffer() }
        return inbound
    }

    /// Removes `handler` once what the handlers have queued has run (NIO's decoders leave the
    /// pipeline a turn after they are asked to), and runs what its removal queues.
    package func remove(_ handler: any RemovableChannelHandler) {
        channel.embeddedEventLoop.run()
        channel.pipeline.syncOperations.removeHandler(handler, promise: nil)
        channel.embeddedEventLoop.run()
    }

    /// Closes the channel and hands back the socket, open, for the caller to use without the
    /// handlers (a `ws://` connection once upgraded). Call it with nothing left to pass on.
    package func release() -> BlockingSocket {
        closeChannel()
        return socket
    }

    // MARK: BlockingStream

    package func sendAvailable(_ buffer: inout ByteBuffer) throws -> Int {
        let count = buffer.readableBytes
        guard count > 0 else { return 0 }
        guard let context = outlet.context else { throw ChannelError.ioOnClosedChannel }
        context.writeAndFlush(NIOAny(buffer), promise: nil)
        buffer.moveReaderIndex(forwardBy: count)
        try takeOutbound()
        try socket.sendAvailable(&pending)
        return count
    }

    package func receive(into buffer: inout ByteBuffer, spinUntil: Int64, waitUntil: Int64, alsoWritable: Bool) throws -> BlockingSocket.Received {
        while true {
            if inbound.readableBytes > 0 {
                let count = inbound.readableBytes
                buffer.writeBuffer(&inbound)
                inbound.clear()
                return .bytes(count)
            }
            if pending.readableBytes > 0 { try socket.sendAvailable(&pending) }
            switch try socket.receive(into: &received, spinUntil: spinUntil, waitUntil: waitUntil, alsoWritable: alsoWritable || pending.readableBytes > 0) {
            case .bytes:
                try feed()
                if inbound.readableBytes > 0 { continue }
                if !channel.isActive { return .end }  // TLS: the server's close_notify
                if BlockingSocket.now() >= waitUntil { return .nothing }
            case .end:
                return .end
            case .nothing:
                return .nothing
            }
        }
    }

    package func waitWritable(until deadline: Int64) throws -> Bool {
        try socket.waitWritable(until: deadline)
    }

    package var descriptor: Int32 { socket.descriptor }

    package func receiveAvailable(into buffer: inout ByteBuffer) throws -> BlockingSocket.Received {
        if inbound.readableBytes == 0 {
            if pending.readableBytes > 0 { try socket.sendAvailable(&pending) }
            switch try socket.receiveAvailable(into: &received) {
            case .bytes: try feed()
            case .end: return .end
            case .nothing: return .nothing
            }
        }
        guard inbound.readableBytes > 0 else { return channel.isActive ? .nothing : .end }  // TLS: the server's close_notify
        let count = inbound.readableBytes
        buffer.writeBuffer(&inbound)
        inbound.clear()
        return .bytes(count)
    }

    package var hasPendingOutput: Bool { pending.readableBytes > 0 }

    package func flushPending() throws {
        try socket.sendAvailable(&pending)
        if pending.readableBytes == 0 { pending.clear() }
    }

    /// Closes the socket and the channel. (A TLS layer is dropped as it is: closing it in order
    /// would wait for the server's close_notify, which nothing here would read.)
    package func close() {
        socket.close()
        closeChannel()
    }

    // MARK: Pumping

    /// Hands what the socket gave to the handlers; keeps what comes out of the pipeline's end
    /// in ``inbound`` and what they answer (handshake messages, alerts) in ``pending``.
    private func feed() throws {
        let bytes = received
        received.clear()
        try channel.writeInbound(bytes)
        while var chunk = try channel.readInbound(as: ByteBuffer.self) { inbound.writeBuffer(&chunk) }
        try takeOutbound()
    }

    /// Runs what the handlers queued and moves what they wrote to ``pending``.
    private func takeOutbound() throws {
        channel.embeddedEventLoop.run()
        while var chunk = try channel.readOutbound(as: ByteBuffer.self) { pending.writeBuffer(&chunk) }
    }

    /// Sends every pending byte, waiting for the socket until `deadline`.
    private func flush(until deadline: Int64, timedOut: () -> any Error) throws {
        try takeOutbound()
        while pending.readableBytes > 0 {
            try socket.sendAvailable(&pending)
            if pending.readableBytes > 0, try !socket.waitWritable(until: deadline) { throw timedOut() }
        }
        pending.clear()
    }

    /// Closes the channel for good: NIOSSL, closing, waits for the peer's close_notify on a
    /// timer, which no passing time would ever fire here, so the embedded clock is moved past
    /// it; whatever else is scheduled is cancelled.
    private func closeChannel() {
        guard !closed else { return }
        closed = true
        let loop = channel.embeddedEventLoop
        channel.close(promise: nil)
        loop.run()
        loop.advanceTime(by: .hours(1))
        try? loop.syncShutdownGracefully()
    }

    /// Where ``sendAvailable(_:)`` writes: the first handler the channel gets, so that transport
    /// layers (a TLS layer puts its handlers first) lie below it and what a handshake adds above
    /// it — NIO's WebSocket frame encoder, left in place after an upgrade, takes only frames.
    private final class Outlet: ChannelOutboundHandler, RemovableChannelHandler {
        typealias OutboundIn = ByteBuffer
        private(set) var context: ChannelHandlerContext?

        func handlerAdded(context: ChannelHandlerContext) { self.context = context }
        func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }
    }

    /// Where a handshake's future leaves its result, on this thread.
    private final class Outcome<Value> {
        var result: Result<Value, any Error>?
    }
}
