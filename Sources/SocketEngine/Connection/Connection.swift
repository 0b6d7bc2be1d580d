import NIOCore
import ProxyProtocol
import Synchronization

import Glibc

/// An established connection — TCP, Unix-domain stream or connected UDP — with queued,
/// individually timed reads and back-pressured writes, all as async calls.
///
/// ```swift
/// let connection = try await Connector(endpoint: try Endpoint(parsing: "127.0.0.1:7000")).connect()
/// try await connection.write(ByteBuffer(string: "{\"op\":\"ping\"}\r\n"))
/// let reply = try await connection.read(.frame(.crlf, maxFrameSize: 1 << 20), timeout: .seconds(2))
/// ```
///
/// Reads return `nil` once the peer has finished sending and everything it sent has been read.
/// On a datagram connection every read returns exactly one datagram, and frames are datagrams.
public final class Connection: Sendable {
    /// Default receive-buffer limit before the socket stops being read (backpressure).
    package static let defaultBufferLimit = 4 << 20

    let channel: any Channel
    let handler: NIOLoopBound<ConnectionHandler>
    private let readIDs = Atomic<UInt64>(0)
    private let lastWrite: Mutex<EventLoopFuture<Void>?> = Mutex(nil)

    /// The transport this connection runs over.
    public let transport: Endpoint.Transport
    /// Byte counters and last-activity time.
    public let statistics: ConnectionStatistics
    /// The local address, if the socket has one.
    public let localAddress: SocketAddress?
    /// The peer's address, if the socket has one.
    public let remoteAddress: SocketAddress?
    /// A short name for messages: the peer address or socket path.
    package let label: String
    /// For `ws://` and `wss://`: what the opening handshake established.
    public let webSocket: WebSocketHandshake?

    /// The TLS handshake of an accepted `tls://` connection (nil otherwise).
    public let security: EventLoopFuture<SecurityReport>?

    init(channel: any Channel, handler: ConnectionHandler, transport: Endpoint.Transport, statistics: ConnectionStatistics, label: String,
         security: EventLoopFuture<SecurityReport>? = nil, webSocket: WebSocketHandshake? = nil) {
        self.security = security
        self.webSocket = webSocket
        self.channel = channel
        self.handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
        self.transport = transport
        self.statistics = statistics
        self.localAddress = channel.localAddress
        self.remoteAddress = channel.remoteAddress
        self.label = label
    }

