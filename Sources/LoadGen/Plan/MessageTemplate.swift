import NIOCore
import SocketEngine

/// The message a load test sends, with `{{seq}}` (the message's number in the run, from 1,
/// unique across connections) and `{{conn}}` (the connection's number, from 1) filled in and
/// the framing applied.
///
/// ```
/// template: {"id":{{seq}},"c":{{conn}}}        framing: crlf
/// message 7 on connection 2:  {"id":7,"c":2}\r\n
/// ```
///
/// A template without placeholders is framed once and the same bytes are written for every
/// message (no per-message copy). Unknown `{{…}}` text is sent as written.
public struct MessageTemplate: Sendable {
    enum Part: Sendable, Equatable {
        case literal([UInt8])
        case sequence
        case connection
        /// An HTTP request's Content-Length: the length of its body with this message's numbers.
        case contentLength
    }

    let parts: [Part]
    /// How each message is framed before it is sent.
    public let framing: Framing
    /// The framed message when there are no placeholders.
    let fixed: ByteBuffer?
    /// ``fixed`` written back to back until at least ``runBytes`` (a send-only stream writes
    /// these prepared bytes instead of building its messages one by one), and how many copies
    /// it holds.
    let run: (bytes: ByteBuffer, count: Int)?
    /// How many bytes of messages a send-only stream prepares at a time: as many whole copies
    /// as reach 64 KiB (tcpkali's measured sweet spot for one write).
    static let runBytes = 65536
    /// An HTTP request with placeholders: its body's fixed bytes and how many `{{seq}}` and
    /// `{{conn}}` it holds, from which ``Part/contentLength`` is computed without rendering it.
    let bodyShape: (literalBytes: Int, sequences: Int, connections: Int)?

    /// A template made of `parts` (an HTTP request's).
    init(parts: [Part], framing: Framing, bodyShape: (literalBytes: Int, sequences: Int, connections: Int)?) {
        self.parts = parts
        self.framing = framing
        self.bodyShape = bodyShape
        if parts.allSatisfy({ if case .literal = $0 { true } else { false } }) {
            var whole = ByteBuffer()
            for case .literal(let bytes) in parts { whole.writeBytes(bytes) }
            fixed = whole
        } else {
            fixed = nil
        }
        run = nil  // an HTTP request always has a reply
    }

    /// Finds the placeholders in `bytes` and checks now that `framing` can carry every message
    /// a run may send; throws ``LoadGenError/Code/invalidMessage`` when it cannot.
    public init(_ bytes: [UInt8], framing: Framing) throws(LoadGenError) {
        self.framing = framing
        bodyShape = nil
        parts = Self.parse(bytes)
        if parts.allSatisfy({ if case .literal = $0 { true } else { false } }) {
            let body = ByteBuffer(bytes: bytes)
            var framed = ByteBuffer()
            try Self.encode(body, framing: framing, into: &framed)
            fixed = framed
            run = Self.repeated(framed)
        } else {
            fixed = nil
            run = nil
            // Check once that the framing takes messages of this shape, so a bad combination
            // fails before the run: fixed:N needs the text to fit (numbers are padded or cut
            // to N), a length prefix must hold the widest numbers a run can reach.
            var probe = ByteBuffer()
            if case .fixed(let size) = framing {
                let literal = parts.reduce(0) { total, part in
                    if case .literal(let bytes) = part { total + bytes.count } else { total }
                }
                if literal > size {
                    throw LoadGenError(.invalidMessage, "the message's text is \(literal) bytes without its numbers, over fixed:\(size)")
                }
            } else {
                Self.renderBody(parts, sequence: 999_999_999_999, connection: 9_999_999, into: &probe)
                var scratch = ByteBuffer()
                try Self.encode(probe, framing: framing, into: &scratch)
            }
        }
    }

    /// Frames `body`, or says why the framing cannot carry it.
    private static func encode(_ body: ByteBuffer, framing: Framing, into buffer: inout ByteBuffer) throws(LoadGenError) {
        do {
            try framing.encode(body, into: &buffer)
        } catch {
            throw LoadGenError(.invalidMessage, error.text)
        }
    }

