import Testing
import PacketDecoding
import TestSupport

/// Builds the frames of one TCP conversation between a client (10.0.0.1.40000) and a server
/// (10.0.0.2.80) on the raw-IPv4 link type, parsed back through ``TransportSegment/parse(_:_:)``.
struct SegmentFrames {
    static let client: [UInt8] = [10, 0, 0, 1]
    static let server: [UInt8] = [10, 0, 0, 2]

    /// An IPv4 + TCP frame; `wireExtra` bytes of payload exist on the wire but were not captured.
    static func tcp(
        fromClient: Bool = true, seq: UInt32, ack: UInt32 = 0, flags: UInt8 = 0x18, payload: [UInt8] = [], wireExtra: Int = 0,
        sourcePort: UInt16 = 40000, destinationPort: UInt16 = 80
    ) -> [UInt8] {
        let totalLength = 40 + payload.count + wireExtra
        var frame: [UInt8] = [0x45, 0x00, UInt8(totalLength >> 8), UInt8(totalLength & 0xFF), 0x00, 0x01, 0x40, 0x00, 64, 6, 0, 0]
        frame += fromClient ? client + server : server + client
        let (sport, dport) = fromClient ? (sourcePort, destinationPort) : (destinationPort, sourcePort)
        frame += [UInt8(sport >> 8), UInt8(sport & 0xFF), UInt8(dport >> 8), UInt8(dport & 0xFF)]
        frame += bigEndian(seq) + bigEndian(ack)
        frame += [0x50, flags, 0x02, 0x00, 0, 0, 0, 0]
        return frame + payload
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func header(_ frame: [UInt8], wireExtra: Int = 0, linkType: LinkType = .ipv4) -> PacketHeader {
        PacketHeader(seconds: 1_795_341_600, fraction: 123_456, precision: .microseconds,
                     capturedLength: frame.count, originalLength: frame.count + wireExtra, linkType: linkType)
    }
}

/// Feeds frames to a reassembler and writes its events as short lines: `open 10.0.0.1.40000 >
/// 10.0.0.2.80`, `1 > hello` (client to server), `1 < text` (server to client), `1 > gap 5`,
/// `1 closed finished`.
private struct Recorder {
    var reassembler: TCPReassembler
    var lines: [String] = []

    init(_ reassembler: TCPReassembler = TCPReassembler()) {
        self.reassembler = reassembler
    }

    mutating func feed(_ frame: [UInt8], wireExtra: Int = 0) {
        let header = SegmentFrames.header(frame, wireExtra: wireExtra)
        var collected: [String] = []
        frame.withUnsafeBytes { bytes in
            guard let segment = TransportSegment.parse(header, bytes) else {
                collected.append("unparsed")
                return
            }
            reassembler.process(segment, payload: segment.payload(in: bytes)) { collected.append(Self.describe($0)) }
        }
        lines += collected
    }

    mutating func finish() {
        var collected: [String] = []
        reassembler.finish { collected.append(Self.describe($0)) }
        lines += collected
    }

    static func describe(_ event: TCPReassembler.Event) -> String {
        let arrow = event.direction == .clientToServer ? ">" : "<"
        switch event.kind {
        case .opened(let client, let server): return "open \(event.stream) \(client) > \(server)"
        case .data(let bytes): return "\(event.stream) \(arrow) \(String(decoding: bytes, as: UTF8.self))"
        case .gap(let count): return "\(event.stream) \(arrow) gap \(count)"
        case .closed(let reason): return "\(event.stream) closed \(reason) \(arrow)"
        }
    }
}

private let syn: UInt8 = 0x02, synAck: UInt8 = 0x12, ack: UInt8 = 0x10, push: UInt8 = 0x18, finAck: UInt8 = 0x11, rst: UInt8 = 0x04

@Suite(.hangGuard) struct TCPReassemblerTests {
    private func handshake(_ recorder: inout Recorder, client: UInt32 = 1000, server: UInt32 = 5000) {
        recorder.feed(SegmentFrames.tcp(seq: client, flags: syn))
        recorder.feed(SegmentFrames.tcp(fromClient: false, seq: server, ack: client &+ 1, flags: synAck))
        recorder.feed(SegmentFrames.tcp(seq: client &+ 1, ack: server &+ 1, flags: ack))
    }

