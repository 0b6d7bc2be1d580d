/// libFuzzer target: ``TCPReassembler`` fed a fuzzer-chosen sequence of TCP segments, with an
/// oracle on the bytes it delivers.
///
/// Input layout: bytes 0–7 are the client's and the server's initial sequence numbers (so
/// streams wrap around 2³² when the fuzzer wants), then 6 bytes per segment:
///
/// ```
/// b0: bits 0–1 connection (0–3; connection 3's server port is 80), bit 2 server→client,
///     bit 3 far sequence number (offset << 16), bit 4 payload length × 16,
///     bit 5 wire length longer than captured (snap-length cut), bit 6 ACK flag forced
/// b1: TCP flags   b2–b3: sequence offset from the sender's ISN   b4: payload length
/// b5: acknowledgment offset (<< 8) from the peer's ISN, or the bytes cut when bit 5
/// ```
///
/// Every payload byte is the low byte of its own sequence number (plus 101 for the server's),
/// so a byte delivered out of place, twice, or from the other direction breaks the continuity
/// check. Limits are small (2 KiB per direction, 6000 bytes overall, 3 connections) so gaps
/// for full buffers and evictions happen. The target traps on: a stream whose first event is
/// not `opened`, or with events after `closed`; stream numbers not 1, 2, 3 … in order of
/// opening; a `data` chunk whose bytes do not continue the stream (its own bytes, and the
/// previous data chunk when no `gap` came between them); an empty data chunk or a gap ≤ 0;
/// `statistics.missingBytes` differing from the gaps reported; streams not closed or
/// connections still tracked after `finish`.
///
/// Built by fuzz/run.sh together with every Swift file under Sources/PacketDecoding (one module, no import).
enum ReassemblyFuzzer {
    struct StreamState {
        var closed = false
        /// Per direction (0 client→server, 1 server→client): the value the next delivered byte must have.
        var next: [UInt8?] = [nil, nil]
        var client: TCPReassembler.Endpoint
    }

    final class Oracle {
        var streams: [Int: StreamState] = [:]
        var lastStream = 0
        var gaps = 0

        func observe(_ event: TCPReassembler.Event) {
            let direction = event.direction == .clientToServer ? 0 : 1
            switch event.kind {
            case .opened(let client, _):
                guard streams[event.stream] == nil else { fatalError("stream \(event.stream) opened twice") }
                guard event.stream == lastStream + 1 else { fatalError("stream \(event.stream) opened after \(lastStream)") }
                lastStream = event.stream
                streams[event.stream] = StreamState(client: client)
                return
            default:
                break
            }
            guard var state = streams[event.stream] else { fatalError("event for unopened stream \(event.stream)") }
            guard !state.closed else { fatalError("event after close on stream \(event.stream)") }
            switch event.kind {
            case .opened:
                break
            case .data(let bytes):
                guard bytes.count > 0 else { fatalError("empty data event") }
                var expected = state.next[direction] ?? bytes[0]
                for byte in bytes {
                    guard byte == expected else {
                        fatalError("stream \(event.stream) dir \(direction): byte \(byte) where \(expected) belongs")
                    }
                    expected &+= 1
                }
                state.next[direction] = expected
            case .gap(let count):
                guard count > 0 else { fatalError("gap of \(count)") }
                gaps += count
                // Resynchronise: a FIN takes a sequence number but no byte, so data a peer sent
                // past its own FIN may follow a gap one short of the sequence distance.
                state.next[direction] = nil
            case .closed:
                state.closed = true
            }
            streams[event.stream] = state
        }
    }

    static let client = TransportSegment.Address.v4(0x0A00_0001)
    static let server = TransportSegment.Address.v4(0x0A00_0002)

    static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        guard size >= 8 else { return }
        func word(_ at: Int) -> UInt32 {
            UInt32(data[at]) << 24 | UInt32(data[at + 1]) << 16 | UInt32(data[at + 2]) << 8 | UInt32(data[at + 3])
        }
        let isn = [word(0), word(4)]
        var reassembler = TCPReassembler(maximumBufferedBytesPerDirection: 2048, maximumBufferedBytes: 6000, maximumConnections: 3)
        let oracle = Oracle()
        var payload = [UInt8](repeating: 0, count: 255 * 16)
        var offset = 8
        while offset + 6 <= size {
            let b0 = data[offset], flagsByte = data[offset + 1], b4 = data[offset + 4], b5 = data[offset + 5]
            let seqOffset = UInt32(data[offset + 2]) << 8 | UInt32(data[offset + 3])
            offset += 6
            let connection = Int(b0 & 3)
            let fromServer = b0 & 4 != 0
            let side = fromServer ? 1 : 0
            var flags = TransportSegment.TCPFlags(rawValue: flagsByte)
            if b0 & 0x40 != 0 { flags.insert(.ack) }
            let sequence = isn[side] &+ (b0 & 8 != 0 ? seqOffset << 16 : seqOffset)
            let captured = Int(b4) * (b0 & 0x10 != 0 ? 16 : 1)
            let wire = b0 & 0x20 != 0 ? captured + Int(b5) : captured
            let acknowledgment = isn[1 - side] &+ (b0 & 0x20 != 0 ? 0 : UInt32(b5) << 8)
            // Byte i sits at sequence number sequence (+1 after a SYN) + i.
            let first = sequence &+ (flags.contains(.syn) ? 1 : 0) &+ UInt32(side * 101)
            for i in 0..<captured { payload[i] = UInt8(truncatingIfNeeded: first &+ UInt32(i)) }

            let clientPort = UInt16(40000 + connection)
            let serverPort: UInt16 = connection == 3 ? 80 : 6969
            let segment = TransportSegment(
                ipVersion: 4, source: fromServer ? server : client, destination: fromServer ? client : server,
                transport: .tcp, sourcePort: fromServer ? serverPort : clientPort,
                destinationPort: fromServer ? clientPort : serverPort,
                sequenceNumber: sequence, acknowledgmentNumber: acknowledgment, flags: flags, window: 512,
                payloadRange: 0..<captured, payloadLength: wire)
            payload.withUnsafeBytes { bytes in
                reassembler.process(segment, payload: UnsafeRawBufferPointer(rebasing: bytes[0..<captured])) { event in
                    oracle.observe(event)
                }
            }
        }
        reassembler.finish { event in
            oracle.observe(event)
        }
        guard reassembler.trackedConnections == 0 else { fatalError("\(reassembler.trackedConnections) connections after finish") }
        for (stream, state) in oracle.streams where !state.closed { fatalError("stream \(stream) never closed") }
        guard reassembler.statistics.missingBytes == oracle.gaps else {
            fatalError("statistics say \(reassembler.statistics.missingBytes) missing bytes, gaps said \(oracle.gaps)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReassembly(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ReassemblyFuzzer.run(data, size)
    return 0
}
