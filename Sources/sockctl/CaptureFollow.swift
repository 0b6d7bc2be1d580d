import NIOCore
import PacketDecoding
import SocketEngine

/// `capture --follow`: the payload of every TCP stream, reassembled in order, and of every UDP
/// flow, with one header line per stream and a direction marker on every chunk.
///
/// Without `--framing` (TCP), a marker line starts each run of bytes in one direction; text
/// follows as it is, anything else as a `-X` style hex dump whose offsets count the bytes of
/// that direction:
///
/// ```
/// == stream 1: 127.0.0.1.41234 > 127.0.0.1.6969 (tcp)
/// [1] >>
/// GET / HTTP/1.1
/// Host: x
///
/// [1] <<
/// 	0x0000:  0001 0203 ff                             .....
/// [1] >> [... 1234 bytes missing ...]
/// == stream 1 end: FIN
/// ```
///
/// `>>` is client → server (the client sent the SYN; see ``TCPReassembler`` for captures that
/// start mid-stream), `<<` server → client, and `[1]` the stream number shown in its `==` line.
/// With `--framing F` (and always for UDP, where a datagram is a message) every message is one
/// marker-prefixed line: `[1] >> {"a":1}` — JSON objects and arrays pretty-printed over several
/// lines (two-space indent), other text with CR, LF, tab and other control characters written as
/// `\r`, `\n`, `\t`, `\xHH`, and messages that are not UTF-8 text as `[1] >> N bytes` and a hex
/// dump. A gap flushes an incomplete message first; a framing error (a frame over 1 MiB, a bad
/// length) is reported and the rest of that direction is shown as without `--framing`.
///
/// What a text chunk is: valid UTF-8 with no control characters other than tab, LF, and CR
/// before LF or at the chunk's end; it is written unchanged, so raw output never sends escape
/// sequences to a terminal. Stream ends: `FIN`, `RST from client|server`, `4-tuple reused`,
/// `evicted (too many connections)`, `capture ended`.
///
/// Limits: the reassembler's (4 MiB per direction, 64 MiB in all, 65536 connections); one
/// incomplete message of at most ``maximumMessageSize`` per direction; UDP flows are numbered
/// from a table of at most 65536 entries, cleared when full (a flow seen again then gets a new
/// number and header line).
struct CaptureFollower {
    /// The largest message `--framing` shows as one; longer ones are a framing error.
    static let maximumMessageSize = 1 << 20
    /// The most UDP flows remembered for numbering.
    static let maximumUDPFlows = 65_536

    private var reassembler = TCPReassembler()
    private var printer: StreamPrinter

    init(framing: Framing?) {
        printer = StreamPrinter(framing: framing)
    }

    /// Appends whatever this packet completes (often nothing, for out-of-order segments).
    mutating func packet(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let captured = UnsafeRawBufferPointer(rebasing: bytes[0..<max(0, min(bytes.count, header.capturedLength))])
        guard let segment = TransportSegment.parse(header, captured) else { return }
        let payload = segment.payload(in: captured)
        if segment.transport == .udp {
            printer.datagram(segment, payload: payload, into: &out)
            return
        }
        // The printer is moved out while the reassembler calls back into it (exclusive access).
        var printer = StreamPrinter(framing: nil)
        swap(&printer, &self.printer)
        reassembler.process(segment, payload: payload) { printer.handle($0, into: &out) }
        swap(&printer, &self.printer)
    }

    /// Ends every open stream (incomplete messages and buffered data are printed, holes as gaps).
    mutating func finish(into out: inout [UInt8]) {
        var printer = StreamPrinter(framing: nil)
        swap(&printer, &self.printer)
        reassembler.finish { printer.handle($0, into: &out) }
        swap(&printer, &self.printer)
        printer.endLine(into: &out)
    }

