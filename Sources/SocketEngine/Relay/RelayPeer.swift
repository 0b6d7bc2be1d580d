import NIOCore
import Synchronization

/// One side of a relayed client, as a ``RelayPump`` sees it: the accepted client or its upstream
/// connection. A stream ``Connection`` is one; so is a ``DatagramFlow`` (one UDP client of a
/// UDP listener).
protocol RelayPeer: RelayClosable {
    /// True when every read is one message (WebSocket, UDP), false for byte streams.
    var carriesMessages: Bool { get }
    /// Waits for the next chunk or message; nil when the peer has finished sending.
    func receive(_ request: ReadRequest) async throws -> ByteBuffer?
    /// Queues `data` (one message on a message side), suspending while the side cannot take more.
    func send(_ data: ByteBuffer) async throws
    /// The next message and, from a WebSocket side, its kind; nil when the peer has finished.
    /// Message sides only (``carriesMessages``).
    func receiveMessage() async throws -> (bytes: ByteBuffer, kind: WebSocketMessageKind?)?
    /// As ``send(_:)``, as a message of `kind` on a WebSocket side (nil: the side's own kind).
    func send(_ data: ByteBuffer, kind: WebSocketMessageKind?) async throws
    /// Ends this direction in order: FIN after what is queued (a close frame on WebSocket).
    func finish() async throws
    /// Ends the connection with a reset (RST) where the transport has one; closes otherwise.
    func abort() async
}

extension RelayPeer {
    /// A side without message kinds (UDP): its messages as ``receive(_:)`` gives them.
    func receiveMessage() async throws -> (bytes: ByteBuffer, kind: WebSocketMessageKind?)? {
        try await receive(.available).map { ($0, nil) }
    }

    /// A side without message kinds: `kind` is moot.
    func send(_ data: ByteBuffer, kind: WebSocketMessageKind?) async throws {
        try await send(data)
    }
}

/// What ``RelayService/stop()`` closes: a side of a client, or a client relayed outside the
/// event loop (``EpollRelayedClient``).
protocol RelayClosable: Sendable {
    /// Closes both directions.
    func close() async
    /// The stream connection this is, for the paths that join two of them (``RelayPath``) and
    /// the live counts; nil for a UDP flow or a client on the epoll relay loop.
    var connection: Connection? { get }
}

extension Connection: RelayPeer {
    var carriesMessages: Bool { transport.isMessageOriented }

    var connection: Connection? { self }

    func receive(_ request: ReadRequest) async throws -> ByteBuffer? {
        try await read(carriesMessages ? .available(maxLength: Int.max) : request)
    }

    func receiveMessage() async throws -> (bytes: ByteBuffer, kind: WebSocketMessageKind?)? {
        guard webSocket != nil else { return try await receive(.available).map { ($0, nil) } }
        return try await readMessage().map { ($0.bytes, $0.kind) }
    }

    func finish() async throws { try await closeWrite() }

    func abort() async { await reset() }
}

/// One client of a UDP relay: the datagrams one source address sent to the listener, and the
/// way back to it. Fed by the relay's receive loop; a full queue drops the datagram and counts it.
final class DatagramFlow: RelayPeer {
    let peer: SocketAddress
    private let listener: DatagramListener
    private let queue: AsyncBoundedQueue<ByteBuffer>
    private let closed = Atomic<Bool>(false)
    /// Ends (never yields) when the flow is closed.
    private let closing = AsyncStream<Never>.makeStream()

    init(peer: SocketAddress, listener: DatagramListener, limit: Int = 1024) {
        self.peer = peer
        self.listener = listener
        self.queue = AsyncBoundedQueue(capacity: limit)
    }

    var carriesMessages: Bool { true }

    var connection: Connection? { nil }

    /// True once the flow has been closed: its client's next datagram starts a new flow.
    var isClosed: Bool { closed.load(ordering: .sequentiallyConsistent) }

    /// Queues a datagram from the client; false when the flow is this far behind (dropped) or
    /// closed.
    func deliver(_ datagram: ByteBuffer) -> Bool {
        queue.tryPush(datagram)
    }

    func receive(_ request: ReadRequest) async throws -> ByteBuffer? {
        try await queue.next()
    }

    func send(_ data: ByteBuffer) async throws {
        try await listener.send(data, to: peer)
    }

    func finish() async throws {}

    func abort() async { await close() }

    func close() async {
        // Before the queue refuses datagrams: one refused for being closed is never counted lost.
        closed.store(true, ordering: .sequentiallyConsistent)
        queue.finish()
        closing.continuation.finish()
    }

    /// Returns once the flow is closed, or when the waiting task is cancelled.
    func waitForClose() async {
        for await _ in closing.stream {}
    }
}
