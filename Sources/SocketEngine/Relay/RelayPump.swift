import NIOCore
import Synchronization

/// One direction of one relayed client: reads chunks or messages from `source` and sends them
/// to `sink`, translating between a byte stream and messages where the two sides differ.
///
/// - A stream side with `--framing` is read one framed message at a time; a WebSocket or UDP
///   side one message at a time; a stream side without framing one chunk (what one read got).
/// - Towards a stream side a message gets its framing back (`line` adds the newline, `length:4`
///   the prefix); a stream-to-stream relay forwards the bytes exactly as they came.
/// - Back-pressure: the source is read only when the sink has taken the last unit, so a slow
///   reader on one side stops the other side's socket being read (bounded memory).
///
/// Without faults the pump forwards inline. With a ``RelayFaultSet`` it runs a reader and a
/// writer joined by a short queue, so latency holds each unit from its arrival while the next
/// ones keep arriving (see ``FaultedWriter``).
struct RelayPump: Sendable {
    /// How one direction ended.
    enum End: Sendable {
        /// The source finished and the end was passed on.
        case finished
        /// The source was reset; the sink has been reset too.
        case reset(SocketEngineError)
        /// Reading or sending failed; both sides must be closed.
        case failed(SocketEngineError)
        /// A fault ends the client: close both sides (FIN), or reset them.
        case faultClose(String)
        case faultReset(String)
    }

    /// One read's worth: the bytes as they were on the wire, the message without its framing.
    struct Unit: Sendable {
        var wire: ByteBuffer
        var body: ByteBuffer
        /// A whole message (framed, WebSocket, datagram) rather than an arbitrary chunk.
        var isMessage: Bool
        var arrived: EngineClock.Instant
        /// A WebSocket message's kind, passed on to a WebSocket sink (nil: the sink's own kind).
        var kind: WebSocketMessageKind? = nil
    }

    let client: RelayClient
    let direction: RelayDirection
    let source: any RelayPeer
    let sink: any RelayPeer
    let framing: Framing
    let maximumFrameSize: Int
    /// For `http`: the client's message cutting, shared by its two pumps.
    var httpCutter: RelayHTTPCutter? = nil
    let clock: EngineClock
    let reports: RelayReports
    let counters: RelayCounters
    /// Nil: no faults can ever apply (no `--fault`, no control socket).
    let faults: ClientFaults?
    /// The client's path (``RelayPath``): whether this direction may be joined on the event loop.
    let path: RelayPath
    /// For relays with a UDP side: touched on every unit, for the idle timeout.
    let activity: RelayActivity?
    /// Shared by the client's two pumps and its relay: set once the client is being ended.
    let ending: RelayEnding

    func run() async -> End {
        if let faults {
            return await runWithFaults(faults)
        }
        if let (from, to) = path.joined(direction), from.canForward(to: to) {
            return await forward(from, to)
        }
        do {
            while let unit = try await readUnit() {
                counters.forwarded(unit.wire.readableBytes, direction)
                activity?.touch()
                report(unit)
                if let outgoing = outgoing(unit) { try await sink.send(outgoing, kind: unit.kind) }
            }
            return await finishSink()
        } catch {
            return await failure(error)
        }
    }

    /// Byte stream to byte stream with nothing to see on the way: joined on the event loop.
    private func forward(_ from: Connection, _ to: Connection) async -> End {
        do {
            try await from.forward(to: to)
        } catch {
            counters.forwarded(from.statistics.bytesReceived, direction)
            return await failure(error)
        }
        counters.forwarded(from.statistics.bytesReceived, direction)
        return await finishSink()
    }

    // MARK: Reading and writing units

    func readUnit() async throws -> Unit? {
        if source.carriesMessages {
            guard let (message, kind) = try await source.receiveMessage() else { return nil }
            return Unit(wire: message, body: message, isMessage: true, arrived: clock.now, kind: kind)
        }
        switch framing {
        case .raw:
            guard let chunk = try await source.receive(faults == nil ? .available : .available(maxLength: 64 << 10)) else { return nil }
            return Unit(wire: chunk, body: chunk, isMessage: false, arrived: clock.now)
        case .line, .crlf, .null:
            let delimiter = framing.delimiter ?? []
            guard let frame = try await source.receive(.delimited(by: delimiter, maxLength: maximumFrameSize + delimiter.count + 1)) else {
                return nil
            }
            return Unit(wire: frame, body: Self.strip(frame, framing: framing), isMessage: true, arrived: clock.now)
        case .http:
            return try await readHTTPMessage()
        case .lengthPrefixed, .fixed:
            guard let body = try await source.receive(.frame(framing, maxFrameSize: maximumFrameSize)) else { return nil }
            let wire = (try? framing.encode(body)) ?? body
            return Unit(wire: wire, body: body, isMessage: true, arrived: clock.now)
        }
    }