    /// What reassembly could not show as stream bytes, for stderr after the streams:
    /// `follow: 3 bytes missing, 2 retransmitted segments dropped, 4 bytes after FIN ignored`;
    /// nil when every captured byte was shown once.
    var summary: String? {
        let statistics = reassembler.statistics
        var parts: [String] = []
        if statistics.missingBytes > 0 { parts.append("\(statistics.missingBytes) byte\(statistics.missingBytes == 1 ? "" : "s") missing") }
        if statistics.duplicateSegments > 0 {
            parts.append("\(statistics.duplicateSegments) retransmitted segment\(statistics.duplicateSegments == 1 ? "" : "s") dropped")
        }
        if statistics.bytesAfterFIN > 0 { parts.append("\(statistics.bytesAfterFIN) byte\(statistics.bytesAfterFIN == 1 ? "" : "s") after FIN ignored") }
        if statistics.bytesBeyondWindow > 0 {
            parts.append("\(statistics.bytesBeyondWindow) byte\(statistics.bytesBeyondWindow == 1 ? "" : "s") beyond the sequence window ignored")
        }
        if statistics.evictedConnections > 0 {
            parts.append("\(statistics.evictedConnections) connection\(statistics.evictedConnections == 1 ? "" : "s") evicted (too many open)")
        }
        return parts.isEmpty ? nil : "follow: " + parts.joined(separator: ", ")
    }
}

/// Turns reassembler events and UDP datagrams into text.
private struct StreamPrinter {
    let framing: Framing?
    /// Stream numbers shown to the user: TCP (by reassembler stream) and UDP share one sequence.
    private var nextNumber = 1
    private var tcpStreams: [Int: StreamState] = [:]
    private var udpFlows: [UDPFlowKey: UDPFlow] = [:]
    /// The stream and direction the last raw chunk belonged to (nil: print a marker first).
    private var lastChunk: (number: Int, direction: TCPReassembler.Direction)?
    /// The output so far ends with a newline (or is empty).
    private var atLineStart = true

    init(framing: Framing?) {
        self.framing = framing.flatMap { $0 == .raw ? nil : $0 }
    }

    // MARK: TCP events

    mutating func handle(_ event: TCPReassembler.Event, into out: inout [UInt8]) {
        switch event.kind {
        case .opened(let client, let server):
            let number = nextNumber
            nextNumber += 1
            tcpStreams[event.stream] = StreamState(number: number, framing: framing)
            endLine(into: &out)
            out += "== stream \(number): \(client) > \(server) (tcp)\n".utf8
            atLineStart = true
        case .data(let bytes):
            guard var state = tcpStreams.removeValue(forKey: event.stream) else { return }
            if state.directions[event.direction.index].decoder != nil {
                state.directions[event.direction.index].feed(bytes)
                drainMessages(&state, event.direction, atEnd: false, into: &out)
            } else {
                appendChunk(bytes, number: state.number, direction: event.direction, offset: state.directions[event.direction.index].offset, into: &out)
            }
            state.directions[event.direction.index].offset += bytes.count
            tcpStreams[event.stream] = state
        case .gap(let count):
            guard var state = tcpStreams.removeValue(forKey: event.stream) else { return }
            drainMessages(&state, event.direction, atEnd: true, into: &out)
            state.directions[event.direction.index].offset += count
            appendMarker(state.number, event.direction, into: &out)
            out += " [... \(count) bytes missing ...]\n".utf8
            atLineStart = true
            lastChunk = nil
            tcpStreams[event.stream] = state
        case .closed(let reason):
            guard var state = tcpStreams.removeValue(forKey: event.stream) else { return }
            drainMessages(&state, .clientToServer, atEnd: true, into: &out)
            drainMessages(&state, .serverToClient, atEnd: true, into: &out)
            endLine(into: &out)
            let why: String
            switch reason {
            case .finished: why = "FIN"
            case .reset: why = event.direction == .clientToServer ? "RST from client" : "RST from server"
            case .reused: why = "4-tuple reused"
            case .evicted: why = "evicted (too many connections)"
            case .endOfCapture: why = "capture ended"
            }
            out += "== stream \(state.number) end: \(why)\n".utf8
            atLineStart = true
            lastChunk = nil
        }
    }

    /// A raw (unframed) chunk: a marker when the stream or direction changed, then text or hex.
    private mutating func appendChunk(
        _ bytes: UnsafeRawBufferPointer, number: Int, direction: TCPReassembler.Direction, offset: Int, into out: inout [UInt8]
    ) {
        let continuing = lastChunk.map { $0.number == number && $0.direction == direction } ?? false
        if MessageText.isText(bytes) {
            if !continuing {
                appendMarker(number, direction, into: &out)
                out.append(0x0A)
            }
            MessageText.appendText(bytes, into: &out)
            atLineStart = out.last == 0x0A
        } else {
            if !continuing {
                appendMarker(number, direction, into: &out)
            } else {
                endLine(into: &out)
                out.removeLast()  // the dump starts its own line
            }
            HexDump.appendHexAndASCII(bytes, offset: offset, into: &out)
            out.append(0x0A)
            atLineStart = true
        }
        lastChunk = (number, direction)
    }

