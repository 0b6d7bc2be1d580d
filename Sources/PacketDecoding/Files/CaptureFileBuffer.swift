/// The bytes a capture file writer (``PcapWriter``, ``PcapngWriter``) has made and not yet
/// handed to its sink: little-endian fields appended in place, handed over in chunks of about
/// ``chunkLength`` bytes (``flushIfFull()``) or all at once (``flush()``), and the count of the
/// file's bytes so far (``byteCount``, what `ftell` gives tcpdump, for `-C`).
///
/// A sink error is rethrown and the unsent bytes are kept for the next flush.
package struct CaptureFileBuffer {
    /// Records are handed to the sink once this many bytes are pending.
    package static let chunkLength = 64 * 1024

    private var pending: [UInt8] = []
    private var flushedBytes: Int64 = 0
    private let sink: ([UInt8]) throws -> Void

    /// An empty buffer that hands its bytes to `sink`.
    package init(sink: @escaping ([UInt8]) throws -> Void) {
        self.sink = sink
        pending.reserveCapacity(Self.chunkLength + 2048)
    }

    /// Bytes of the file so far, those still pending included.
    package var byteCount: Int64 { flushedBytes + Int64(pending.count) }

    /// Hands everything pending to the sink.
    package mutating func flush() throws {
        if pending.isEmpty { return }
        try sink(pending)
        flushedBytes += Int64(pending.count)
        pending.removeAll(keepingCapacity: true)
    }

    /// Flushes once a chunk's worth is pending.
    package mutating func flushIfFull() throws {
        if pending.count >= Self.chunkLength { try flush() }
    }

    package mutating func append16(_ value: UInt16) {
        pending.append(UInt8(truncatingIfNeeded: value))
        pending.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    package mutating func append32(_ value: UInt32) {
        pending.append(UInt8(truncatingIfNeeded: value))
        pending.append(UInt8(truncatingIfNeeded: value >> 8))
        pending.append(UInt8(truncatingIfNeeded: value >> 16))
        pending.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    /// Appends bytes as they are.
    package mutating func append<Bytes: Sequence>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
        pending.append(contentsOf: bytes)
    }

    /// Appends `count` zero bytes (a block's padding to 32 bits).
    package mutating func appendPadding(_ count: Int) {
        for _ in 0..<count { pending.append(0) }
    }
}
