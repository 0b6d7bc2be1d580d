/// Packet by packet (`capture --decode`, `--json`): the ``ConnectionViews`` of every TCP
/// connection seen, fed each segment's payload in sequence order, so that every segment can
/// say which records and frames start in it.
///
/// There is no reassembly here (`--follow` reassembles first): a retransmission is not decoded
/// twice (only the bytes past what was seen are), and a gap — a segment beyond the next
/// expected byte, or a payload cut by the snapshot length — counts as missing bytes for that
/// direction (``ConnectionViews/gap(side:next:emit:)``). A FIN ends its direction
/// (``ConnectionViews/end(side:emit:)``: an HTTP/1.1 body that runs until close).
///
/// Limits: at most ``maximumConnections`` connections are followed (the table is emptied when
/// it is full); each holds at most 8 KiB of one TLS handshake record, or one frame header and
/// the payload limit, per direction — 256 MiB for a capture built to fill every one — except
/// HTTP/2, whose directions also hold a header frame's payload and one header block (64 KiB
/// each at most), an HPACK table (4 KiB unless the peer's SETTINGS allow more, 64 KiB at most)
/// and 64 gRPC message previews of 256 bytes: filled only by the header bytes the capture
/// itself carries.
package struct ApplicationViewTracker {
    package let views: ProtocolViews
    package let payloadLimit: Int
    /// `--keylog`: TLS connections are decrypted with these secrets.
    package let keys: TLSKeyStore?
    package static let maximumConnections = 16_384

    /// A connection, the same from either direction: the lower (address, port) end first.
    private struct ConnectionKey: Hashable {
        var low: TransportSegment.Address
        var high: TransportSegment.Address
        var ports: UInt32
    }

    private struct Connection {
        var views: ConnectionViews
        /// The next sequence number expected from each side (nil: none seen yet).
        var next: [UInt32?] = [nil, nil]
    }

    private var connections: [ConnectionKey: Connection] = [:]

    /// `payloadLimit`: WebSocket payload bytes shown per frame.
    package init(views: ProtocolViews, payloadLimit: Int = 64, keys: TLSKeyStore? = nil) {
        self.views = views
        self.payloadLimit = payloadLimit
        self.keys = keys
    }

    /// The items that start in this segment, in order (nothing for UDP or when no view is on).
    package mutating func items(for segment: TransportSegment, payload: UnsafeRawBufferPointer) -> [ViewItem] {
        guard !views.isEmpty, segment.transport == .tcp else { return [] }
        let forward = (segment.source, segment.sourcePort) < (segment.destination, segment.destinationPort)
        let side = forward ? 0 : 1
        let key = forward
            ? ConnectionKey(low: segment.source, high: segment.destination, ports: UInt32(segment.sourcePort) << 16 | UInt32(segment.destinationPort))
            : ConnectionKey(low: segment.destination, high: segment.source, ports: UInt32(segment.destinationPort) << 16 | UInt32(segment.sourcePort))
        if segment.flags.contains(.rst) {
            connections[key] = nil
            return []
        }
        var connection: Connection
        if let known = connections[key], !(segment.flags.contains(.syn) && !segment.flags.contains(.ack)) {
            connection = known
        } else {
            if connections.count >= Self.maximumConnections { connections.removeAll() }
            connection = Connection(views: ConnectionViews(views: views, payloadLimit: payloadLimit, keys: keys))
            connection.views.joinedLate = !segment.flags.contains(.syn)
        }
        if segment.flags.contains(.syn) {
            connection.next[side] = segment.sequenceNumber &+ 1
            connections[key] = connection
            return []
        }
        guard segment.payloadLength > 0 else {
            var items: [ViewItem] = []
            if segment.flags.contains(.fin) { connection.views.end(side: side) { items.append($0) } }
            connections[key] = connection
            return items
        }
        var items: [ViewItem] = []
        func emit(_ item: ViewItem) { items.append(item) }
        var bytes = payload
        let expected = connection.next[side] ?? segment.sequenceNumber
        let offset = Int32(bitPattern: segment.sequenceNumber &- expected)
        if offset < 0 {
            let seen = Int(-Int64(offset))
            guard seen < bytes.count else { return [] }  // a retransmission of what was decoded
            bytes = UnsafeRawBufferPointer(rebasing: bytes[seen...])
        } else if offset > 0 {
            connection.views.gap(side: side, next: bytes, emit: emit)
        }
        connection.next[side] = segment.sequenceNumber &+ UInt32(truncatingIfNeeded: segment.payloadLength)
        connection.views.consume(bytes, side: side, emit: emit)
        if segment.isPayloadTruncated {
            connection.views.gap(side: side, next: UnsafeRawBufferPointer(start: nil, count: 0), emit: emit)
        }
        if segment.flags.contains(.fin) { connection.views.end(side: side, emit: emit) }
        connections[key] = connection
        return items
    }
}
