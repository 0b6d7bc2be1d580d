/// Puts the TCP segments of a capture back into the two byte streams of each connection, in
/// order, and says where bytes are missing.
///
/// ```
/// segments:  [0..<5 "hello"]  [10..<15 "there"]  [0..<5 "hello"]  [5..<10 ", you"]
///              in order         ahead: buffered    retransmission    fills the hole
/// events:    .opened, .data("hello"),                 (dropped),       .data(", you"), .data("there")
/// ```
///
/// Connections are keyed by their 4-tuple regardless of direction. The *client* is the sender of
/// the SYN (the receiver of a SYN-ACK); when the capture starts mid-connection it is the sender of
/// the first segment seen, unless exactly one of the two ports is below 1024 — that side is taken
/// as the server. Each direction starts at the SYN's ISN + 1, or at the first sequence number
/// seen when the handshake was not captured. Sequence arithmetic is modulo 2³²: a stream may
/// wrap around, and a segment starting 2³¹ bytes or more ahead of the expected one counts as old
/// (behind it). So everything a direction holds lies less than 2³¹ bytes ahead of its next byte:
/// payload reaching further is dropped and counted in ``Statistics/bytesBeyondWindow``, and a FIN
/// that far ahead (or behind the delivered bytes) is ignored.
///
/// What is not an error, and what happens:
/// - **Retransmissions** (bytes already delivered) are dropped and counted.
/// - **Out-of-order** segments are buffered until the bytes before them arrive.
/// - **Overlaps**: the bytes that arrived *first* win — a later segment covering delivered or
///   buffered bytes only contributes its new bytes, even when its content differs.
/// - **Missing bytes** become a ``EventKind/gap(_:)`` event with their count when the data after
///   them must be delivered anyway: the peer acknowledged past the hole (it will never be
///   retransmitted), a buffer limit was reached, or the connection ended (FIN with a hole before
///   it, RST, eviction, ``finish(_:)``). Payload the capture cut short (snap length) is a gap too.
/// - A stream is opened only by a SYN or by a segment that carries payload; pure ACKs, FINs and
///   RSTs of connections never seen are ignored. After it closes, a connection's 4-tuple is
///   remembered so late ACKs and retransmissions open nothing; a new SYN with another ISN on the
///   same 4-tuple opens a new stream (closing an open one with ``CloseReason/reused``).
/// - RSTs are believed without a window check.
/// - Payload at or past a direction's FIN is not part of its stream: it is dropped and counted
///   in ``Statistics/bytesAfterFIN``; the FIN seen first wins.
///
/// Limits: ``maximumBufferedBytesPerDirection`` (default 4 MiB) and ``maximumBufferedBytes`` over
/// all connections (default 64 MiB; each buffered piece also costs ``pieceOverhead`` bytes) —
/// beyond them the oldest hole is declared a gap; ``maximumConnections`` (default 65536, closed
/// ones included) — beyond it the oldest connection is evicted (``CloseReason/evicted``).
/// IP fragments are not reassembled (``TransportSegment/parse(_:_:)`` skips them).
public struct TCPReassembler {
    /// Which way a chunk of the stream travelled: `clientToServer` is the client's byte stream.
    public enum Direction: Sendable, Equatable {
        case clientToServer
        case serverToClient
    }

    public enum CloseReason: Sendable, Equatable {
        /// Both sides sent FIN and every byte before the FINs was accounted for.
        case finished
        /// An RST (the event's direction says who sent it).
        case reset
        /// A new SYN with another ISN arrived on the same 4-tuple.
        case reused
        /// Pushed out by ``maximumConnections`` newer connections.
        case evicted
        /// Still open when ``finish(_:)`` was called.
        case endOfCapture
    }

    /// An address and port, printed as tcpdump does: `127.0.0.1.5000`, `::1.6969`.
    public struct Endpoint: Hashable, Sendable, Comparable, CustomStringConvertible {
        public var address: TransportSegment.Address
        public var port: UInt16

        public init(address: TransportSegment.Address, port: UInt16) {
            self.address = address
            self.port = port
        }

        public var description: String { "\(address).\(port)" }

        public static func < (lhs: Endpoint, rhs: Endpoint) -> Bool {
            lhs.address < rhs.address || (lhs.address == rhs.address && lhs.port < rhs.port)
        }
    }

