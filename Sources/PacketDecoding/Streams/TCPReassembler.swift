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

    /// Why a stream ended; carried by its last event, ``EventKind/closed(_:)``.
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
        /// The IPv4 or IPv6 address.
        public var address: TransportSegment.Address
        /// The TCP or UDP port.
        public var port: UInt16

        /// An endpoint from an address and a port.
        public init(address: TransportSegment.Address, port: UInt16) {
            self.address = address
            self.port = port
        }

        /// `address.port`, e.g. `127.0.0.1.5000` or `::1.6969`.
        public var description: String { "\(address).\(port)" }

        /// Orders by address (IPv4 before IPv6), then by port.
        public static func < (lhs: Endpoint, rhs: Endpoint) -> Bool {
            lhs.address < rhs.address || (lhs.address == rhs.address && lhs.port < rhs.port)
        }
    }

    /// What an ``Event`` reports: a stream opened, its next bytes, bytes missing, or the stream closed.
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

    /// One thing that happened to one stream, handed to the `emit` callback of
    /// ``process(_:payload:_:)`` and ``finish(_:)``.
    public struct Event {
        /// 1 for the first stream opened, then 2, 3 …
        public var stream: Int
        /// The byte stream a data or gap event belongs to; for a reset, the RST's sender; otherwise
        /// ``Direction/clientToServer``.
        public var direction: Direction
        package var kind: EventKind
    }

    /// Counters for the summary: nothing is dropped silently.
    public struct Statistics: Sendable, Equatable {
        /// Segments whose payload had been delivered or buffered already (retransmissions).
        package var duplicateSegments = 0
        /// Bytes reported in gap events.
        public var missingBytes = 0
        /// Connections pushed out by the connection limit.
        package var evictedConnections = 0
        /// Payload bytes at or past their direction's FIN: not part of the stream, not delivered.
        package var bytesAfterFIN = 0
        /// Payload bytes 2³¹ or more ahead of their direction's next byte: modulo 2³² they would
        /// come before it, so they are not placed in the stream, not delivered.
        package var bytesBeyondWindow = 0
    }

    /// Default for ``maximumBufferedBytesPerDirection``: 4 MiB.
    public static let defaultMaximumBufferedBytesPerDirection = 4 * 1024 * 1024
    /// Default for ``maximumBufferedBytes``: 64 MiB over all connections.
    public static let defaultMaximumBufferedBytes = 64 * 1024 * 1024
    /// Default for ``maximumConnections``: 65536, closed ones included.
    public static let defaultMaximumConnections = 65_536
    /// What one buffered piece costs beyond its bytes, in the buffer limits.
    package static let pieceOverhead = 64

    package let maximumBufferedBytesPerDirection: Int
    package let maximumBufferedBytes: Int
    package let maximumConnections: Int
    /// Counters over every stream so far; ``finish(_:)`` does not reset them.
    public private(set) var statistics = Statistics()

    private var connections: [ConnectionKey: Connection] = [:]
    /// Keys in the order their streams were opened (may hold stale entries; see `evictOldest`).
    private var openOrder: [(key: ConnectionKey, stream: Int)] = []
    private var openOrderHead = 0
    private var nextStream = 1
    private var budget: Budget

    /// A reassembler with these limits (each raised to at least 1); the type's discussion says
    /// what happens at each.
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
    package var trackedConnections: Int { connections.count }

    /// Feeds one segment; `payload` is its captured payload (``TransportSegment/payload(in:)``).
    /// UDP segments are ignored. Events are passed to `emit` before this returns.
    package mutating func process(_ segment: TransportSegment, payload: UnsafeRawBufferPointer, _ emit: (Event) -> Void) {
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
