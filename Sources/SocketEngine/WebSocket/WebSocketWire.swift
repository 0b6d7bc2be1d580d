import NIOCore

/// WebSocket frames as bytes (RFC 6455 §5), for a client that runs without an event loop
/// (`loadtest --io threads`): client frames written masked, server frames read one at a time
/// from a buffer with every length checked before it is trusted.
package enum WebSocketWire {
    /// Opcodes (§5.2).
    package static let continuation: UInt8 = 0x0
    package static let text: UInt8 = 0x1
    package static let binary: UInt8 = 0x2
    package static let close: UInt8 = 0x8
    package static let ping: UInt8 = 0x9
    package static let pong: UInt8 = 0xA

    /// Appends one final, masked client frame of `opcode` carrying `payload` (its readable
    /// bytes) to `out`, masked with `key`.
    package static func appendClientFrame(opcode: UInt8, payload: ByteBuffer, key: UInt32, into out: inout ByteBuffer) {
        let length = payload.readableBytes
        out.writeInteger(0x80 | opcode)
        if length < 126 {
            out.writeInteger(UInt8(0x80 | length))
        } else if length <= 0xFFFF {
            out.writeInteger(UInt8(0x80 | 126))
            out.writeInteger(UInt16(length))
        } else {
            out.writeInteger(UInt8(0x80 | 127))
            out.writeInteger(UInt64(length))
        }
        out.writeInteger(key)
        // The key's bytes in wire order, without an array per frame (this runs once per message).
        let mask = key.bigEndian
        withUnsafeBytes(of: mask) { mask in
            _ = payload.withUnsafeReadableBytes { source in
                out.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { target in
                    for index in 0..<length { target[index] = source[index] ^ mask[index & 3] }
                    return length
                }
            }
        }
    }

    /// One frame read from the server.
    package struct Frame {
        package var opcode: UInt8
        package var final: Bool
        /// The payload (a server's frames are not masked).
        package var payload: ByteBuffer
        /// The frame's size on the wire, header included.
        package var wireBytes: Int
    }

    /// Takes the next whole frame off the front of `buffer`; nil when it is not all there yet
    /// (nothing is consumed). Throws on a masked frame, reserved bits, an unknown opcode, a
    /// control frame that is fragmented or over 125 bytes, or a payload over `maximumSize`.
    package static func nextServerFrame(_ buffer: inout ByteBuffer, maximumSize: Int) throws(SocketEngineError) -> Frame? {
        let start = buffer.readerIndex
        guard let first = buffer.getInteger(at: start, as: UInt8.self),
              let second = buffer.getInteger(at: start + 1, as: UInt8.self) else { return nil }
        let opcode = first & 0x0F
        let final = first & 0x80 != 0
        guard first & 0x70 == 0 else { throw violation("reserved bits set without an extension") }
        guard second & 0x80 == 0 else { throw violation("the server masked a frame") }
        guard [continuation, text, binary, close, ping, pong].contains(opcode) else { throw violation("unknown opcode \(opcode)") }
        var header = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            guard let extended = buffer.getInteger(at: start + 2, as: UInt16.self) else { return nil }
            length = Int(extended)
            header = 4
        } else if length == 127 {
            guard let extended = buffer.getInteger(at: start + 2, as: UInt64.self) else { return nil }
            guard extended <= UInt64(maximumSize) else { throw tooLarge(maximumSize) }
            length = Int(extended)
            header = 10
        }
        if opcode >= close && (!final || length > 125) { throw violation("a control frame fragmented or over 125 bytes") }
        guard length <= maximumSize else { throw tooLarge(maximumSize) }
        guard buffer.readableBytes >= header + length,
              let payload = buffer.getSlice(at: start + header, length: length) else { return nil }
        buffer.moveReaderIndex(forwardBy: header + length)
        return Frame(opcode: opcode, final: final, payload: payload, wireBytes: header + length)
    }

    private static func violation(_ reason: String) -> SocketEngineError {
        SocketEngineError(.webSocketProtocol, "WebSocket protocol violation: \(reason)")
    }

    private static func tooLarge(_ maximum: Int) -> SocketEngineError {
        SocketEngineError(.frameTooLarge, "a WebSocket frame over the \(maximum)-byte limit")
    }
}