    public enum EventKind {
        /// A new stream; always the first event of its stream, direction `clientToServer`.
        case opened(client: Endpoint, server: Endpoint)
        /// The next bytes of the direction's stream. The buffer is only valid during the callback.
        case data(UnsafeRawBufferPointer)
        /// This many bytes of the direction's stream were not captured.
        case gap(Int)
        /// The last event of the stream.
        case closed(CloseReason)
    }

    public struct Event {
        /// 1 for the first stream opened, then 2, 3 …
        public var stream: Int
        public var direction: Direction
        public var kind: EventKind
    }

    /// Counters for the summary: nothing is dropped silently.
    public struct Statistics: Sendable, Equatable {
        /// Segments whose payload had been delivered or buffered already (retransmissions).
        public var duplicateSegments = 0
        /// Bytes reported in gap events.
        public var missingBytes = 0
        /// Connections pushed out by the connection limit.
        public var evictedConnections = 0
        /// Payload bytes at or past their direction's FIN: not part of the stream, not delivered.
        public var bytesAfterFIN = 0
        /// Payload bytes 2³¹ or more ahead of their direction's next byte: modulo 2³² they would
        /// come before it, so they are not placed in the stream, not delivered.
        public var bytesBeyondWindow = 0
    }

    public static let defaultMaximumBufferedBytesPerDirection = 4 * 1024 * 1024
    public static let defaultMaximumBufferedBytes = 64 * 1024 * 1024
    public static let defaultMaximumConnections = 65_536
    /// What one buffered piece costs beyond its bytes, in the buffer limits.
    public static let pieceOverhead = 64

    public let maximumBufferedBytesPerDirection: Int
    public let maximumBufferedBytes: Int
    public let maximumConnections: Int
    public private(set) var statistics = Statistics()

    private var connections: [ConnectionKey: Connection] = [:]
    /// Keys in the order their streams were opened (may hold stale entries; see `evictOldest`).
    private var openOrder: [(key: ConnectionKey, stream: Int)] = []
    private var openOrderHead = 0
    private var nextStream = 1
    private var budget: Budget

    public init(
        maximumBufferedBytesPerDirection: Int = TCPReassembler.defaultMaximumBufferedBytesPerDirection,
        maximumBufferedBytes: Int = TCPReassembler.defaultMaximumBufferedBytes,
        maximumConnections: Int = TCPReassembler.defaultMaximumConnections
    ) {
        self.maximumBufferedBytesPerDirection = max(1, maximumBufferedBytesPerDirection)
        self.maximumBufferedBytes = max(1, maximumBufferedBytes)
        self.maximumConnections = max(1, maximumConnections)
        budget = Budget(perDirection: self.maximumBufferedBytesPerDirection, total: self.maximumBufferedBytes)
    }

    /// Connections currently remembered (open and recently closed).
    public var trackedConnections: Int { connections.count }

    /// Feeds one segment; `payload` is its captured payload (``TransportSegment/payload(in:)``).
    /// UDP segments are ignored. Events are passed to `emit` before this returns.
    public mutating func process(_ segment: TransportSegment, payload: UnsafeRawBufferPointer, _ emit: (Event) -> Void) {
        guard segment.transport == .tcp else { return }
        let source = Endpoint(address: segment.source, port: segment.sourcePort)
        let destination = Endpoint(address: segment.destination, port: segment.destinationPort)
        let key = ConnectionKey(source, destination)
        let flags = segment.flags
        if let index = connections.index(forKey: key) {
            if flags.contains(.syn) && !flags.contains(.ack) && connections.values[index].isNewSYN(from: source, sequence: segment.sequenceNumber) {
                if !connections.values[index].closed {
                    connections.values[index].close(.reused, direction: .clientToServer, budget: &budget, statistics: &statistics, emit)
                }
                connections.remove(at: index)
            } else {
                connections.values[index].receive(segment, payload: payload, from: source, budget: &budget, statistics: &statistics, emit)
                return
            }
        }
        guard flags.contains(.syn) || segment.payloadLength > 0 else { return }
        let sourceIsClient: Bool
        if flags.contains(.syn) {
            sourceIsClient = !flags.contains(.ack)
        } else if (source.port < 1024) != (destination.port < 1024) {
            sourceIsClient = destination.port < 1024
        } else {
            sourceIsClient = true
        }
        while connections.count >= maximumConnections { evictOldest(emit) }
        let stream = nextStream
        nextStream += 1
        let client = sourceIsClient ? source : destination
        let server = sourceIsClient ? destination : source
        var connection = Connection(stream: stream, client: client)
        emit(Event(stream: stream, direction: .clientToServer, kind: .opened(client: client, server: server)))
        connection.receive(segment, payload: payload, from: source, budget: &budget, statistics: &statistics, emit)
        connections[key] = connection
        openOrder.append((key, stream))
    }

