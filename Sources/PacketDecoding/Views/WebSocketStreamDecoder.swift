import WebSocketDeflate

/// Follows one direction of a WebSocket connection frame by frame (RFC 6455 §5.2): each frame
/// becomes a ``ViewItem/webSocketFrame(_:)`` once its header and the first `payloadLimit` bytes
/// of its payload (unmasked) are in — a close frame's code always — and the rest of the payload
/// is passed over without being kept.
///
/// Fed the direction's bytes in order, in chunks of any size. A header whose length field is
/// not minimal or above 2^63 is not WebSocket: decoding ends with one ``ViewItem/lostSync(_:)``.
///
/// With permessage-deflate agreed in the handshake (``Inflation/agreed(_:sender:)``), each
/// compressed message (RSV1 on its first frame) is inflated as its frames pass — its window
/// carried over to the next message unless the sender declared no context takeover — and
/// shown once it ends as a ``ViewItem/webSocketMessage(_:)`` (the first `payloadLimit`
/// inflated bytes). A compressed message that cannot be inflated — the handshake was not seen,
/// the payload is not DEFLATE, or it inflates beyond ``inflatedLimit`` — is said once for the
/// direction; nothing after it is inflated (the window is lost).
package struct WebSocketStreamDecoder: Sendable {
    /// What the decoder knows of permessage-deflate on this direction.
    package enum Inflation: Sendable {
        /// The handshake agreed no extension.
        case none
        /// The handshake agreed permessage-deflate; `sender` is the side this direction comes from.
        case agreed(PerMessageDeflate, sender: PerMessageDeflate.Role)
        /// The handshake was not seen (a capture that starts mid-connection).
        case unknown
    }

    /// The largest inflated message: a larger one is not inflated (the engine's default limit).
    package static let inflatedLimit = 16 << 20

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

    private let inflation: Inflation
    private let inflater: MessageInflater?
    /// The data message in progress is compressed (its opcode in `messageOpcode`).
    private var messageCompressed = false
    private var messageOpcode: UInt8 = 0
    /// The first `payloadLimit` inflated bytes of the message in progress.
    private var inflated: [UInt8] = []
    /// A compressed message could not be inflated (and it was said): no more inflating.
    private var inflationStopped = false

    package init(payloadLimit: Int, inflation: Inflation = .none) {
        self.payloadLimit = max(0, payloadLimit)
        self.inflation = inflation
        if case .agreed(let agreement, let sender) = inflation {
            inflater = MessageInflater(limit: Self.inflatedLimit, resetsEachMessage: agreement.noContextTakeover(sentBy: sender))
        } else {
            inflater = nil
        }
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
                if current.compressed && current.opcode <= 2 {
                    inflate(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]), at: current.length - remaining, emit)
                }
                remaining -= UInt64(count)
                if frameEmitted {
                    // Shown already: the rest of its payload is only passed over.
                    index += count
                    if remaining == 0 {
                        frame = nil
                        frameEmitted = false
                        frameEnded(current, emit)
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
        let reserved = (header[0] >> 4) & 0x07
        if opcode == 1 || opcode == 2 {
            messageCompressed = reserved & 4 != 0
            messageOpcode = opcode
            inflated = []
        }
        frame = WebSocketFrameSummary(fin: header[0] & 0x80 != 0, reserved: reserved, opcode: opcode, masked: masked, length: length)
        frame?.compressed = opcode <= 2 && messageCompressed
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
            frameEnded(current, emit)
        } else {
            frameEmitted = true
        }
    }

    // MARK: Inflating

    /// Payload bytes of a compressed message's frame, `position` bytes into the frame.
    private mutating func inflate(_ chunk: UnsafeRawBufferPointer, at position: UInt64, _ emit: (ViewItem) -> Void) {
        guard !inflationStopped, let inflater, !chunk.isEmpty else { return }
        var plain = Array(chunk)
        if !maskKey.isEmpty {
            for offset in plain.indices { plain[offset] ^= maskKey[Int((position &+ UInt64(offset)) % 4)] }
        }
        let result = plain.withUnsafeBytes { bytes in
            Result { () throws(MessageInflater.Failure) in try inflater.inflate(bytes, last: false, keep: payloadLimit, into: &inflated) }
        }
        if case .failure(let failure) = result { stopInflating(failure, emit) }
    }

    /// A frame's payload has all passed: a compressed message that ends here is shown inflated.
    private mutating func frameEnded(_ ended: WebSocketFrameSummary, _ emit: (ViewItem) -> Void) {
        guard ended.opcode <= 2, ended.fin, messageCompressed else { return }
        messageCompressed = false
        guard !inflationStopped else { return }
        guard let inflater else {
            inflationStopped = true
            let problem = if case .unknown = inflation {
                "the handshake was not seen (the capture starts mid-connection)"
            } else {
                "permessage-deflate was not agreed in the handshake"
            }
            emit(.webSocketMessage(WebSocketMessageSummary(opcode: messageOpcode, length: 0, problem: problem)))
            return
        }
        let empty: [UInt8] = []
        let result = empty.withUnsafeBytes { bytes in
            Result { () throws(MessageInflater.Failure) in try inflater.inflate(bytes, last: true, keep: payloadLimit, into: &inflated) }
        }
        if case .failure(let failure) = result {
            stopInflating(failure, emit)
            return
        }
        let length = inflater.lastLength
        emit(.webSocketMessage(WebSocketMessageSummary(
            opcode: messageOpcode, length: length, payload: inflated, payloadComplete: inflated.count == length
        )))
        inflated = []
    }

    private mutating func stopInflating(_ failure: MessageInflater.Failure, _ emit: (ViewItem) -> Void) {
        inflationStopped = true
        inflated = []
        let problem = switch failure {
        case .tooBig: "a message inflates beyond \(Self.inflatedLimit >> 20) MiB"
        case .corrupt(let reason): "the payload does not inflate (\(reason))"
        }
        emit(.webSocketMessage(WebSocketMessageSummary(opcode: messageOpcode, length: 0, problem: problem)))
    }

    /// The current frame was already shown; its remaining payload is only passed over.
    private var frameEmitted = false
}
