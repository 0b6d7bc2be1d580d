import NIOCore
import NIOWebSocket

/// Masking (RFC 6455 §5.3) eight bytes at a time, in the same pass as the copy it needs
/// anyway. NIO's codec masks byte by byte, which was more than half of a client's CPU time
/// in bulk transfers.
enum WebSocketMasking {
    /// `source` XOR the key (starting at key byte `phase`), appended to `destination`.
    static func append(_ source: ByteBuffer, maskedWith key: WebSocketMaskingKey, phase: Int = 0, to destination: inout ByteBuffer) {
        let count = source.readableBytes
        guard count > 0 else { return }
        // The key repeated over eight bytes, starting at `phase`, in memory order.
        var pattern: UInt64 = 0
        withUnsafeMutableBytes(of: &pattern) { bytes in
            for index in 0..<8 { bytes[index] = key[(phase + index) & 3] }
        }
        _ = source.withUnsafeReadableBytes { input in
            destination.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { output in
                var offset = 0
                while offset + 8 <= count {
                    let word = input.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    output.storeBytes(of: word ^ pattern, toByteOffset: offset, as: UInt64.self)
                    offset += 8
                }
                while offset < count {
                    output[offset] = input[offset] ^ key[(phase + offset) & 3]
                    offset += 1
                }
                return count
            }
        }
    }

    /// The frame's payload, unmasked when it came masked (a copy), as is otherwise.
    static func payload(of frame: WebSocketFrame) -> ByteBuffer {
        guard let key = frame.maskKey, frame.data.readableBytes > 0 else { return frame.data }
        var unmasked = ByteBuffer()
        unmasked.reserveCapacity(frame.data.readableBytes)
        append(frame.data, maskedWith: key, to: &unmasked)
        return unmasked
    }
}