    /// Ends every open stream: buffered data is delivered with gaps before it, and each gets
    /// ``CloseReason/endOfCapture`` (or ``CloseReason/finished`` when both FINs were seen).
    /// The reassembler is empty afterwards and may be reused.
    public mutating func finish(_ emit: (Event) -> Void) {
        var open: [(stream: Int, key: ConnectionKey)] = []
        for (key, connection) in connections where !connection.closed { open.append((connection.stream, key)) }
        open.sort { $0.stream < $1.stream }
        for (_, key) in open {
            guard let index = connections.index(forKey: key) else { continue }
            connections.values[index].close(.endOfCapture, direction: .clientToServer, budget: &budget, statistics: &statistics, emit)
        }
        connections.removeAll()
        openOrder.removeAll()
        openOrderHead = 0
    }

    private mutating func evictOldest(_ emit: (Event) -> Void) {
        if openOrderHead >= openOrder.count || openOrder.count - openOrderHead > 2 * maximumConnections + 16 {
            // Rebuild from the live table (stale entries pile up when 4-tuples are reused).
            openOrder = connections.map { (key: $0.key, stream: $0.value.stream) }.sorted { $0.stream < $1.stream }
            openOrderHead = 0
        }
        while openOrderHead < openOrder.count {
            let (key, stream) = openOrder[openOrderHead]
            openOrderHead += 1
            if openOrderHead > 4096 && openOrderHead * 2 > openOrder.count {
                openOrder.removeFirst(openOrderHead)
                openOrderHead = 0
            }
            guard let index = connections.index(forKey: key), connections.values[index].stream == stream else { continue }
            if !connections.values[index].closed {
                statistics.evictedConnections += 1
                connections.values[index].close(.evicted, direction: .clientToServer, budget: &budget, statistics: &statistics, emit)
            }
            connections.remove(at: index)
            return
        }
        // Nothing found (cannot happen while the table is non-empty): drop an arbitrary entry.
        if let any = connections.keys.first { connections.removeValue(forKey: any) }
    }
}

// MARK: - Connection state

/// A 4-tuple in a canonical order, so both directions find the same connection.
private struct ConnectionKey: Hashable {
    var low: TCPReassembler.Endpoint
    var high: TCPReassembler.Endpoint

    init(_ one: TCPReassembler.Endpoint, _ other: TCPReassembler.Endpoint) {
        if other < one {
            low = other
            high = one
        } else {
            low = one
            high = other
        }
    }
}

/// The buffer limits and the bytes buffered over all connections.
private struct Budget {
    let perDirection: Int
    let total: Int
    var used = 0
}

private struct Connection {
    let stream: Int
    let client: TCPReassembler.Endpoint
    var toServer = HalfStream()
    var toClient = HalfStream()
    var closed = false

    init(stream: Int, client: TCPReassembler.Endpoint) {
        self.stream = stream
        self.client = client
    }

    /// A SYN that starts a new connection on this 4-tuple rather than repeating the known one.
    func isNewSYN(from source: TCPReassembler.Endpoint, sequence: UInt32) -> Bool {
        let half = source == client ? toServer : toClient
        if closed { return half.initialSequence != sequence }
        return half.started && half.initialSequence != sequence
    }

