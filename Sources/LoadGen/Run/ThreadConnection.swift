import NIOCore
import SocketEngine

/// One slot's connection on a ``LoadThread``: its socket (or TLS over it), its bytes both
/// ways, its reply cutters, and the slot's message state and connection accounting, which
/// outlive each connection the slot opens.
///
/// Owned by its thread; nothing here locks. ``token`` is its place in the thread's list, the
/// token its socket is watched under. Its state is marked `@exclusivity(unchecked)`: one thread
/// ever touches it, one access at a time, and the run-time check on each access of a class's
/// stored property (a thread-local lookup, about a tenth of the thread's own CPU per reply in
/// a profile) buys nothing here.
final class ThreadConnection {
    let slot: Int
    let token: UInt64
    /// The target of this slot (`ws://`: the upgrade's path and host).
    let endpoint: Endpoint
    let address: SocketAddress
    /// The slot's messages: outlives each connection (what was pipelined behind a server's
    /// close goes again).
    @exclusivity(unchecked) var state: LoadSlot
    @exclusivity(unchecked) var account = SlotAccounting()

    /// The open connection (nil between connections).
    @exclusivity(unchecked) private(set) var stream: (any BlockingStream)?
    /// A connect under way (watched for writing), and the thread's nanoseconds when it times out.
    @exclusivity(unchecked) var connecting: (socket: BlockingSocket, deadline: Int64)?
    @exclusivity(unchecked) var inbound = ByteBuffer()
    @exclusivity(unchecked) var outbound = ByteBuffer()
    @exclusivity(unchecked) var decoder: FrameDecoder
    @exclusivity(unchecked) var http: HTTPResponseCutter?
    @exclusivity(unchecked) var webSocket: WebSocketClientFramer?
    /// The socket is watched by the thread's epoll set.
    @exclusivity(unchecked) var watched = false
    /// The socket is watched for writing too (bytes are waiting for room).
    @exclusivity(unchecked) var watchingWrites = false
    /// The thread's monotonic nanoseconds at which to open again (nil: not waiting).
    @exclusivity(unchecked) var retryAt: Int64?
    /// ``LoadSlot/openCount`` as last added to the thread's shared outstanding figure.
    @exclusivity(unchecked) var reportedOutstanding = 0

    init(slot: Int, token: UInt64, endpoint: Endpoint, address: SocketAddress, context: RunContext) {
        self.slot = slot
        self.token = token
        self.endpoint = endpoint
        self.address = address
        let plan = context.plan
        state = LoadSlot(slot: slot, run: context, rules: (plan.correlation?.copy(), plan.label?.copy()))
        decoder = FrameDecoder(framing: plan.framing ?? .raw, maximumFrameSize: plan.maximumFrameSize)
    }

    /// A connection opened: fresh cutters and buffers; `leftover` is what came behind a
    /// WebSocket server's 101.
    func opened(_ opened: any BlockingStream, leftover: ByteBuffer, context: RunContext) {
        let plan = context.plan
        stream = opened
        connecting = nil
        inbound = leftover
        inbound.reserveCapacity(65536)
        outbound = ByteBuffer()
        outbound.reserveCapacity(4096)
        decoder = FrameDecoder(framing: plan.framing ?? .raw, maximumFrameSize: plan.maximumFrameSize)
        http = plan.isHTTP ? HTTPResponseCutter(sendsHEAD: context.sendsHEAD) : nil
        webSocket = endpoint.transport.isWebSocket
            ? WebSocketClientFramer(slot: slot, options: plan.connectOptions.webSocket, maximumFrameSize: plan.maximumFrameSize) : nil
        watched = false
        watchingWrites = false
        retryAt = nil
    }

    /// Closes the connection (closing the socket also takes it out of the epoll set); bytes
    /// waiting for it are dropped.
    func close() {
        outbound = ByteBuffer()
        stream?.close()
        stream = nil
        connecting?.socket.close()
        connecting = nil
        watched = false
        watchingWrites = false
    }

    /// Drops the bytes the cutters are done with.
    func compactInbound() {
        if inbound.readableBytes == 0 { inbound.clear() } else { inbound.discardReadBytes() }
    }

    /// Hands the socket what it takes of the waiting bytes; true while some are still waiting.
    func flush() throws -> Bool {
        guard let stream else { return false }
        if outbound.readableBytes > 0 {
            try stream.sendAvailable(&outbound)
            // A send-only run's bytes are a prepared run shared with the template: left as they
            // are (compacting would copy them), replaced once sent.
            if state.expectsReplies {
                if outbound.readableBytes == 0 { outbound.clear() } else { outbound.discardReadBytes() }
            }
        }
        if stream.hasPendingOutput { try stream.flushPending() }
        return outbound.readableBytes > 0 || stream.hasPendingOutput
    }

    /// Cuts the replies in ``inbound`` (`atEOF`: the server has closed); true when an HTTP
    /// server's close after a response ends this connection.
    func cutReplies(now: Int64, atEOF: Bool, stats: inout LoadStats) throws -> Bool {
        guard state.expectsReplies else {
            // Send-only: whatever comes back is counted and dropped.
            stats.counters.bytesReceived += inbound.readableBytes
            inbound.moveReaderIndex(to: inbound.writerIndex)
            return false
        }
        if http != nil {
            return try http?.cut(&inbound, atEOF: atEOF, state: &state, now: now, stats: &stats) ?? false
        }
        if webSocket != nil {
            // A message's payload bytes, as the event loops count them.
            try webSocket?.receive(from: &inbound, answers: &outbound) { state.reply($0, bytes: $0.readableBytes, now: now, stats: &stats) }
        } else {
            var consumedFrom = inbound.readerIndex
            while let frame = try decoder.decode(&inbound) {
                // Wire bytes: the frame with its delimiter or length prefix.
                state.reply(frame, bytes: inbound.readerIndex - consumedFrom, now: now, stats: &stats)
                consumedFrom = inbound.readerIndex
            }
        }
        return false
    }

    /// Appends the messages the pipeline has room for (closed loop: each due now); true if any.
    /// Send-only: the next run of messages once the last one has gone.
    func fill(now: Int64, context: RunContext, stats: inout LoadStats) -> Bool {
        guard state.expectsReplies else {
            guard outbound.readableBytes == 0, let run = state.nextRun(now: now, start: context.start, stats: &stats) else { return false }
            outbound = run
            return true
        }
        let pipeline = context.pipeline
        let start = context.start
        var added = false
        while state.pending.count < pipeline && !state.isExhausted(context) {
            if webSocket != nil {
                webSocket?.send(into: &outbound) { state.append(dueAt: now, now: now, start: start, to: &$0, stats: &stats) }
            } else {
                _ = state.append(dueAt: now, now: now, start: start, to: &outbound, stats: &stats)
                http?.sent(pending: state.pending.count)
            }
            added = true
        }
        return added
    }

    /// Send-only: 1 while bytes of a run wait for the socket (the run waits for them before it
    /// closes, so nothing counted as sent is dropped), else 0.
    var unsentRuns: Int { !state.expectsReplies && outbound.readableBytes > 0 ? 1 : 0 }

    /// How much the slot's outstanding figure (unanswered messages, or send-only the
    /// ``unsentRuns``) moved since it was last reported.
    func takeOutstandingChange() -> Int {
        let now = state.openCount + unsentRuns
        defer { reportedOutstanding = now }
        return now - reportedOutstanding
    }
}
