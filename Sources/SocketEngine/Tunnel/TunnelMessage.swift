import NIOCore

/// What reading one proxy message out of the bytes received so far gave: the message and how
/// many bytes it took, a need for more bytes, or the reason the bytes are not that message.
///
/// Every reader of `Tunnel/` reads with `ByteBuffer`'s bounds-checked `getInteger`/`getBytes`
/// from the reader index and moves nothing: a short or malformed message is a value here,
/// never a trap.
package enum TunnelMessage<Message: Sendable>: Sendable {
    /// The whole message and its length in bytes.
    case complete(Message, length: Int)
    /// The bytes so far are a beginning of the message; `atLeast` bytes are needed in all.
    case incomplete(atLeast: Int)
    /// The bytes are not this message: the reason, in words.
    case malformed(String)
}

extension ByteBuffer {
    /// The byte `offset` bytes past the reader index, nil past the end.
    func byte(at offset: Int) -> UInt8? {
        getInteger(at: readerIndex + offset, as: UInt8.self)
    }

    /// The big-endian 16-bit number `offset` bytes past the reader index, nil past the end.
    func uint16(at offset: Int) -> UInt16? {
        getInteger(at: readerIndex + offset, as: UInt16.self)
    }

    /// `length` bytes `offset` bytes past the reader index, nil past the end.
    func bytes(at offset: Int, length: Int) -> [UInt8]? {
        guard offset >= 0, length >= 0, length <= readableBytes - offset else { return nil }
        return getBytes(at: readerIndex + offset, length: length)
    }
}

/// A byte as two hex digits: `0x05`.
func hexByte(_ value: UInt8) -> String {
    let digits = String(value, radix: 16)
    return "0x" + (digits.count == 1 ? "0" + digits : digits)
}