    /// The next whole HTTP message, cut by the client's ``RelayHTTPCutter`` (which pairs HEAD
    /// requests with their answers across the two directions); nil at the end.
    private func readHTTPMessage() async throws -> Unit? {
        let cutter = httpCutter ?? RelayHTTPCutter(maximumFrameSize: maximumFrameSize)
        while true {
            if let message = try cutter.next(direction) {
                return Unit(wire: message, body: message, isMessage: true, arrived: clock.now)
            }
            if cutter.hasEnded(direction) { return nil }
            cutter.feed(direction, try await source.receive(.available))
        }
    }

    /// The bytes to send for `unit`, or nil when there is nothing to send.
    func outgoing(_ unit: Unit) -> ByteBuffer? {
        if sink.carriesMessages {
            // A WebSocket side carries empty messages; an empty chunk of a stream is nothing.
            return unit.isMessage || unit.body.readableBytes > 0 ? unit.body : nil
        }
        if source.carriesMessages && framing.delimitsMessages {
            return (try? framing.encode(unit.body)) ?? unit.body
        }
        return unit.wire.readableBytes > 0 ? unit.wire : nil
    }

    /// A delimited frame without its delimiter (and, for `line`, a CR before the LF).
    static func strip(_ frame: ByteBuffer, framing: Framing) -> ByteBuffer {
        guard let delimiter = framing.delimiter else { return frame }
        var length = frame.readableBytes
        let view = frame.readableBytesView
        if length >= delimiter.count, view.suffix(delimiter.count).elementsEqual(delimiter) {
            length -= delimiter.count
            if framing == .line, length > 0, view[view.startIndex + length - 1] == 0x0D { length -= 1 }
        }
        return frame.getSlice(at: frame.readerIndex, length: length) ?? frame
    }

    func report(_ unit: Unit) {
        if reports.data { reports.emit(.data(client, direction, unit.wire)) }
        if reports.messages && (unit.isMessage || framing == .raw) { reports.emit(.message(client, direction, unit.body)) }
    }

    // MARK: Ends

    func finishSink() async -> End {
        // The source ended because the relay is closing or resetting the client (a fault, the
        // other side's reset, the idle timeout): nobody sent an end, so none is passed on — a
        // FIN here would reach the other side before the reset that is due.
        guard !ending.hasBegun else { return .finished }
        do {
            try await sink.finish()
        } catch {
            return await failure(error)
        }
        reports.emit(.finished(client, direction))
        return .finished
    }

    func failure(_ error: any Error) async -> End {
        if error is CancellationError { return .failed(SocketEngineError(.connectionClosed, "\(client.peer): relay stopped")) }
        let wrapped = SocketEngineError.wrapping(error, context: "\(client.peer) \(direction.arrow)")
        if wrapped.code == .connectionReset {
            ending.begin()
            await sink.abort()
            return .reset(wrapped)
        }
        return .failed(wrapped)
    }
}

/// Where a relay's events go, and which of the per-chunk events are wanted.
struct RelayReports: Sendable {
    let data: Bool
    let messages: Bool
    let emit: @Sendable (RelayEvent) -> Void
}

/// Bytes forwarded each way and messages dropped, for one client and for the summary.
final class RelayCounters: Sendable {
    private let up = Atomic<Int>(0)
    private let down = Atomic<Int>(0)
    private let droppedCount = Atomic<Int>(0)
    private let discarded = Atomic<Int>(0)

    func forwarded(_ bytes: Int, _ direction: RelayDirection) {
        if direction == .up {
            up.wrappingAdd(bytes, ordering: .relaxed)
        } else {
            down.wrappingAdd(bytes, ordering: .relaxed)
        }
    }

    func dropped() { droppedCount.wrappingAdd(1, ordering: .relaxed) }

    /// Bytes read and thrown away by a fault (`drop`, `timeout`): accounted, never silently lost.
    func discard(_ bytes: Int) { discarded.wrappingAdd(bytes, ordering: .relaxed) }

    var bytesUp: Int { up.load(ordering: .relaxed) }
    var bytesDown: Int { down.load(ordering: .relaxed) }
    var droppedMessages: Int { droppedCount.load(ordering: .relaxed) }
    var discardedBytes: Int { discarded.load(ordering: .relaxed) }
}

/// Whether the relay has begun to end a client itself (a fault, a reset, a failure, the idle
/// timeout): set before either side is closed or reset, so a pump whose source then ends knows
/// the end is not its sender's.
final class RelayEnding: Sendable {
    private let flag = Atomic<Bool>(false)

    func begin() { flag.store(true, ordering: .sequentiallyConsistent) }

    var hasBegun: Bool { flag.load(ordering: .sequentiallyConsistent) }
}
