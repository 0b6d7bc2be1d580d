/// Finds the TCP streams and UDP flows of a capture and extracts one of them for replay.
///
/// ```
/// var extractor = StreamExtractor(keepingMessagesOf: 2)
/// let reader = try CaptureFileReader(path: "session.pcap")
/// while let record = try reader.next() { try extractor.add(record.header, record.bytes) }
/// let streams = extractor.finish()      // streams[1].messages holds stream 2's payload
/// ```
///
/// TCP goes through ``TCPReassembler`` (retransmissions dropped, out-of-order segments put back
/// in order, holes counted as missing bytes); who is the client follows its rules (the sender of
/// the SYN). A UDP flow is keyed by its 4-tuple in either direction and its client is the sender
/// of its first datagram. Streams are numbered as `capture --follow` numbers them.
///
/// Not errors: packets that are neither TCP nor UDP (ARP, ICMP, fragments …) are skipped, and
/// a capture with no stream at all gives an empty list (the caller says so).
///
/// Limits: ``maximumStreams`` streams are listed (the rest are counted in ``streamsNotListed``);
/// the kept streams hold at most `messageLimit` payload bytes together — beyond that ``add(_:_:)``
/// throws `.limitExceeded` — and the reassembler's own buffer limits apply.
public struct StreamExtractor {
    /// The most streams described; the rest are counted only.
    public static let maximumStreams = 100_000
    /// Payload bytes of the kept streams held in memory by default: 256 MiB.
    public static let defaultMessageLimit = 256 * 1024 * 1024

    private var reassembler = TCPReassembler()
    /// Everything but the reassembler, so the reassembler's callbacks can update it.
    private var catalog: Catalog

    /// `keepingMessagesOf`: the stream number (1-based) whose messages are kept, or nil for none.
    public init(keepingMessagesOf stream: Int?, messageLimit: Int = StreamExtractor.defaultMessageLimit) {
        catalog = Catalog(keeps: { $0 == stream }, describing: stream.map { "stream \($0) holds" } ?? "", messageLimit: max(0, messageLimit))
    }

    /// Keeps the messages of every stream whose number (1-based) `keeps` accepts (`loadtest
    /// --from-pcap` replays many); `messageLimit` bounds their payload together.
    public init(keepingMessagesWhere keeps: @escaping @Sendable (Int) -> Bool, messageLimit: Int = StreamExtractor.defaultMessageLimit) {
        catalog = Catalog(keeps: keeps, describing: "the streams kept hold", messageLimit: max(0, messageLimit))
    }

    /// The reassembler's counters (retransmissions, missing bytes …) over every stream.
    package var reassemblyStatistics: TCPReassembler.Statistics { reassembler.statistics }
    /// Streams beyond ``maximumStreams``, counted but not described.
    package var streamsNotListed: Int { catalog.streamsNotListed }
    /// Captured frames that held no TCP or UDP segment.
    package var otherPackets: Int { catalog.otherPackets }

    /// Feeds one captured frame.
    package mutating func add(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer) throws(PacketDecodingError) {
        catalog.packetNumber += 1
        let captured = UnsafeRawBufferPointer(rebasing: bytes[0..<max(0, min(bytes.count, header.capturedLength))])
        guard let segment = TransportSegment.parse(header, captured) else {
            catalog.otherPackets += 1
            return
        }
        let time = header.nanosecondsSinceEpoch
        let payload = segment.payload(in: captured)
        if segment.transport == .udp {
            try catalog.datagram(segment, payload: payload, time: time)
            return
        }
        var catalog = Catalog.empty
        swap(&catalog, &self.catalog)
        var failure: PacketDecodingError?
        reassembler.process(segment, payload: payload) { event in
            do throws(PacketDecodingError) {
                try catalog.handle(event, time: time)
            } catch {
                if failure == nil { failure = error }
            }
        }
        catalog.segmentSeen(segment, time: time)
        swap(&catalog, &self.catalog)
        if let failure { throw failure }
    }

    /// Ends every open stream (buffered data delivered, holes counted) and returns the streams.
    public mutating func finish() -> [RecordedStream] {
        var catalog = Catalog.empty
        swap(&catalog, &self.catalog)
        let time = catalog.streams.map(\.lastTime).max() ?? 0
        reassembler.finish { event in
            try? catalog.handle(event, time: time)
        }
        swap(&catalog, &self.catalog)
        return self.catalog.streams
    }
}

/// The streams found so far and the kept streams' messages.
private struct Catalog {
    /// Whether stream N's (1-based) messages are kept.
    let keeps: @Sendable (Int) -> Bool
    /// The start of the limit's error message: `stream 3 holds`.
    let describing: String
    let messageLimit: Int
    var keptBytes = 0
    var streams: [RecordedStream] = []
    /// Reassembler stream id → index into `streams`.
    var tcpStreams: [Int: Int] = [:]
    /// Canonical 4-tuple → index into `streams` of the latest stream on it.
    var current: [FlowKey: Int] = [:]
    /// Packet counter, so messages know which packet made them.
    var packetNumber = 0
    var lastMessagePacket = -1
    var streamsNotListed = 0
    var otherPackets = 0

    init(keeps: @escaping @Sendable (Int) -> Bool, describing: String, messageLimit: Int) {
        self.keeps = keeps
        self.describing = describing
        self.messageLimit = messageLimit
    }