    @Test func inOrderConversationIsDeliveredAndClosedByFINs() {
        var recorder = Recorder()
        handshake(&recorder)
        recorder.feed(SegmentFrames.tcp(seq: 1001, ack: 5001, payload: Array("hello".utf8)))
        recorder.feed(SegmentFrames.tcp(fromClient: false, seq: 5001, ack: 1006, payload: Array("world".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: 1006, ack: 5006, flags: finAck))
        recorder.feed(SegmentFrames.tcp(fromClient: false, seq: 5006, ack: 1007, flags: finAck))
        recorder.feed(SegmentFrames.tcp(seq: 1007, ack: 5007, flags: ack))  // the last ACK opens nothing
        recorder.finish()
        #expect(recorder.lines == [
            "open 1 10.0.0.1.40000 > 10.0.0.2.80",
            "1 > hello",
            "1 < world",
            "1 closed finished >",
        ])
    }

    @Test func retransmittedSegmentIsDroppedAndCounted() {
        var recorder = Recorder()
        handshake(&recorder)
        let segment = SegmentFrames.tcp(seq: 1001, ack: 5001, payload: Array("once".utf8))
        recorder.feed(segment)
        recorder.feed(segment)
        recorder.feed(SegmentFrames.tcp(seq: 1005, ack: 5001, payload: Array(" only".utf8)))
        #expect(recorder.lines.dropFirst() == ["1 > once", "1 >  only"])
        #expect(recorder.reassembler.statistics.duplicateSegments == 1)
    }

