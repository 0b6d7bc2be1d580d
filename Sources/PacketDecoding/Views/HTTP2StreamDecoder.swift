/// Follows one direction of an HTTP/2 connection (RFC 9113 §3.4, §4.1): the client's 24-byte
/// connection preface, then frame after frame; each frame becomes a ``ViewItem/http2Frame(_:)``
/// once its 9-byte header is in — the control frames (SETTINGS, RST_STREAM, GOAWAY,
/// WINDOW_UPDATE, PING) once their fields are too. Header blocks (HEADERS, PUSH_PROMISE,
/// CONTINUATION) are put together and decoded with this direction's HPACK table
/// (``HTTP2HeaderBlocks``): a ``ViewItem/http2Headers(_:)`` after the frame that ends the block.
/// A stream whose headers say `content-type: application/grpc…` has its DATA cut into gRPC
/// messages (``GRPCMessageReader``); other DATA is passed over, not kept.
///
/// Memory per direction: a header frame's payload (at most ``HTTP2HeaderBlocks/maximumBlockBytes``
/// and its padding), one block, the HPACK table the peer's SETTINGS allow (at most
/// ``HTTP2HeaderBlocks/maximumTableBytes``), and ``maximumGRPCStreams`` message previews.
///
/// Fed the direction's bytes in order, in chunks of any size. A client direction that does not
/// start with the preface ends the decoding with one
/// ``ViewItem/lostSync(_:)``.
package struct HTTP2StreamDecoder: Sendable {
    /// `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`.
    package static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// The fields of the control frames read: SETTINGS holds at most this many bytes of them.
    static let maximumControlBytes = 6 * 16

    /// Bytes of the preface still expected (0 once it went by, or for the server's side).
    private var prefaceLeft: Int
    private var header: [UInt8] = []
    private var frame: HTTP2FrameSummary?
    /// The control frame fields being collected.
    private var fields: [UInt8] = []
    private var fieldsWanted = 0
    private var remaining = 0
    package private(set) var isLost = false
    /// This direction's header blocks and HPACK table.
    private var blocks: HTTP2HeaderBlocks
    /// The payload of the header frame being read (HEADERS, PUSH_PROMISE, CONTINUATION).
    private var collected: [UInt8] = []
    /// What the current frame's payload is for.
    private var payloadUse = PayloadUse.none
    /// The gRPC streams of this direction (their headers said application/grpc).
    private var grpc: [UInt32: GRPCMessageReader] = [:]
    /// At most this many gRPC streams are followed at once per direction.
    static let maximumGRPCStreams = 64

    private enum PayloadUse {
        case none
        /// Kept whole in `collected` (false once over the limit).
        case collect(fits: Bool)
        /// DATA of a gRPC stream: the pad length byte still to come (PADDED) or not, then
        /// `left` message bytes before the padding.
        case grpcData(padLengthDue: Bool, left: Int)
    }

    /// A server's first frame, SETTINGS on stream 0 without flags, whole in `bytes`: what a
    /// server that speaks before the client's preface arrives starts with (RFC 9113 §3.4).
    package static func looksLikeServerSettings(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 9 else { return false }
        let length = Int(bytes[0]) << 16 | Int(bytes[1]) << 8 | Int(bytes[2])
        return bytes[3] == 4 && bytes[4] == 0 && bytes[5] == 0 && bytes[6] == 0 && bytes[7] == 0 && bytes[8] == 0
            && length % 6 == 0 && length <= maximumControlBytes && bytes.count >= 9 + length
    }

    /// Bytes that start with whole HTTP/2 frames, one after another to the end (the last may be
    /// cut short): at least one frame whole, each header plausible — a known type (0–9), at most
    /// 16,384 bytes (the default maximum frame size), the reserved bit clear, stream 0 exactly
    /// for the connection's frames (SETTINGS, PING, GOAWAY), the fixed lengths right. For a
    /// direction seen from its middle (a capture that joined the connection late).
    package static func looksLikeFrames(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        var whole = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            let type = bytes[offset + 3]
            let stream = UInt32(bytes[offset + 5]) << 24 | UInt32(bytes[offset + 6]) << 16 | UInt32(bytes[offset + 7]) << 8 | UInt32(bytes[offset + 8])
            guard type <= 9, length <= 16_384, stream & 0x8000_0000 == 0 else { return false }
            switch type {
            case 4: guard stream == 0, length % 6 == 0 else { return false }
            case 6: guard stream == 0, length == 8 else { return false }
            case 7: guard stream == 0, length >= 8 else { return false }
            case 3: guard stream != 0, length == 4 else { return false }
            case 2: guard stream != 0, length == 5 else { return false }
            case 8: guard length == 4 else { return false }
            default: guard stream != 0 else { return false }
            }
            offset += 9 + length
            if offset <= bytes.count { whole += 1 }
        }
        return whole > 0 && (offset >= bytes.count)
    }

    /// `client`: this direction starts with the connection preface. `tableUnknown`: the
    /// capture joined the connection late (its HPACK table may hold entries not seen).
    package init(client: Bool, tableUnknown: Bool = false) {
        prefaceLeft = client ? Self.preface.count : 0
        blocks = HTTP2HeaderBlocks(tableUnknown: tableUnknown)
    }

    /// The other direction sent SETTINGS_HEADER_TABLE_SIZE: the largest table this direction's
    /// HPACK encoder may use.
    package mutating func allowHeaderTable(of size: UInt32) {
        blocks.allowTable(of: size)
    }

    package mutating func lose(_ emit: (ViewItem) -> Void) {
        guard !isLost else { return }
        isLost = true
        emit(.lostSync(.http2))
    }

    package mutating func consume(_ bytes: UnsafeRawBufferPointer, emit: (ViewItem) -> Void) {
        var index = 0
        while index < bytes.count && !isLost {
            if prefaceLeft > 0 {
                let position = Self.preface.count - prefaceLeft
                guard bytes[index] == Self.preface[position] else {
                    lose(emit)
                    return
                }
                prefaceLeft -= 1
                index += 1
                if prefaceLeft == 0 { emit(.http2Preface) }
                continue
            }
            if frame != nil {
                let count = min(remaining, bytes.count - index)
                if fields.count < fieldsWanted {
                    let take = min(count, fieldsWanted - fields.count)
                    fields.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + take)]))
                    if fields.count == fieldsWanted { emitFrame(emit) }
                }
                payload(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]), emit)
                remaining -= count
                index += count
                if remaining == 0 {
                    if fields.count < fieldsWanted { emitFrame(emit) }
                    finishFrame(emit)
                    frame = nil
                }
                continue
            }
            header.append(bytes[index])
            index += 1
            guard header.count == 9 else { continue }
            startFrame(emit)
        }
    }

    private mutating func startFrame(_ emit: (ViewItem) -> Void) {
        let length = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
        let stream = (UInt32(header[5]) << 24 | UInt32(header[6]) << 16 | UInt32(header[7]) << 8 | UInt32(header[8])) & 0x7FFF_FFFF
        let summary = HTTP2FrameSummary(type: header[3], flags: header[4], stream: stream, length: length)
        header.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        switch summary.type {
        case 4: fieldsWanted = min(length, Self.maximumControlBytes) / 6 * 6
        case 3, 8: fieldsWanted = min(length, 4)
        case 6, 7: fieldsWanted = min(length, 8)
        default: fieldsWanted = 0
        }
        if fieldsWanted == 0 {
            emit(.http2Frame(summary))
            fieldsWanted = -1  // shown
        }
        collected.removeAll(keepingCapacity: true)
        switch summary.type {
        case 1, 5, 9: payloadUse = .collect(fits: true)
        case 0 where grpc[summary.stream] != nil: payloadUse = .grpcData(padLengthDue: summary.flags & 0x08 != 0, left: length)
        default: payloadUse = .none
        }
        frame = summary
        remaining = length
        if remaining == 0 {
            finishFrame(emit)
            frame = nil
        }
    }

    /// The next bytes of the current frame's payload.
    private mutating func payload(_ chunk: UnsafeRawBufferPointer, _ emit: (ViewItem) -> Void) {
        switch payloadUse {
        case .none:
            break
        case .collect(let fits):
            guard fits else { return }
            if collected.count + chunk.count <= HTTP2HeaderBlocks.maximumBlockBytes + 261 {
                collected.append(contentsOf: chunk)
            } else {
                collected = []
                payloadUse = .collect(fits: false)
            }
        case .grpcData(var padLengthDue, var left):
            guard let stream = frame?.stream else { return }
            var rest = chunk
            if padLengthDue, let padding = rest.first {
                padLengthDue = false
                left = max(0, left - 1 - Int(padding))
                rest = UnsafeRawBufferPointer(rebasing: rest[1...])
            }
            let take = min(left, rest.count)
            if take > 0 { grpc[stream]?.consume(UnsafeRawBufferPointer(rebasing: rest[..<take]), emit: emit) }
            left -= take
            payloadUse = .grpcData(padLengthDue: padLengthDue, left: left)
        }
    }

    /// The current frame's payload is all in: a header fragment goes to its block; END_STREAM
    /// ends the stream's gRPC messages in this direction.
    private mutating func finishFrame(_ emit: (ViewItem) -> Void) {
        guard let summary = frame else { return }
        let endsStream = summary.flags & 0x01 != 0 && (summary.type == 0 || summary.type == 1)
        defer {
            if endsStream { grpc[summary.stream] = nil }
            payloadUse = .none
        }
        guard case .collect(let fits) = payloadUse else { return }
        guard fits else { return blocks.lose(stream: summary.stream, emit: emit) }
        var fragment = collected[...]
        var padding = 0
        if summary.type != 9 && summary.flags & 0x08 != 0 {
            guard let first = fragment.first else { return }
            padding = Int(first)
            fragment = fragment.dropFirst()
        }
        var promised: UInt32?
        if summary.type == 1 && summary.flags & 0x20 != 0 {
            guard fragment.count >= 5 else { return }
            fragment = fragment.dropFirst(5)
        } else if summary.type == 5 {
            guard fragment.count >= 4 else { return }
            let start = fragment.startIndex
            promised = (UInt32(fragment[start]) << 24 | UInt32(fragment[start + 1]) << 16 | UInt32(fragment[start + 2]) << 8 | UInt32(fragment[start + 3])) & 0x7FFF_FFFF
            fragment = fragment.dropFirst(4)
        }
        guard padding <= fragment.count else { return }
        fragment = fragment.dropLast(padding)
        let ends = summary.flags & 0x04 != 0
        let fields = summary.type == 9
            ? blocks.continueBlock(stream: summary.stream, fragment: fragment, ends: ends, emit: emit)
            : blocks.start(stream: summary.stream, promised: promised, fragment: fragment, ends: ends, emit: emit)
        guard let fields, promised == nil, summary.type != 5 else { return }
        let grpcContent = fields.contains { field in
            field.name.elementsEqual("content-type".utf8) && field.value.starts(with: "application/grpc".utf8)
        }
        if grpcContent && grpc[summary.stream] == nil && grpc.count < Self.maximumGRPCStreams {
            grpc[summary.stream] = GRPCMessageReader(stream: summary.stream)
        }
    }

    /// Shows the current frame with the fields collected so far.
    private mutating func emitFrame(_ emit: (ViewItem) -> Void) {
        guard var summary = frame, fieldsWanted >= 0 else { return }
        func u32(_ offset: Int) -> UInt32? {
            guard fields.count >= offset + 4 else { return nil }
            return UInt32(fields[offset]) << 24 | UInt32(fields[offset + 1]) << 16 | UInt32(fields[offset + 2]) << 8 | UInt32(fields[offset + 3])
        }
        switch summary.type {
        case 4:
            var offset = 0
            while offset + 6 <= fields.count {
                let identifier = UInt16(fields[offset]) << 8 | UInt16(fields[offset + 1])
                summary.settings.append(.init(identifier: identifier, value: u32(offset + 2) ?? 0))
                offset += 6
            }
        case 3: summary.errorCode = u32(0)
        case 8: summary.increment = u32(0).map { $0 & 0x7FFF_FFFF }
        case 7:
            summary.lastStream = u32(0).map { $0 & 0x7FFF_FFFF }
            summary.errorCode = u32(4)
        case 6:
            if let high = u32(0), let low = u32(4) { summary.opaque = UInt64(high) << 32 | UInt64(low) }
        default: break
        }
        emit(.http2Frame(summary))
        fieldsWanted = -1
    }
}