    mutating func receive(
        _ segment: TransportSegment, payload: UnsafeRawBufferPointer, from source: TCPReassembler.Endpoint,
        budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ emit: (TCPReassembler.Event) -> Void
    ) {
        guard !closed else { return }
        let direction: TCPReassembler.Direction = source == client ? .clientToServer : .serverToClient
        let flags = segment.flags
        if flags.contains(.rst) {
            close(.reset, direction: direction, budget: &budget, statistics: &statistics, emit)
            return
        }
        let output = Output(stream: stream, direction: direction)
        let reverse = Output(stream: stream, direction: direction == .clientToServer ? .serverToClient : .clientToServer)
        if direction == .clientToServer {
            toServer.receive(segment, payload: payload, budget: &budget, statistics: &statistics, output, emit)
            if flags.contains(.ack) { toClient.acknowledged(segment.acknowledgmentNumber, budget: &budget, statistics: &statistics, reverse, emit) }
        } else {
            toClient.receive(segment, payload: payload, budget: &budget, statistics: &statistics, output, emit)
            if flags.contains(.ack) { toServer.acknowledged(segment.acknowledgmentNumber, budget: &budget, statistics: &statistics, reverse, emit) }
        }
        if toServer.finished && toClient.finished {
            closed = true
            emit(TCPReassembler.Event(stream: stream, direction: .clientToServer, kind: .closed(.finished)))
        }
    }

    /// Delivers what is buffered (gaps for the holes) in both directions and emits `closed`.
    mutating func close(
        _ reason: TCPReassembler.CloseReason, direction: TCPReassembler.Direction,
        budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ emit: (TCPReassembler.Event) -> Void
    ) {
        guard !closed else { return }
        toServer.flush(budget: &budget, statistics: &statistics, Output(stream: stream, direction: .clientToServer), emit)
        toClient.flush(budget: &budget, statistics: &statistics, Output(stream: stream, direction: .serverToClient), emit)
        closed = true
        let outcome = reason == .endOfCapture && toServer.finished && toClient.finished ? .finished : reason
        emit(TCPReassembler.Event(stream: stream, direction: direction, kind: .closed(outcome)))
    }
}

private typealias Emit = (TCPReassembler.Event) -> Void

/// Which stream and direction a half's events belong to.
private struct Output {
    let stream: Int
    let direction: TCPReassembler.Direction

    func data(_ bytes: UnsafeRawBufferPointer, _ emit: Emit) {
        guard bytes.count > 0 else { return }
        emit(TCPReassembler.Event(stream: stream, direction: direction, kind: .data(bytes)))
    }

    func gap(_ count: Int, _ statistics: inout TCPReassembler.Statistics, _ emit: Emit) {
        guard count > 0 else { return }
        statistics.missingBytes += count
        emit(TCPReassembler.Event(stream: stream, direction: direction, kind: .gap(count)))
    }
}

/// A buffered part of a direction's stream, ahead of the next expected byte. `bytes` is empty
/// for a part known to be missing (payload the capture cut short).
private struct Piece {
    var sequence: UInt32
    var length: Int
    var bytes: [UInt8]

    var isMissing: Bool { bytes.isEmpty }
    var cost: Int { bytes.count + TCPReassembler.pieceOverhead }
}

/// One direction of a connection.
private struct HalfStream {
    /// `next` is known (SYN seen, or the first segment of a capture that started mid-stream).
    var started = false
    /// The next sequence number to deliver.
    var next: UInt32 = 0
    var initialSequence: UInt32?
    /// Buffered pieces, sorted by sequence (relative to `next`), disjoint, all ahead of `next`.
    var pieces: [Piece] = []
    var bufferedCost = 0
    /// Sequence number of the FIN, once seen.
    var finSequence: UInt32?
    /// The FIN was reached: every byte before it is delivered or reported missing.
    var finished = false

    /// Distance from `next` to `sequence`, in [-2³¹, 2³¹).
    func offset(of sequence: UInt32) -> Int {
        Int(Int32(bitPattern: sequence &- next))
    }

    /// Offsets from `next` below this are ahead of it; buffered bytes and the FIN stay below it
    /// (beyond, `offset(of:)` would wrap around to negative and put them behind `next`).
    static let window = 1 << 31