    /// Outbound buffering before ``send(_:)`` suspends: large enough for bulk transfer.
    static let writeWaterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 512 * 1024, high: 2 * 1024 * 1024)
    /// Reads start at 8 KiB and grow up to 1 MiB at a time when the peer is fast (two full reads
    /// take them from 8 KiB to 1 MiB). NIO keeps each channel's last receive buffer for the next
    /// read, so the starting size is what every idle connection costs: at 64 KiB, 10,000 proxied
    /// clients held 1.5 GB.
    static let receiveAllocator = AdaptiveRecvByteBufferAllocator(minimum: 1024, initial: 8 * 1024, maximum: 1024 * 1024)

    /// Installs the engine's handlers on a fresh channel (on the channel's event loop).
    static func prepare(_ channel: any Channel, transport: Endpoint.Transport, setup: ConnectionSetup) throws {
        let handler = ConnectionHandler(
            isDatagram: transport.isMessageOriented,
            dropsWhenFull: transport == .udp,
            bufferLimit: setup.bufferLimit,
            statistics: ConnectionStatistics(clock: setup.clock),
            label: label(for: channel, transport: transport)
        )
        handler.tap = setup.tap
        handler.recorder = setup.recorder
        handler.transportForRecording = transport == .udp ? .udp : .tcp
        if transport == .udp {
            try channel.pipeline.syncOperations.addHandler(DatagramUnwrapHandler())
        }
        try channel.pipeline.syncOperations.addHandler(handler)
    }

    /// The peer's address. Over a Unix socket: the server's path on a client's connection
    /// (`unix:/run/app.sock`); on a listener's, the client's own path when it bound one, else
    /// the process at the other end (`pid 4242 (uid 1000)`, from `SO_PEERCRED`), since a client's
    /// end usually has no name — never the listener's own path.
    static func label(for channel: any Channel, transport: Endpoint.Transport) -> String {
        if let carried = carriedAddresses(of: channel) { return carried.source.displayString }
        if transport == .unix {
            if let path = channel.remoteAddress?.pathname, !path.isEmpty { return "unix:" + path }
            return UnixPeer.credentials(of: channel).map { "pid \($0.pid) (uid \($0.uid))" } ?? "an unnamed unix socket"
        }
        return channel.remoteAddress?.displayString ?? transport.rawValue
    }

    /// The client's address and the one it connected to as a PROXY protocol header carried them
    /// (`listen --accept-proxy-protocol`), nil when there was none or it carried none. On the
    /// channel's event loop.
    static func carriedAddresses(of channel: any Channel) -> ProxyProtocolHeader.Addresses? {
        (try? channel.pipeline.syncOperations.handler(type: ProxyProtocolReceiver.self))?.carried
    }

    /// Wraps a prepared, connected channel (on the channel's event loop).
    static func attach(
        to channel: any Channel, transport: Endpoint.Transport, security: EventLoopFuture<SecurityReport>? = nil,
        webSocket: WebSocketHandshake? = nil
    ) throws -> Connection {
        try attach(to: channel, handler: channel.pipeline.syncOperations.handler(type: ConnectionHandler.self), transport: transport,
                   security: security, webSocket: webSocket)
    }

    /// Wraps a channel with the handler ``prepare(_:transport:bufferLimit:tap:)`` gave it, taken
    /// earlier (the channel may have closed since: its reads then report why).
    static func attach(
        to channel: any Channel, handler: ConnectionHandler, transport: Endpoint.Transport,
        security: EventLoopFuture<SecurityReport>? = nil, webSocket: WebSocketHandshake? = nil
    ) -> Connection {
        let label = Self.label(for: channel, transport: transport)
        handler.label = label
        handler.startRecording()
        return Connection(channel: channel, handler: handler, transport: transport, statistics: handler.statistics, label: label,
                          security: security, webSocket: webSocket)
    }

    // MARK: Reading

    /// Waits for the next piece of data the request describes.
    ///
    /// - Parameters:
    ///   - request: what to wait for; requests are served in the order issued.
    ///   - timeout: fail with `.readTimeout` if the request is not satisfied in time. A timeout
    ///     does not close the connection, and bytes already received stay buffered.
    ///   - keepOpenWhenTooLarge: a message over the request's limit fails the read but leaves
    ///     the connection open, its bytes buffered, for the caller's last words and
    ///     ``closeLingering()`` (a proxy's 431 to an oversized head). By default it is closed.
    /// - Returns: the bytes, or `nil` at end of stream when nothing more is buffered.
    /// - Throws: ``SocketEngineError`` (`.readTimeout`, `.frameTooLarge` — after which the
    ///   connection is closed, unless kept open —, `.truncatedFrame`, `.connectionReset`, …), or
    ///   `CancellationError`.
    public func read(_ request: ReadRequest = .available, timeout: Duration? = nil, keepOpenWhenTooLarge: Bool = false) async throws -> ByteBuffer? {
        let (result, cancel) = submitRead(request, timeout: timeout, closesWhenTooLarge: !keepOpenWhenTooLarge)
        return try await withTaskCancellationHandler { try await result.get() } onCancel: { cancel() }
    }

    /// Queues a read on the event loop: its result, and what cancels it.
    private func submitRead(_ request: ReadRequest, timeout: Duration?, closesWhenTooLarge: Bool = true) -> (EventLoopFuture<ByteBuffer?>, @Sendable () -> Void) {
        let id = readIDs.wrappingAdd(1, ordering: .relaxed).newValue
        let promise = channel.eventLoop.makePromise(of: ByteBuffer?.self)
        let handler = self.handler
        let decoder = request.decoder
        let amount = timeout?.timeAmount
        channel.eventLoop.execute {
            handler.value.enqueue(id: id, decoder: decoder, timeout: amount, closesWhenTooLarge: closesWhenTooLarge, promise: promise)
        }
        return (promise.futureResult, { promise.futureResult.eventLoop.execute { handler.value.cancel(id: id) } })
    }

    /// Reads and drops everything until the peer finishes, without buffering it: the bytes are
    /// counted and released as they arrive. Returns the number of bytes dropped.
    package func discardAll() async throws -> Int {
        let promise = channel.eventLoop.makePromise(of: Int.self)
        let handler = self.handler
        channel.eventLoop.execute { handler.value.discardAll(promise) }
        return try await promise.futureResult.get()
    }

    /// Answers every message of `framing` that arrives with `answer(message)` (its bytes nil: no
    /// answer), `delay` after its arrival, until the peer finishes; then returns. An answer with
    /// ``Answer/closeAfter`` ends the connection once it is written (what arrived after it is
    /// dropped unanswered), and this returns then. `interim(start)` may write something
    /// before a message is whole, once per message (an HTTP `100 Continue`).
    ///
    /// The fast path for servers that answer each message on its own (echo, canned replies):
    /// messages are cut, answered and written on the connection's event loop, one flush per
    /// read, with no task switch per message. `answer` runs on the event loop: keep it quick.
    /// Back-pressure: while the socket cannot take more (or 4096 delayed answers wait), the
    /// connection is not read. Stream connections only.
    ///
    /// - Throws: `.frameTooLarge` (the connection is closed), connection errors, or
    ///   `CancellationError`.
    package func answerEach(
        _ framing: Framing, maxFrameSize: Int = FrameDecoder.defaultMaximumFrameSize, delay: Duration? = nil,
        lastWords: (@Sendable (SocketEngineError) -> ByteBuffer?)? = nil,
        interim: (@Sendable (ByteBuffer) -> ByteBuffer?)? = nil,
        with answer: @escaping @Sendable (ByteBuffer) throws(SocketEngineError) -> Answer
    ) async throws {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let handler = self.handler
        let decoder = FrameDecoder(framing: framing, maximumFrameSize: maxFrameSize)
        let amount = delay?.timeAmount
        channel.eventLoop.execute {
            handler.value.answerAll(decoder: decoder, delay: amount, promise: promise, lastWords: lastWords, interim: interim, answer: answer)
        }
        try await withTaskCancellationHandler {
            try await promise.futureResult.get()
        } onCancel: {
            promise.futureResult.eventLoop.execute { handler.value.cancelAnswering() }
        }
    }

    /// Reads one WebSocket message and its kind (text or binary); nil once the peer has closed.
    /// The kind is taken on the event loop as the message is handed over (before the loop hands
    /// over another), so it is the kind of this message.
    package func readMessage(timeout: Duration? = nil) async throws -> (bytes: ByteBuffer, kind: WebSocketMessageKind)? {
        let handler = self.handler
        let (result, cancel) = submitRead(.available(maxLength: Int.max), timeout: timeout)
        let message = result.map { bytes in bytes.map { (bytes: $0, kind: handler.value.deliveredKind ?? .binary) } }
        return try await withTaskCancellationHandler { try await message.get() } onCancel: { cancel() }
    }

    /// Reads one message of `framing` (one datagram on UDP, one message on WebSocket).
    package func readFrame(_ framing: Framing, maxFrameSize: Int = FrameDecoder.defaultMaximumFrameSize, timeout: Duration? = nil) async throws -> ByteBuffer? {
        if transport.isMessageOriented { return try await read(.available(maxLength: Int.max), timeout: timeout) }
        return try await read(.frame(framing, maxFrameSize: maxFrameSize), timeout: timeout)
    }

    // MARK: Writing

    /// Writes `data` and returns once the kernel has accepted all of it.
    ///
    /// - Parameter timeout: fail with `.writeTimeout` — and close the connection, since part of
    ///   the data may already be on the wire — if the write has not completed in time.
    ///
    /// The timeout starts when the write reaches the event loop, in the loop's time.
    public func write(_ data: ByteBuffer, timeout: Duration? = nil) async throws {
        guard let timeout else {
            do {
                try await writeAndFlush(data).get()
            } catch {
                throw await failure(for: error, doing: "write")
            }
            return
        }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        lastWrite.withLock { $0 = promise.futureResult }
        let timedOut = Atomic<Bool>(false)
        let channel = self.channel
        channel.eventLoop.execute {
            let timer = channel.eventLoop.assumeIsolated().scheduleTask(in: timeout.timeAmount) {
                timedOut.store(true, ordering: .relaxed)
                channel.close(promise: nil)
            }
            promise.futureResult.whenComplete { _ in timer.cancel() }
            channel.writeAndFlush(data, promise: promise)
        }
        do {
            try await promise.futureResult.get()
        } catch {
            if timedOut.load(ordering: .relaxed) {
                throw SocketEngineError(.writeTimeout, "\(label): write not completed within \(timeout.formatted)")
            }
            throw await failure(for: error, doing: "write")
        }
    }

    /// Queues `data` for sending and returns as soon as the connection can take more, suspending
    /// while more than the write-buffer high-water mark is queued.
    ///
    /// This is the fast path for bulk transfer; ``flush()`` waits for everything queued. A
    /// failed write surfaces on a later call.
    public func send(_ data: ByteBuffer) async throws {
        try await waitUntilWritable()
        _ = writeAndFlush(data)
    }

    /// As ``send(_:)``, as a WebSocket message of `kind` whatever the connection's own kind (a
    /// relay passing on a message as it came); `kind` nil, or any other connection: ``send(_:)``.
    package func send(_ data: ByteBuffer, kind: WebSocketMessageKind?) async throws {
        try await waitUntilWritable()
        _ = writeAndFlush(data, kind: webSocket == nil ? nil : kind)
    }

    /// Writes and flushes `data` (as a WebSocket message of `kind`, when given) and makes it the
    /// last write ``flush()`` waits for.
    private func writeAndFlush(_ data: ByteBuffer, kind: WebSocketMessageKind? = nil) -> EventLoopFuture<Void> {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        lastWrite.withLock { $0 = promise.futureResult }
        guard let kind else {
            channel.writeAndFlush(data, promise: promise)
            return promise.futureResult
        }
        let channel = self.channel
        // One task on the loop: no other write can come between the kind and its message.
        channel.eventLoop.execute {
            channel.triggerUserOutboundEvent(WebSocketNextMessageKind(kind: kind), promise: nil)
            channel.writeAndFlush(data, promise: promise)
        }
        return promise.futureResult
    }

    /// Sends `length` bytes of the regular file `descriptor` from `offset` with `sendfile(2)`:
    /// no copy through this process. Returns when the kernel has taken all of it.
    ///
    /// The descriptor is duplicated; the caller keeps its own.
    package func sendFile(descriptor: Int32, offset: Int, length: Int) async throws {
        guard transport == .tcp || transport == .unix else {
            // TLS must see (and encrypt) every byte: no sendfile past it.
            throw SocketEngineError(.unsupported, "sendfile needs a plain TCP or Unix connection, not \(transport.rawValue)")
        }
        guard length > 0 else { return }
        let copy = dup(descriptor)
        guard copy >= 0 else {
            throw SocketEngineError(.ioError, "sendfile: \(SocketEngineError.describe(errno: errno))", errno: errno)
        }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy)
        defer { try? handle.close() }
        let region = FileRegion(fileHandle: handle, readerIndex: offset, endIndex: offset + length)
        let promise = channel.eventLoop.makePromise(of: Void.self)
        lastWrite.withLock { $0 = promise.futureResult }
        channel.writeAndFlush(IOData.fileRegion(region), promise: promise)
        do {
            try await promise.futureResult.get()
        } catch {
            throw await failure(for: error, doing: "sendfile")
        }
    }

    /// Queues `data` only if the connection can take it right now; false when its outbound
    /// buffer is above the high-water mark (the caller counts the message as dropped).
    package func trySend(_ data: ByteBuffer) -> Bool {
        guard channel.isActive, channel.isWritable else { return false }
        _ = writeAndFlush(data)
        return true
    }

    /// Waits until every write issued so far has reached the kernel.
    public func flush() async throws {
        guard let future = lastWrite.withLock({ $0 }) else { return }
        do {
            try await future.get()
        } catch {
            throw await failure(for: error, doing: "write")
        }
    }

    /// Suspends while the channel's outbound buffer is above its high-water mark.
    package func waitUntilWritable() async throws {
        if channel.isWritable { return }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let handler = self.handler
        channel.eventLoop.execute { handler.value.whenWritable(promise) }
        try await promise.futureResult.get()
    }

    // MARK: Closing

    /// Half-closes: sends FIN after everything queued, keeps receiving. A no-op for UDP.
    package func closeWrite() async throws {
        guard transport != .udp else { return }
        try await flush()
        guard channel.isActive else { return }
        do {
            try await channel.close(mode: .output).get()
        } catch ChannelError.outputClosed, ChannelError.alreadyClosed, ChannelError.ioOnClosedChannel {
            // Already shut down, or the peer closed everything first: nothing left to end.
            return
        } catch {
            throw await failure(for: error, doing: "shutdown")
        }
    }

    /// A lingering close (``LingeringClose``): shuts down the sending side once what is queued
    /// is written, then reads and drops what the peer still sends until it finishes, up to
    /// ``LingeringClose/maximumBytes`` or ``LingeringClose/maximumTime`` (a loop timer that
    /// closes the connection); then closes. Never throws.
    package func closeLingering() async {
        try? await closeWrite()
        let channel = self.channel
        let timer = channel.eventLoop.scheduleTask(in: LingeringClose.maximumTime) { channel.close(promise: nil) }
        var dropped = 0
        while dropped <= LingeringClose.maximumBytes, let chunk = try? await read(.available) {
            dropped += chunk.readableBytes
        }
        timer.cancel()
        await close()
    }

    /// Closes both directions. Never throws: closing a closed connection is fine.
    public func close() async {
        try? await channel.close().get()
    }

    /// Aborts the connection with a TCP reset (SO_LINGER 0) instead of an orderly FIN.
    package func reset() async {
        if transport == .tcp, let provider = channel as? any SocketOptionProvider {
            _ = try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
            let handler = self.handler
            try? await channel.eventLoop.submit { handler.value.recordReset() }.get()
        }
        await close()
    }

    /// True while the channel is open.
    package var isActive: Bool { channel.isActive }

    /// Waits until the connection is fully closed.
    package func waitForClose() async {
        try? await channel.closeFuture.get()
    }

    /// The error that ended the connection, if one did (a reset, an oversized frame …).
    package func terminationError() async -> SocketEngineError? {
        let handler = self.handler
        return try? await channel.eventLoop.submit { handler.value.recordedFailure }.get()
    }

    private func failure(for error: any Error, doing operation: String) async -> SocketEngineError {
        if let recorded = await terminationError() { return recorded }
        return SocketEngineError.wrapping(error, context: "\(label): \(operation)")
    }
}