    @Test func outOfOrderSegmentWaitsForTheBytesBeforeIt() {
        var recorder = Recorder()
        handshake(&recorder)
        recorder.feed(SegmentFrames.tcp(seq: 1006, ack: 5001, payload: Array("world".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: 1011, ack: 5001, payload: Array("!".utf8)))
        #expect(recorder.lines.count == 1)  // nothing delivered yet
        recorder.feed(SegmentFrames.tcp(seq: 1001, ack: 5001, payload: Array("hello".utf8)))
        #expect(recorder.lines.dropFirst() == ["1 > hello", "1 > world", "1 > !"])
    }

    @Test func overlappingBytesKeepWhatArrivedFirst() {
        var recorder = Recorder()
        handshake(&recorder)
        recorder.feed(SegmentFrames.tcp(seq: 1001, ack: 5001, payload: Array("abcd".utf8)))
        // Overlaps the delivered "cd" with different bytes, adds "ef".
        recorder.feed(SegmentFrames.tcp(seq: 1003, ack: 5001, payload: Array("XXef".utf8)))
        // Buffered ahead: "ij" at 1009; then "ghYY" at 1007 overlaps it with "YY".
        recorder.feed(SegmentFrames.tcp(seq: 1009, ack: 5001, payload: Array("ij".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: 1007, ack: 5001, payload: Array("ghYY".utf8)))
        let text = recorder.lines.dropFirst().map { String($0.dropFirst(4)) }.joined()
        #expect(text == "abcdefghij")
    }

    @Test func missingBytesBecomeAGapWhenThePeerAcknowledgesPastThem() {
        var recorder = Recorder()
        handshake(&recorder)
        recorder.feed(SegmentFrames.tcp(seq: 1001, ack: 5001, payload: Array("head".utf8)))
        // 1005..<1015 never captured; the next segment is buffered until the server's ACK shows
        // it received everything (so no retransmission will come).
        recorder.feed(SegmentFrames.tcp(seq: 1015, ack: 5001, payload: Array("tail".utf8)))
        #expect(recorder.lines.dropFirst() == ["1 > head"])
        recorder.feed(SegmentFrames.tcp(fromClient: false, seq: 5001, ack: 1019, flags: ack))
        #expect(recorder.lines.dropFirst() == ["1 > head", "1 > gap 10", "1 > tail"])
        #expect(recorder.reassembler.statistics.missingBytes == 10)
    }

    @Test func missingBytesAtTheEndOfTheCaptureAreReportedByFinish() {
        var recorder = Recorder()
        handshake(&recorder)
        recorder.feed(SegmentFrames.tcp(seq: 1011, ack: 5001, payload: Array("late".utf8)))
        recorder.finish()
        #expect(recorder.lines.dropFirst() == ["1 > gap 10", "1 > late", "1 closed endOfCapture >"])
    }

    @Test func finAfterAHoleReportsTheHoleWhenTheConnectionEnds() {
        var recorder = Recorder()
        handshake(&recorder)
        recorder.feed(SegmentFrames.tcp(seq: 1001, ack: 5001, payload: Array("ab".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: 1008, ack: 5001, flags: finAck))  // 1003..<1008 missing
        recorder.feed(SegmentFrames.tcp(fromClient: false, seq: 5001, ack: 1003, flags: finAck))
        #expect(recorder.lines.dropFirst() == ["1 > ab"])
        recorder.finish()
        #expect(recorder.lines.dropFirst() == ["1 > ab", "1 > gap 5", "1 closed finished >"])
    }

    @Test func sequenceNumbersWrapAroundModulo2To32() {
        var recorder = Recorder()
        handshake(&recorder, client: 0xFFFF_FFFD)  // data starts at 0xFFFFFFFE
        recorder.feed(SegmentFrames.tcp(seq: 0xFFFF_FFFE, ack: 5001, payload: Array("wrap".utf8)))  // ends at 2
        recorder.feed(SegmentFrames.tcp(seq: 6, ack: 5001, payload: Array("!".utf8)))  // after a hole at 2..<6
        recorder.feed(SegmentFrames.tcp(seq: 2, ack: 5001, payload: Array("ping".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: 0xFFFF_FFFE, ack: 5001, payload: Array("wrap".utf8)))  // retransmission
        #expect(recorder.lines.dropFirst() == ["1 > wrap", "1 > ping", "1 > !"])
        #expect(recorder.reassembler.statistics.duplicateSegments == 1)
    }

    @Test func resetClosesTheStreamAndFlushesBufferedData() {
        var recorder = Recorder()
        handshake(&recorder)
        recorder.feed(SegmentFrames.tcp(seq: 1001, ack: 5001, payload: Array("a".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: 1004, ack: 5001, payload: Array("d".utf8)))
        recorder.feed(SegmentFrames.tcp(fromClient: false, seq: 5001, ack: 0, flags: rst))
        recorder.feed(SegmentFrames.tcp(seq: 1005, ack: 5001, payload: Array("ignored".utf8)))
        #expect(recorder.lines.dropFirst() == ["1 > a", "1 > gap 2", "1 > d", "1 closed reset <"])
    }

    @Test func aNewSYNOnTheSameFourTupleOpensANewStream() {
        var recorder = Recorder()
        handshake(&recorder)
        recorder.feed(SegmentFrames.tcp(seq: 1001, ack: 5001, payload: Array("one".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: 1000, flags: syn))  // retransmitted SYN: same stream
        handshake(&recorder, client: 90_000, server: 70_000)
        recorder.feed(SegmentFrames.tcp(seq: 90_001, ack: 70_001, payload: Array("two".utf8)))
        #expect(recorder.lines == [
            "open 1 10.0.0.1.40000 > 10.0.0.2.80", "1 > one", "1 closed reused >",
            "open 2 10.0.0.1.40000 > 10.0.0.2.80", "2 > two",
        ])
    }

    @Test func captureStartingMidStreamTakesTheLowPortAsTheServer() {
        var recorder = Recorder()
        // The first captured segment is the server's reply; the handshake was missed.
        recorder.feed(SegmentFrames.tcp(fromClient: false, seq: 7000, ack: 300, payload: Array("reply".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: 300, ack: 7005, payload: Array("next".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: 304, ack: 7005, flags: ack))  // pure ACK: nothing
        #expect(recorder.lines == ["open 1 10.0.0.1.40000 > 10.0.0.2.80", "1 < reply", "1 > next"])
    }

    /// Found by the fuzzer: a SYN seen after the direction already delivered bytes (capture
    /// started mid-stream, the SYN arrived late) used to move the stream back and repeat them.
    @Test func lateSYNDoesNotRewindADirectionThatAlreadyDelivered() {
        var recorder = Recorder()
        recorder.feed(SegmentFrames.tcp(seq: 1001, payload: Array("hello".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: 1000, flags: syn | ack, payload: Array("hel".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: 1006, payload: Array("world".utf8)))
        #expect(recorder.lines == ["open 1 10.0.0.1.40000 > 10.0.0.2.80", "1 > hello", "1 > world"])
    }

    /// Found by the fuzzer: bytes buffered past a FIN were delivered once the hole before them
    /// closed, as if the stream went on after its end. They are dropped and counted instead.
    @Test func bytesPastTheFINAreDroppedAndCounted() {
        var recorder = Recorder()
        handshake(&recorder)
        recorder.feed(SegmentFrames.tcp(seq: 1006, ack: 5001, payload: Array("late".utf8)))  // ahead: buffered
        recorder.feed(SegmentFrames.tcp(seq: 1001, ack: 5001, flags: finAck, payload: Array("bye".utf8)))  // FIN at 1004
        recorder.feed(SegmentFrames.tcp(seq: 1004, ack: 5001, flags: push | 0x01, payload: Array("xyz".utf8)))  // past the FIN
        recorder.feed(SegmentFrames.tcp(fromClient: false, seq: 5001, ack: 1005, flags: finAck))
        #expect(recorder.lines == ["open 1 10.0.0.1.40000 > 10.0.0.2.80", "1 > bye", "1 closed finished >"])
        #expect(recorder.reassembler.statistics.bytesAfterFIN == 7)
        #expect(recorder.reassembler.statistics.missingBytes == 0)
    }

    /// Found by the fuzzer: modulo 2³², bytes 2³¹ or more ahead of the next expected one are
    /// behind it. A segment reaching across that edge used to buffer its tail as the *first*
    /// piece, which was then delivered before the bytes ahead of it, with no gap.
    @Test func bytesTwoToThe31OrMoreAheadAreNotPlacedInTheStream() {
        var recorder = Recorder()
        handshake(&recorder)
        recorder.feed(SegmentFrames.tcp(seq: 1001, ack: 5001, payload: Array("hello".utf8)))  // next: 1006
        let edge: UInt32 = 1006 &+ 0x8000_0000  // the first sequence number 2³¹ ahead
        recorder.feed(SegmentFrames.tcp(seq: edge &- 2, ack: 5001, payload: Array("ab".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: edge &- 2, ack: 5001, payload: Array("abcd".utf8)))  // "cd" at the edge
        recorder.finish()
        #expect(recorder.lines.dropFirst() == ["1 > hello", "1 > gap 2147483646", "1 > ab", "1 closed endOfCapture >"])
        #expect(recorder.reassembler.statistics.bytesBeyondWindow == 2)
    }

    /// Same edge for a FIN: one 2³¹ or more ahead is behind the stream, and taking it ended the
    /// stream before bytes that were still to come.
    @Test func aFINTwoToThe31OrMoreAheadDoesNotEndTheStream() {
        var recorder = Recorder()
        handshake(&recorder)
        recorder.feed(SegmentFrames.tcp(seq: 1001, ack: 5001, payload: Array("hello".utf8)))
        recorder.feed(SegmentFrames.tcp(seq: 1006 &+ 0x8000_0010, ack: 5001, flags: finAck))
        recorder.feed(SegmentFrames.tcp(seq: 1006, ack: 5001, payload: Array("world".utf8)))
        #expect(recorder.lines.dropFirst() == ["1 > hello", "1 > world"])
        #expect(recorder.reassembler.statistics.bytesAfterFIN == 0)
    }

    @Test func pureACKsOfUnknownConnectionsOpenNothing() {
        var recorder = Recorder()
        recorder.feed(SegmentFrames.tcp(seq: 1, ack: 2, flags: ack))
        recorder.feed(SegmentFrames.tcp(seq: 1, ack: 2, flags: finAck))
        recorder.feed(SegmentFrames.tcp(seq: 1, ack: 2, flags: rst))
        recorder.finish()
        #expect(recorder.lines.isEmpty)
    }

    @Test func payloadCutByTheSnapLengthIsAGap() {
        var recorder = Recorder()
        handshake(&recorder)
        // 3 bytes captured of 8 on the wire.
        recorder.feed(SegmentFrames.tcp(seq: 1001, ack: 5001, payload: Array("abc".utf8), wireExtra: 5), wireExtra: 5)
        recorder.feed(SegmentFrames.tcp(seq: 1009, ack: 5001, payload: Array("z".utf8)))
        #expect(recorder.lines.dropFirst() == ["1 > abc", "1 > gap 5", "1 > z"])
    }

    @Test func bufferLimitForcesTheHoleOutAsAGap() {
        var recorder = Recorder(TCPReassembler(maximumBufferedBytesPerDirection: 200))
        handshake(&recorder)
        // 1001..<1011 never arrives; 100-byte segments pile up behind it (each costs 164).
        recorder.feed(SegmentFrames.tcp(seq: 1011, ack: 5001, payload: Array(repeating: 0x61, count: 100)))
        #expect(recorder.lines.count == 1)
        recorder.feed(SegmentFrames.tcp(seq: 1111, ack: 5001, payload: Array(repeating: 0x62, count: 100)))
        #expect(recorder.lines.dropFirst() == [
            "1 > gap 10", "1 > " + String(repeating: "a", count: 100), "1 > " + String(repeating: "b", count: 100),
        ])
    }

    @Test func oldestConnectionIsEvictedBeyondTheLimit() {
        var recorder = Recorder(TCPReassembler(maximumConnections: 2))
        for port: UInt16 in [41000, 41001, 41002] {
            recorder.feed(SegmentFrames.tcp(seq: 1, flags: push, payload: Array("x".utf8), sourcePort: port, destinationPort: 6969))
        }
        #expect(recorder.lines == [
            "open 1 10.0.0.1.41000 > 10.0.0.2.6969", "1 > x",
            "open 2 10.0.0.1.41001 > 10.0.0.2.6969", "2 > x",
            "1 closed evicted >",
            "open 3 10.0.0.1.41002 > 10.0.0.2.6969", "3 > x",
        ])
        #expect(recorder.reassembler.trackedConnections == 2)
        #expect(recorder.reassembler.statistics.evictedConnections == 1)
    }

    @Test func everyPrefixOfAFrameIsHandledWithoutTrapping() {
        let frame = SegmentFrames.tcp(seq: 1, payload: Array("payload".utf8))
        for length in 0...frame.count {
            let prefix = Array(frame.prefix(length))
            let header = PacketHeader(seconds: 0, fraction: 0, precision: .microseconds, capturedLength: length, originalLength: frame.count, linkType: .ipv4)
            let segment = prefix.withUnsafeBytes { TransportSegment.parse(header, $0) }
            if length < 40 {
                #expect(segment == nil)
            } else {
                #expect(segment?.payloadRange == 40..<length)
                #expect(segment?.payloadLength == 7)
                #expect(segment?.isPayloadTruncated == (length < frame.count))
            }
        }
    }
}