    mutating func receive(
        _ segment: TransportSegment, payload: UnsafeRawBufferPointer,
        budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ output: Output, _ emit: Emit
    ) {
        var dataStart = segment.sequenceNumber
        if segment.flags.contains(.syn) {
            // A SYN anchors the stream only if nothing did before; a late SYN (the capture
            // started mid-stream and saw it afterwards) must not move `next` back over bytes
            // already delivered: its payload goes through `insert` like any other.
            if !started {
                next = segment.sequenceNumber &+ 1
                started = true
            }
            initialSequence = initialSequence ?? segment.sequenceNumber
            dataStart = segment.sequenceNumber &+ 1
        }
        let length = max(0, segment.payloadLength)
        if length > 0 {
            if !started {
                next = dataStart
                started = true
            }
            if finished, let fin = finSequence {
                // The stream has ended: bytes before the FIN are a retransmission, bytes at or
                // past it are not part of the stream.
                let startAfterFIN = Int(Int32(bitPattern: dataStart &- fin))
                let past = min(length, max(0, startAfterFIN + length))
                if past > 0 { statistics.bytesAfterFIN += past }
                if past < length { statistics.duplicateSegments += 1 }
            } else if finished {
                statistics.duplicateSegments += 1
            } else {
                insert(dataStart, length: length, captured: payload, budget: &budget, statistics: &statistics, output, emit)
            }
        }
        if segment.flags.contains(.fin) {
            let fin = dataStart &+ UInt32(truncatingIfNeeded: length)
            if !started {
                next = fin
                started = true
            }
            // A FIN behind `next` (bytes past it were delivered) or 2³¹ or more ahead is old.
            if finSequence == nil && !finished && offset(of: fin) >= 0 {
                finSequence = fin
                dropPieces(from: fin, budget: &budget, statistics: &statistics)
            }
        }
        reachFIN(budget: &budget, statistics: &statistics)
    }

    /// Forgets buffered bytes at or past `fin` (sent after the FIN: not part of the stream).
    private mutating func dropPieces(from fin: UInt32, budget: inout Budget, statistics: inout TCPReassembler.Statistics) {
        let limit = offset(of: fin)
        var kept: [Piece] = []
        for piece in pieces {
            let start = offset(of: piece.sequence)
            if start + piece.length <= limit {
                kept.append(piece)
                continue
            }
            bufferedCost -= piece.cost
            budget.used -= piece.cost
            let keep = max(0, limit - start)
            statistics.bytesAfterFIN += piece.length - keep
            if keep > 0 {
                let trimmed = Piece(sequence: piece.sequence, length: keep, bytes: piece.isMissing ? [] : Array(piece.bytes.prefix(keep)))
                bufferedCost += trimmed.cost
                budget.used += trimmed.cost
                kept.append(trimmed)
            }
        }
        pieces = kept
    }

    /// Adds `length` bytes at `sequence`, of which `captured` holds the first `captured.count`.
    private mutating func insert(
        _ sequence: UInt32, length: Int, captured: UnsafeRawBufferPointer,
        budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ output: Output, _ emit: Emit
    ) {
        let start = offset(of: sequence)  // may be negative: part already delivered
        var end = start + length
        if let fin = finSequence, end > offset(of: fin) {
            let finOffset = offset(of: fin)
            statistics.bytesAfterFIN += end - max(start, finOffset)
            end = finOffset
            guard end > start else { return }
        }
        if end > HalfStream.window {
            // `start` is below the window (an Int32), so something is left.
            statistics.bytesBeyondWindow += end - HalfStream.window
            end = HalfStream.window
        }
        guard end > 0 else {
            statistics.duplicateSegments += 1
            return
        }
        let capturedCount = min(captured.count, end - start)
        if pieces.isEmpty && start <= 0 {
            // In order (the common case): deliver straight from the packet, no copy.
            let skip = -start
            if skip < capturedCount {
                output.data(UnsafeRawBufferPointer(rebasing: captured[skip..<capturedCount]), emit)
            }
            output.gap(end - start - max(skip, capturedCount), &statistics, emit)
            next = next &+ UInt32(truncatingIfNeeded: end)
            return
        }
        // Carve [max(start, 0), end) against the buffered pieces: earlier bytes win.
        var fresh: [Piece] = []
        var position = max(start, 0)
        func add(_ from: Int, _ to: Int) {
            // Split at the end of the captured bytes: data first, then the missing part.
            let capturedEnd = start + capturedCount
            if from < capturedEnd {
                let upper = min(to, capturedEnd)
                let bytes = Array(UnsafeRawBufferPointer(rebasing: captured[(from - start)..<(upper - start)]))
                fresh.append(Piece(sequence: next &+ UInt32(truncatingIfNeeded: from), length: upper - from, bytes: bytes))
            }
            if to > capturedEnd {
                let lower = max(from, capturedEnd)
                fresh.append(Piece(sequence: next &+ UInt32(truncatingIfNeeded: lower), length: to - lower, bytes: []))
            }
        }
        for piece in pieces {
            let pieceStart = offset(of: piece.sequence)
            let pieceEnd = pieceStart + piece.length
            if pieceEnd <= position { continue }
            if pieceStart >= end { break }
            if pieceStart > position { add(position, min(pieceStart, end)) }
            position = max(position, pieceEnd)
            if position >= end { break }
        }
        if position < end { add(position, end) }
        guard !fresh.isEmpty else {
            statistics.duplicateSegments += 1
            return
        }
        var merged: [Piece] = []
        merged.reserveCapacity(pieces.count + fresh.count)
        var old = 0
        for piece in fresh {
            let pieceStart = offset(of: piece.sequence)
            while old < pieces.count && offset(of: pieces[old].sequence) < pieceStart {
                merged.append(pieces[old])
                old += 1
            }
            merged.append(piece)
            bufferedCost += piece.cost
            budget.used += piece.cost
        }
        merged.append(contentsOf: pieces[old...])
        pieces = merged
        drain(budget: &budget, statistics: &statistics, output, emit)
        // Over a limit: the oldest hole becomes a gap until the buffers fit again.
        while !pieces.isEmpty && (bufferedCost > budget.perDirection || budget.used > budget.total) {
            skipToFirstPiece(statistics: &statistics, output, emit)
            drain(budget: &budget, statistics: &statistics, output, emit)
        }
    }