    /// A placeholder swapped in while the real catalog is lent to the reassembler's callback.
    static var empty: Catalog { Catalog(keeps: { _ in false }, describing: "", messageLimit: 0) }

    mutating func datagram(_ segment: TransportSegment, payload: UnsafeRawBufferPointer, time: Int64) throws(PacketDecodingError) {
        let source = TCPReassembler.Endpoint(address: segment.source, port: segment.sourcePort)
        let destination = TCPReassembler.Endpoint(address: segment.destination, port: segment.destinationPort)
        let key = FlowKey(source, destination, .udp)
        var index = current[key]
        if index == nil {
            index = open(.udp, client: source, server: destination, time: time)
            if let index { current[key] = index }
        }
        guard let index else { return }
        let side: RecordedStream.Side = streams[index].client == source ? .client : .server
        count(index, side: side, time: time)
        addCounted(index, side: side, bytes: payload.count)
        try keep(index, side: side, payload, time: time)
    }

    /// Counts a TCP packet for its stream (after the reassembler has seen it, so a SYN has
    /// opened its stream already) and notes FINs.
    mutating func segmentSeen(_ segment: TransportSegment, time: Int64) {
        let source = TCPReassembler.Endpoint(address: segment.source, port: segment.sourcePort)
        let destination = TCPReassembler.Endpoint(address: segment.destination, port: segment.destinationPort)
        guard let index = current[FlowKey(source, destination, .tcp)] else { return }
        let side: RecordedStream.Side = streams[index].client == source ? .client : .server
        count(index, side: side, time: time)
        guard segment.flags.contains(.fin) else { return }
        if side == .client {
            if streams[index].clientCounters.finTime == nil { streams[index].clientCounters.finTime = time }
        } else if streams[index].serverCounters.finTime == nil {
            streams[index].serverCounters.finTime = time
        }
    }

    mutating func handle(_ event: TCPReassembler.Event, time: Int64) throws(PacketDecodingError) {
        switch event.kind {
        case .opened(let client, let server):
            guard let index = open(.tcp, client: client, server: server, time: time) else { return }
            tcpStreams[event.stream] = index
            current[FlowKey(client, server, .tcp)] = index
        case .data(let bytes):
            guard let index = tcpStreams[event.stream] else { return }
            let side: RecordedStream.Side = event.direction == .clientToServer ? .client : .server
            addCounted(index, side: side, bytes: bytes.count)
            try keep(index, side: side, bytes, time: time)
        case .gap(let missing):
            guard let index = tcpStreams[event.stream] else { return }
            if event.direction == .clientToServer {
                streams[index].clientCounters.missingBytes += missing
            } else {
                streams[index].serverCounters.missingBytes += missing
            }
            lastMessagePacket = -1
        case .closed(let reason):
            guard let index = tcpStreams.removeValue(forKey: event.stream) else { return }
            switch reason {
            case .finished: streams[index].end = .finished
            case .reset: streams[index].end = .reset(by: event.direction == .clientToServer ? .client : .server)
            case .reused, .evicted, .endOfCapture: break
            }
        }
    }

    /// A new stream's index, or nil past the listing limit.
    private mutating func open(_ transport: RecordedStream.Transport, client: TCPReassembler.Endpoint, server: TCPReassembler.Endpoint, time: Int64) -> Int? {
        guard streams.count < StreamExtractor.maximumStreams else {
            streamsNotListed += 1
            return nil
        }
        streams.append(RecordedStream(index: streams.count + 1, transport: transport, client: client, server: server, time: time))
        return streams.count - 1
    }

    private mutating func count(_ index: Int, side: RecordedStream.Side, time: Int64) {
        if side == .client {
            streams[index].clientCounters.packets += 1
        } else {
            streams[index].serverCounters.packets += 1
        }
        if time > streams[index].lastTime { streams[index].lastTime = time }
        if time < streams[index].firstTime { streams[index].firstTime = time }
    }

    private mutating func addCounted(_ index: Int, side: RecordedStream.Side, bytes: Int) {
        if side == .client {
            streams[index].clientCounters.bytes += bytes
        } else {
            streams[index].serverCounters.bytes += bytes
        }
    }

    private mutating func keep(_ index: Int, side: RecordedStream.Side, _ bytes: UnsafeRawBufferPointer, time: Int64) throws(PacketDecodingError) {
        guard keeps(index + 1), bytes.count > 0 || streams[index].transport == .udp else { return }
        keptBytes += bytes.count
        if keptBytes > messageLimit { throw PacketDecodingError(.limitExceeded, phase: .record, "\(describing) more than \(messageLimit) bytes of payload, more than replay keeps in memory") }
        if streams[index].transport == .tcp, lastMessagePacket == packetNumber, let last = streams[index].messages.last, last.side == side {
            streams[index].messages[streams[index].messages.count - 1].bytes.append(contentsOf: bytes)
        } else {
            streams[index].messages.append(RecordedStream.Message(time: time, side: side, bytes: Array(bytes)))
        }
        lastMessagePacket = packetNumber
    }
}

/// A 4-tuple in a canonical order plus the transport, so both directions find the same flow.
private struct FlowKey: Hashable {
    var low: TCPReassembler.Endpoint
    var high: TCPReassembler.Endpoint
    var transport: RecordedStream.Transport

    init(_ a: TCPReassembler.Endpoint, _ b: TCPReassembler.Endpoint, _ transport: RecordedStream.Transport) {
        low = min(a, b)
        high = max(a, b)
        self.transport = transport
    }
}