    /// Prints every whole message buffered for one direction (at the end: the incomplete rest too).
    private mutating func drainMessages(_ state: inout StreamState, _ direction: TCPReassembler.Direction, atEnd: Bool, into out: inout [UInt8]) {
        let index = direction.index
        guard state.directions[index].decoder != nil else { return }
        while true {
            switch state.directions[index].next(atEnd: atEnd) {
            case .message(let message):
                message.withUnsafeReadableBytes { appendMessage($0, number: state.number, direction: direction, into: &out) }
            case .needMore:
                if atEnd { state.directions[index].reset(framing: framing) }
                return
            case .failed(let error, let rest):
                appendMarker(state.number, direction, into: &out)
                if atEnd, error.code == .truncatedFrame {
                    out += " [incomplete message: \(error.message)]\n".utf8
                    state.directions[index].reset(framing: framing)
                } else {
                    out += " [framing error: \(error.message); the rest of this direction is shown unframed]\n".utf8
                    state.directions[index].decoder = nil
                }
                atLineStart = true
                if rest.readableBytes > 0 {
                    rest.withUnsafeReadableBytes { appendMessage($0, number: state.number, direction: direction, into: &out) }
                }
                return
            }
        }
    }

    // MARK: UDP

    mutating func datagram(_ segment: TransportSegment, payload: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let source = TCPReassembler.Endpoint(address: segment.source, port: segment.sourcePort)
        let destination = TCPReassembler.Endpoint(address: segment.destination, port: segment.destinationPort)
        let key = UDPFlowKey(source, destination)
        let number: Int
        let direction: TCPReassembler.Direction
        if let known = udpFlows[key] {
            number = known.number
            direction = known.client == source ? .clientToServer : .serverToClient
        } else {
            if udpFlows.count >= CaptureFollower.maximumUDPFlows { udpFlows.removeAll(keepingCapacity: true) }
            number = nextNumber
            nextNumber += 1
            udpFlows[key] = UDPFlow(number: number, client: source)
            direction = .clientToServer
            endLine(into: &out)
            out += "== stream \(number): \(source) > \(destination) (udp)\n".utf8
            atLineStart = true
        }
        lastChunk = nil
        if let framing {
            var decoder = FrameDecoder(framing: framing, maximumFrameSize: CaptureFollower.maximumMessageSize)
            var buffer = ByteBuffer()
            buffer.writeBytes(payload)
            do {
                while let message = try decoder.decode(&buffer, atEOF: true) {
                    message.withUnsafeReadableBytes { appendMessage($0, number: number, direction: direction, into: &out) }
                }
            } catch {
                appendMarker(number, direction, into: &out)
                out += " [framing error: \(error.message)]\n".utf8
                buffer.withUnsafeReadableBytes { appendMessage($0, number: number, direction: direction, into: &out) }
            }
        } else {
            appendMessage(payload, number: number, direction: direction, into: &out)
        }
        if segment.isPayloadTruncated {
            appendMarker(number, direction, into: &out)
            out += " [... \(segment.payloadLength - payload.count) bytes missing ...]\n".utf8
        }
        atLineStart = true
    }

    // MARK: Pieces

    /// One message on its own marker-prefixed line(s).
    private mutating func appendMessage(_ bytes: UnsafeRawBufferPointer, number: Int, direction: TCPReassembler.Direction, into out: inout [UInt8]) {
        appendMarker(number, direction, into: &out)
        if bytes.isEmpty {
            out.append(0x0A)
        } else if JSONPrettyPrinter.append(bytes, prefix: [0x20], into: &out) {
            out.append(0x0A)
        } else if MessageText.isUTF8WithoutC1(bytes) {
            out.append(0x20)
            MessageText.appendEscaped(bytes, into: &out)
            out.append(0x0A)
        } else {
            out += " \(bytes.count) bytes".utf8
            HexDump.appendHexAndASCII(bytes, into: &out)
            out.append(0x0A)
        }
        atLineStart = true
        lastChunk = nil
    }

