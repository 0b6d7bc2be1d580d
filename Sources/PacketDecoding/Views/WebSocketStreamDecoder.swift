/// Follows one direction of a WebSocket connection frame by frame (RFC 6455 §5.2): each frame
/// becomes a ``ViewItem/webSocketFrame(_:)`` once its header and the first `payloadLimit` bytes
/// of its payload (unmasked) are in — a close frame's code always — and the rest of the payload
/// is passed over without being kept.
///
/// Fed the direction's bytes in order, in chunks of any size. A header whose length field is
/// not minimal or above 2^63 is not WebSocket: decoding ends with one ``ViewItem/lostSync(_:)``.
package struct WebSocketStreamDecoder: Sendable {
    /// Payload bytes kept per frame (a close frame keeps at least its 125).
    package let payloadLimit: Int

    private var header: [UInt8] = []
    private var frame: WebSocketFrameSummary?
    private var maskKey: [UInt8] = []
    /// Payload bytes of the current frame not yet seen.
    private var remaining: UInt64 = 0
    /// Payload bytes of the current frame seen so far (the mask's position).
    private var seen: UInt64 = 0
    private var keep = 0
    package private(set) var isLost = false

    package init(payloadLimit: Int) {
        self.payloadLimit = max(0, payloadLimit)
    }

    package mutating func lose(_ emit: (ViewItem) -> Void) {
        guard !isLost else { return }
        isLost = true
        frame = nil
        emit(.lostSync(.webSocket))
    }

    package mutating func consume(_ bytes: UnsafeRawBufferPointer, emit: (ViewItem) -> Void) {
        var index = 0
        while index < bytes.count && !isLost {
            if var current = frame {
                let count = Int(min(UInt64(bytes.count - index), remaining))
                remaining -= UInt64(count)
                if frameEmitted {
                    // Shown already: the rest of its payload is only passed over.
                    index += count
                    if remaining == 0 {
                        frame = nil
                        frameEmitted = false
                    }
                    continue
                }
                // Keep what is wanted (unmasked), pass over the rest.
                var kept = 0
                while kept < count && current.payload.count < keep {
                    var byte = bytes[index + kept]
                    if current.masked { byte ^= maskKey[Int(seen % 4)] }
                    current.payload.append(byte)
                    seen += 1
                    kept += 1
                }
                seen += UInt64(count - kept)
                index += count
                frame = current
                if current.payload.count >= keep || remaining == 0 { finishFrame(emit) }
                continue
            }
            header.append(bytes[index])
            index += 1
            guard let needed = headerLength, header.count == needed else { continue }
            guard startFrame() else {
                lose(emit)
                return
            }
            if remaining == 0 || keep == 0 { finishFrame(emit) }
        }
    }

    /// The whole header's length once its first two bytes are in (nil before).
    private var headerLength: Int? {
        guard header.count >= 2 else { return nil }
        let lengthCode = header[1] & 0x7F
        let extended = lengthCode == 126 ? 2 : lengthCode == 127 ? 8 : 0
        return 2 + extended + (header[1] & 0x80 != 0 ? 4 : 0)
    }

    /// Reads the complete header; false when it cannot be a valid frame header.
    private mutating func startFrame() -> Bool {
        let masked = header[1] & 0x80 != 0
        let lengthCode = header[1] & 0x7F
        var length = UInt64(lengthCode)
        var offset = 2
        if lengthCode == 126 {
            length = UInt64(header[2]) << 8 | UInt64(header[3])
            if length < 126 { return false }
            offset = 4
        } else if lengthCode == 127 {
            length = 0
            for index in 2..<10 { length = length << 8 | UInt64(header[index]) }
            if length >> 63 != 0 || length <= 0xFFFF { return false }
            offset = 10
        }
        maskKey = masked ? Array(header[offset..<(offset + 4)]) : []
        let opcode = header[0] & 0x0F
        frame = WebSocketFrameSummary(fin: header[0] & 0x80 != 0, reserved: (header[0] >> 4) & 0x07, opcode: opcode, masked: masked, length: length)
        remaining = length
        seen = 0
        keep = Int(min(length, UInt64(opcode == 8 ? max(payloadLimit, 125) : payloadLimit)))
        header.removeAll(keepingCapacity: true)
        return true
    }

    private mutating func finishFrame(_ emit: (ViewItem) -> Void) {
        guard var current = frame else { return }
        current.payloadComplete = UInt64(current.payload.count) == current.length
        if current.opcode == 8 && current.payload.count >= 2 {
            current.closeCode = UInt16(current.payload[0]) << 8 | UInt16(current.payload[1])
            current.payload.removeFirst(2)
        }
        emit(.webSocketFrame(current))
        if remaining == 0 {
            frame = nil
        } else {
            frameEmitted = true
        }
    }

    /// The current frame was already shown; its remaining payload is only passed over.
    private var frameEmitted = false
}