    /// `message` back to back until at least ``runBytes``; nil for an empty message.
    private static func repeated(_ message: ByteBuffer) -> (bytes: ByteBuffer, count: Int)? {
        let size = message.readableBytes
        guard size > 0 else { return nil }
        let count = max(1, (runBytes + size - 1) / size)
        if count == 1 { return (message, 1) }
        var bytes = ByteBuffer()
        bytes.reserveCapacity(count * size)
        for _ in 0..<count { bytes.writeImmutableBuffer(message) }
        return (bytes, count)
    }

    /// True when every message is the same bytes.
    package var isConstant: Bool { fixed != nil }

    /// The framed size of a message whose numbers are `sequence` and `connection`.
    package func size(sequence: Int, connection: Int) -> Int {
        var buffer = ByteBuffer()
        append(sequence: sequence, connection: connection, to: &buffer)
        return buffer.readableBytes
    }

    /// Appends message `sequence` of `connection`, framed, to `buffer`. With placeholders and
    /// `fixed:N` framing, a message whose numbers change its size past N is padded or cut to N.
    public func append(sequence: Int, connection: Int, to buffer: inout ByteBuffer) {
        if let fixed {
            // Into a buffer with no storage (an HTTP connection's batch): the prebuilt bytes
            // themselves, no copy.
            if buffer.capacity == 0 { buffer = fixed } else { buffer.writeImmutableBuffer(fixed) }
            return
        }
        if let bodyShape {
            // HTTP: rendered straight into `buffer`, the Content-Length computed.
            let length = bodyShape.literalBytes + bodyShape.sequences * Self.digits(sequence) + bodyShape.connections * Self.digits(connection)
            Self.render(parts, sequence: sequence, connection: connection, contentLength: length, into: &buffer)
            return
        }
        var body = ByteBuffer()
        Self.renderBody(parts, sequence: sequence, connection: connection, into: &body)
        if case .fixed(let size) = framing, body.readableBytes != size {
            if body.readableBytes > size {
                body.moveWriterIndex(to: body.readerIndex + size)
            } else {
                body.writeRepeatingByte(0x20, count: size - body.readableBytes)
            }
        }
        // Only fixed:N can refuse a body, and it was sized above.
        try? framing.encode(body, into: &buffer)
    }

    /// A buffer holding the message, for callers that write it alone.
    public func message(sequence: Int, connection: Int) -> ByteBuffer {
        if let fixed { return fixed }
        var buffer = ByteBuffer()
        append(sequence: sequence, connection: connection, to: &buffer)
        return buffer
    }

    static func renderBody(_ parts: [Part], sequence: Int, connection: Int, into body: inout ByteBuffer) {
        render(parts, sequence: sequence, connection: connection, contentLength: 0, into: &body)
    }

    static func render(_ parts: [Part], sequence: Int, connection: Int, contentLength: Int, into body: inout ByteBuffer) {
        for part in parts {
            switch part {
            case .literal(let bytes): body.writeBytes(bytes)
            case .sequence: body.writeString(String(sequence))
            case .connection: body.writeString(String(connection))
            case .contentLength: body.writeString(String(contentLength))
            }
        }
    }

    /// How many decimal digits `value` is written with (a sign included).
    static func digits(_ value: Int) -> Int {
        var count = value < 0 ? 2 : 1
        var rest = value.magnitude / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }

    static func parse(_ bytes: [UInt8]) -> [Part] {
        let placeholders: [([UInt8], Part)] = [(Array("{{seq}}".utf8), .sequence), (Array("{{conn}}".utf8), .connection)]
        var parts: [Part] = []
        var literal: [UInt8] = []
        var index = 0
        scan: while index < bytes.count {
            if bytes[index] == UInt8(ascii: "{") {
                for (token, part) in placeholders where bytes[index...].starts(with: token) {
                    if !literal.isEmpty { parts.append(.literal(literal)) }
                    literal = []
                    parts.append(part)
                    index += token.count
                    continue scan
                }
            }
            literal.append(bytes[index])
            index += 1
        }
        if !literal.isEmpty || parts.isEmpty { parts.append(.literal(literal)) }
        return parts
    }
}