    /// `[N] >>` or `[N] <<` at the start of a line.
    private mutating func appendMarker(_ number: Int, _ direction: TCPReassembler.Direction, into out: inout [UInt8]) {
        endLine(into: &out)
        out += "[\(number)] ".utf8
        out += direction == .clientToServer ? ">>".utf8 : "<<".utf8
        atLineStart = false
    }

    /// Ends an unfinished text line, so the next output starts on its own line.
    mutating func endLine(into out: inout [UInt8]) {
        if !atLineStart {
            out.append(0x0A)
            atLineStart = true
        }
    }
}

extension TCPReassembler.Direction {
    fileprivate var index: Int { self == .clientToServer ? 0 : 1 }
}

private struct UDPFlowKey: Hashable {
    var low: TCPReassembler.Endpoint
    var high: TCPReassembler.Endpoint

    init(_ one: TCPReassembler.Endpoint, _ other: TCPReassembler.Endpoint) {
        (low, high) = other < one ? (other, one) : (one, other)
    }
}

private struct UDPFlow {
    var number: Int
    var client: TCPReassembler.Endpoint
}

/// Per-stream state: the number shown and, per direction, the framing buffer.
private struct StreamState {
    var number: Int
    var directions: [DirectionState]

    init(number: Int, framing: Framing?) {
        self.number = number
        directions = [DirectionState(framing: framing), DirectionState(framing: framing)]
    }
}

private struct DirectionState {
    /// nil: unframed (no `--framing`, or after a framing error).
    var decoder: FrameDecoder?
    var buffer = ByteBuffer()
    /// Bytes of this direction so far (gaps included): the hex dump offsets.
    var offset = 0

    enum Next {
        case message(ByteBuffer)
        case needMore
        case failed(SocketEngineError, rest: ByteBuffer)
    }

    init(framing: Framing?) {
        decoder = framing.map { FrameDecoder(framing: $0, maximumFrameSize: CaptureFollower.maximumMessageSize) }
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        buffer.writeBytes(bytes)
    }

    mutating func next(atEnd: Bool) -> Next {
        guard var decoder else { return .needMore }
        defer { self.decoder = decoder }
        do {
            if let message = try decoder.decode(&buffer, atEOF: atEnd) {
                if buffer.readableBytes == 0 { buffer.clear() } else if buffer.readerIndex > 65_536 { buffer.discardReadBytes() }
                return .message(message)
            }
            return .needMore
        } catch {
            let rest = buffer
            buffer = ByteBuffer()
            return .failed(error, rest: rest)
        }
    }

    mutating func reset(framing: Framing?) {
        buffer.clear()
        decoder = framing.map { FrameDecoder(framing: $0, maximumFrameSize: CaptureFollower.maximumMessageSize) }
    }
}