    /// Delivers the pieces that start at `next`.
    private mutating func drain(budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ output: Output, _ emit: Emit) {
        var delivered = 0
        while delivered < pieces.count && pieces[delivered].sequence == next {
            let piece = pieces[delivered]
            if piece.isMissing {
                output.gap(piece.length, &statistics, emit)
            } else {
                piece.bytes.withUnsafeBytes { output.data($0, emit) }
            }
            next = next &+ UInt32(truncatingIfNeeded: piece.length)
            bufferedCost -= piece.cost
            budget.used -= piece.cost
            delivered += 1
        }
        if delivered > 0 { pieces.removeFirst(delivered) }
    }

    /// Declares the bytes before the first buffered piece missing.
    private mutating func skipToFirstPiece(statistics: inout TCPReassembler.Statistics, _ output: Output, _ emit: Emit) {
        guard let first = pieces.first else { return }
        output.gap(offset(of: first.sequence), &statistics, emit)
        next = first.sequence
    }

    /// The peer acknowledged up to `ack`: holes before it will never be filled by a retransmission.
    mutating func acknowledged(_ ack: UInt32, budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ output: Output, _ emit: Emit) {
        guard started, !finished, Int32(bitPattern: ack &- next) > 0 else { return }
        while let first = pieces.first, Int32(bitPattern: ack &- first.sequence) > 0 {
            skipToFirstPiece(statistics: &statistics, output, emit)
            drain(budget: &budget, statistics: &statistics, output, emit)
        }
        if pieces.isEmpty, let fin = finSequence, Int32(bitPattern: ack &- fin) > 0, offset(of: fin) > 0 {
            output.gap(offset(of: fin), &statistics, emit)
            next = fin
        }
        reachFIN(budget: &budget, statistics: &statistics)
    }

    /// Everything buffered is delivered, holes as gaps, up to the FIN if one was seen.
    mutating func flush(budget: inout Budget, statistics: inout TCPReassembler.Statistics, _ output: Output, _ emit: Emit) {
        while !pieces.isEmpty {
            skipToFirstPiece(statistics: &statistics, output, emit)
            drain(budget: &budget, statistics: &statistics, output, emit)
        }
        if let fin = finSequence, !finished, offset(of: fin) > 0 {
            output.gap(offset(of: fin), &statistics, emit)
            next = fin
        }
        reachFIN(budget: &budget, statistics: &statistics)
    }

    private mutating func reachFIN(budget: inout Budget, statistics: inout TCPReassembler.Statistics) {
        if let fin = finSequence, !finished, next == fin {
            finished = true
            next = next &+ 1
            // Whatever is still buffered lies past the FIN.
            for piece in pieces {
                statistics.bytesAfterFIN += piece.length
                bufferedCost -= piece.cost
                budget.used -= piece.cost
            }
            pieces.removeAll()
        }
    }
}
