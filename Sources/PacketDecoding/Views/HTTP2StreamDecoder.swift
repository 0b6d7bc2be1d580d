/// Follows one direction of an HTTP/2 connection (RFC 9113 §3.4, §4.1): the client's 24-byte
/// connection preface, then frame after frame; each frame becomes a ``ViewItem/http2Frame(_:)``
/// once its 9-byte header is in — the control frames (SETTINGS, RST_STREAM, GOAWAY,
/// WINDOW_UPDATE, PING) once their fields are too. Payloads are passed over, not kept: header
/// blocks are HPACK-compressed and need the whole connection's table, which a capture view
/// cannot promise.
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

    /// A server's first frame, SETTINGS on stream 0 without flags, whole in `bytes`: what a
    /// server that speaks before the client's preface arrives starts with (RFC 9113 §3.4).
    package static func looksLikeServerSettings(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 9 else { return false }
        let length = Int(bytes[0]) << 16 | Int(bytes[1]) << 8 | Int(bytes[2])
        return bytes[3] == 4 && bytes[4] == 0 && bytes[5] == 0 && bytes[6] == 0 && bytes[7] == 0 && bytes[8] == 0
            && length % 6 == 0 && length <= maximumControlBytes && bytes.count >= 9 + length
    }

    /// `client`: this direction starts with the connection preface.
    package init(client: Bool) {
        prefaceLeft = client ? Self.preface.count : 0
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
                remaining -= count
                index += count
                if remaining == 0 {
                    if fields.count < fieldsWanted { emitFrame(emit) }
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
        frame = summary
        remaining = length
        if remaining == 0 { frame = nil }
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
