import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private struct PendingRead {
        let id: UInt64
        var decoder: FrameDecoder
        let promise: EventLoopPromise<ByteBuffer?>
        var timeout: Scheduled<Void>?
    }

    private let isDatagram: Bool
    private let bufferLimit: Int
    private let datagramLimit: Int
    let statistics: ConnectionStatistics
    /// Sees every byte in both directions (for `--hexdump`), on the event loop.
    var tap: TrafficTap?
    /// Names the connection in error messages (the peer address once connected).
    var label: String

    private var context: ChannelHandlerContext?
    private var buffer = ByteBuffer()
    private var datagrams = CircularBuffer<ByteBuffer>()
    private var pending = CircularBuffer<PendingRead>()
    private var inputClosed = false
    private var failure: SocketEngineError?
    private var heldRead = false
    private var writableWaiters: [EventLoopPromise<Void>] = []

    init(isDatagram: Bool, bufferLimit: Int, datagramLimit: Int = 4096, statistics: ConnectionStatistics, label: String) {
        self.isDatagram = isDatagram
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

    private func expire(id: UInt64, error: any Error) {
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
        if isDatagram {
            if datagrams.count >= datagramLimit {
                statistics.didDrop()
            } else {
                datagrams.append(chunk)
            }
        } else if buffer.readableBytes == 0 {
            buffer = chunk
        } else {
            buffer.writeImmutableBuffer(chunk)
        }
        serve()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event {
            inputClosed = true
            serve()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        inputClosed = true
        serve()
        failWritableWaiters()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        record(failure: SocketEngineError.wrapping(error, context: label))
        serve()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            let waiters = writableWaiters
            writableWaiters.removeAll()
            waiters.forEach { $0.succeed(()) }
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
        let bytes = unwrapOutboundIn(data)
        let count = bytes.readableBytes
        if let tap { tap(TrafficRecord(direction: .sent, bytes: bytes, connection: label)) }
        let statistics = self.statistics
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.whenSuccess { statistics.didSend(count) }
        context.write(data, promise: written)
    }

    // MARK: Serving reads

    private var shouldHoldReads: Bool {
        if isDatagram { return datagrams.count >= datagramLimit }
        let needed = max(bufferLimit, pending.first?.decoder.bufferNeeded ?? 0)
        return buffer.readableBytes >= needed
    }

    private func serve() {
        while var read = pending.first {
            // Bytes that arrived before an error or EOF are delivered before the error is.
            let ended = inputClosed || failure != nil
            let result: ByteBuffer?
            do {
                if isDatagram {
                    result = datagrams.popFirst()
                } else {
                    result = try read.decoder.decode(&buffer, atEOF: ended)
                }
            } catch {
                pending.removeFirst()
                read.timeout?.cancel()
                read.promise.fail(error)
                if error.code == .frameTooLarge {
                    // The stream cannot be resynchronised: this connection is over.
                    record(failure: SocketEngineError(error.code, "\(label): \(error.message)"))
                    buffer = ByteBuffer()
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
        if buffer.readableBytes == 0 && buffer.capacity > 0 && buffer.readerIndex > 0 {
            buffer = ByteBuffer()
        } else if buffer.readerIndex > 1 << 20 && buffer.readerIndex > buffer.readableBytes {
            buffer.discardReadBytes()
        }
        if heldRead && !shouldHoldReads, let context {
            heldRead = false
            context.read()
        }
    }

    private func failWritableWaiters() {
        let waiters = writableWaiters
        writableWaiters.removeAll()
        let error = failure ?? SocketEngineError(.connectionClosed, "\(label): connection closed")
        waiters.forEach { $0.fail(error) }
    }
}
