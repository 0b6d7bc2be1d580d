import CZlib

/// The sending half of permessage-deflate (RFC 7692 §7.2.1) over zlib: each message
/// compressed as raw DEFLATE and flushed with a sync flush, whose final `00 00 FF FF` is
/// removed; the window carried over to the next message unless the agreement says this side
/// does not take its context over.
///
/// ```
/// message  "Hello"
/// payload  | f2 48 cd c9 c9 07 00 |   (sent with RSV1 on its first frame)
/// ```
///
/// zlib cannot compress raw DEFLATE with an 8-bit window: for an agreed window of 8 bits it
/// compresses with 9 bits but only run-length matches (distance 1), which any window reads.
/// zlib's state is made on the first message (a connection that sends nothing costs nothing).
/// Owned by one connection at a time, never shared.
public final class MessageDeflater: @unchecked Sendable {
    /// The window agreed for this side (8-15 bits).
    public let windowBits: Int
    /// True when the window starts empty for each message.
    public let resetsEachMessage: Bool
    private let stream: UnsafeMutablePointer<z_stream>
    private var started = false

    /// A deflater within the agreed `windowBits`; `resetsEachMessage` for no context takeover.
    public init(windowBits: Int, resetsEachMessage: Bool) {
        self.windowBits = min(15, max(8, windowBits))
        self.resetsEachMessage = resetsEachMessage
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if started { deflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// The payload of one compressed message; nil when zlib failed (send it uncompressed then:
    /// RFC 7692 §6 lets any message go without compression).
    public func compress(_ message: UnsafeRawBufferPointer) -> [UInt8]? {
        if !started {
            let bits = windowBits == 8 ? 9 : windowBits
            let strategy = windowBits == 8 ? Z_RLE : Z_DEFAULT_STRATEGY
            guard deflateInit2_(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, Int32(-bits), 8, strategy, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                return nil
            }
            started = true
        }
        var output: [UInt8] = []
        output.reserveCapacity(Int(deflateBound(stream, uLong(message.count))) + 16)
        let empty: [UInt8] = [0]
        let status: Int32 = empty.withUnsafeBytes { placeholder in
            let input = message.baseAddress != nil ? message : placeholder
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(message.count)
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            var status = Z_OK
            repeat {
                let made = chunk.withUnsafeMutableBufferPointer { target -> Int in
                    stream.pointee.next_out = target.baseAddress
                    stream.pointee.avail_out = uInt(target.count)
                    status = deflate(stream, Z_SYNC_FLUSH)
                    return target.count - Int(stream.pointee.avail_out)
                }
                output.append(contentsOf: chunk[0..<made])
                // A sync flush is complete when the output was not filled.
                if stream.pointee.avail_out != 0 { break }
            } while status == Z_OK
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
            stream.pointee.next_out = nil
            stream.pointee.avail_out = 0
            return status
        }
        guard status == Z_OK || status == Z_BUF_ERROR else { return nil }
        if output.count >= 4, output.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]) {
            output.removeLast(4)
        }
        // An empty message right after another: zlib has nothing to flush and writes nothing.
        // The payload of an empty message is then one 0x00 (RFC 7692 §7.2.3.6): with the tail
        // put back, an empty stored block, which the peer's window does not notice.
        if output.isEmpty { output = [0x00] }
        if resetsEachMessage { deflateReset(stream) }
        return output
    }
}