/// Text checks and escaping for payload shown to a person.
private enum MessageText {
    /// Printable UTF-8 (no C0/C1 controls, no DEL) apart from tab, LF, and CR before LF or last.
    static func isText(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x7F || byte == 0x09 || byte == 0x0A {
                index += 1
            } else if byte == 0x0D {
                guard index + 1 == count || bytes[index + 1] == 0x0A else { return false }
                index += 1
            } else if byte >= 0x80, let length = sequenceLength(bytes, at: index) {
                index += length
            } else {
                return false
            }
        }
        return true
    }

    /// Valid UTF-8 without C1 controls (U+0080–U+009F); C0 controls are allowed (they get escaped).
    static func isUTF8WithoutC1(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            if bytes[index] < 0x80 {
                index += 1
            } else if let length = sequenceLength(bytes, at: index) {
                index += length
            } else {
                return false
            }
        }
        return true
    }

    /// The length of the well-formed, non-C1 UTF-8 sequence starting at `index` (a lead byte ≥ 0x80), or nil.
    private static func sequenceLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2; if lead == 0xC2 { low = 0xA0 }  // C2 80…9F are C1 controls
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE, 0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        let second = bytes[index + 1]
        guard second >= low && second <= high else { return nil }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return nil }
        return length
    }

    static func appendText(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.append(contentsOf: bytes)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `bytes` with C0 controls and DEL as `\r`, `\n`, `\t` or `\xHH`.
    static func appendEscaped(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        for byte in bytes {
            switch byte {
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0x00..<0x20, 0x7F: out += [0x5C, UInt8(ascii: "x"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
    }
}

/// Re-indents a JSON object or array (two spaces, `"key": value`), validating it on the way;
/// strings and numbers are copied as written.
///
/// Only text that is entirely one JSON object or array (surrounding whitespace allowed) and valid
/// UTF-8 is taken; nesting deeper than ``maximumDepth`` is not, so a hostile message cannot
/// exhaust the stack — such text is shown as text instead.
private struct JSONPrettyPrinter {
    static let maximumDepth = 64

    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Appends `prefix` and the pretty-printed JSON and returns true, or appends nothing and
    /// returns false when `bytes` is not a JSON object or array.
    static func append(_ bytes: UnsafeRawBufferPointer, prefix: [UInt8], into out: inout [UInt8]) -> Bool {
        var parser = JSONPrettyPrinter(bytes)
        parser.skipWhitespace()
        guard let first = parser.peek, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
              MessageText.isUTF8WithoutC1(bytes) else { return false }
        let start = out.count
        out += prefix
        if parser.value(depth: 0, into: &out) {
            parser.skipWhitespace()
            if parser.index == bytes.count { return true }
        }
        out.removeSubrange(start...)
        return false
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private static func newline(_ depth: Int, into out: inout [UInt8]) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: depth * 2))
    }

    private mutating func value(depth: Int, into out: inout [UInt8]) -> Bool {
        guard depth < Self.maximumDepth, let byte = peek else { return false }
        switch byte {
        case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), keyed: true, depth: depth, into: &out)
        case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), keyed: false, depth: depth, into: &out)
        case UInt8(ascii: "\""): return string(into: &out)
        case UInt8(ascii: "t"): return literal("true", into: &out)
        case UInt8(ascii: "f"): return literal("false", into: &out)
        case UInt8(ascii: "n"): return literal("null", into: &out)
        default: return number(into: &out)
        }
    }

    private mutating func container(close: UInt8, keyed: Bool, depth: Int, into out: inout [UInt8]) -> Bool {
        out.append(bytes[index])
        index += 1
        skipWhitespace()
        if peek == close {
            index += 1
            out.append(close)
            return true
        }
        while true {
            Self.newline(depth + 1, into: &out)
            if keyed {
                guard peek == UInt8(ascii: "\""), string(into: &out) else { return false }
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { return false }
                index += 1
                out += [UInt8(ascii: ":"), 0x20]
                skipWhitespace()
            }
            guard value(depth: depth + 1, into: &out) else { return false }
            skipWhitespace()
            guard let next = peek else { return false }
            index += 1
            if next == UInt8(ascii: ",") {
                out.append(next)
                skipWhitespace()
            } else if next == close {
                Self.newline(depth, into: &out)
                out.append(close)
                return true
            } else {
                return false
            }
        }
    }

    private mutating func string(into out: inout [UInt8]) -> Bool {
        let start = index
        index += 1  // the opening quote
        while let byte = peek {
            index += 1
            if byte == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
                return true
            }
            if byte < 0x20 { return false }
            if byte == UInt8(ascii: "\\") {
                guard let escaped = peek else { return false }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    for _ in 0..<4 {
                        guard let hex = peek, isHexDigit(hex) else { return false }
                        index += 1
                    }
                default:
                    return false
                }
            }
        }
        return false
    }

    private func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private mutating func literal(_ word: StaticString, into out: inout [UInt8]) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let matches = word.withUTF8Buffer { text in
            (0..<count).allSatisfy { bytes[index + $0] == text[$0] }
        }
        guard matches else { return false }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]))
        index += count
        return true
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number(into out: inout [UInt8]) -> Bool {
        let start = index
        func digits(_ parser: inout JSONPrettyPrinter) -> Int {
            var count = 0
            while let byte = parser.peek, (0x30...0x39).contains(byte) {
                parser.index += 1
                count += 1
            }
            return count
        }
        if peek == UInt8(ascii: "-") { index += 1 }
        if peek == UInt8(ascii: "0") {
            index += 1
        } else if digits(&self) == 0 {
            return false
        }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { return false }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { return false }
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        return true
    }
}
