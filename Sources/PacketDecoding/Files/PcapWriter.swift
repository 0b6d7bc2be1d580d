/// Writes a classic pcap file (little-endian, version 2.4) to an injected sink.
///
/// ```
/// var writer = try PcapWriter(linkType: .ethernet, snapshotLength: 262144) { chunk in try output.write(chunk) }
/// try writer.write(header, bytes)
/// try writer.flush()
/// ```
///
/// The 24-byte file header is handed to the sink at once (so even a capture that sees no packet
/// leaves a valid file, like `tcpdump -w`); records are collected in a ``CaptureFileBuffer`` and
/// handed over in chunks of about ``chunkLength`` bytes, so the caller must ``flush()`` at the
/// end. A sink error is rethrown and the unsent bytes are kept for the next flush.
///
/// Records are clamped to the snapshot length (``SnapshotLength``: 0 or more than 262144 means
/// 262144, so every file written reads back in libpcap); timestamps are converted to the
/// writer's precision (``TimestampPrecision/fraction(_:from:)``: µs → ns multiplies, ns → µs
/// truncates). Not errors: caplen 0, len < caplen, fractions ≥ 1 s — written as given.
package struct PcapWriter {
    /// Records are handed to the sink once this many bytes are pending.
    package static var chunkLength: Int { CaptureFileBuffer.chunkLength }

    package let linkType: LinkType
    /// The snapshot length written to the file header (adjusted as above).
    package let snapshotLength: Int
    package let precision: TimestampPrecision

    private var buffer: CaptureFileBuffer

    package init(linkType: LinkType, snapshotLength: Int, precision: TimestampPrecision = .microseconds, write: @escaping ([UInt8]) throws -> Void) throws {
        self.linkType = linkType
        self.snapshotLength = SnapshotLength.clamped(snapshotLength)
        self.precision = precision
        buffer = CaptureFileBuffer(sink: write)
        buffer.append32(precision == .nanoseconds ? 0xA1B2_3C4D : 0xA1B2_C3D4)
        buffer.append16(2)
        buffer.append16(4)
        buffer.append32(0)  // thiszone
        buffer.append32(0)  // sigfigs
        buffer.append32(UInt32(self.snapshotLength))
        buffer.append32(linkType.rawValue)
        try flush()
    }

    /// Appends one record: `bytes` (clamped to the snapshot length) with `header`'s timestamp and
    /// original length.
    package mutating func write(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer) throws {
        let captured = min(bytes.count, snapshotLength)
        let fraction = precision.fraction(header.fraction, from: header.precision)
        buffer.append32(UInt32(truncatingIfNeeded: header.seconds))
        buffer.append32(UInt32(truncatingIfNeeded: fraction))
        buffer.append32(UInt32(captured))
        buffer.append32(UInt32(clamping: header.originalLength))
        if captured > 0 {
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<captured]))
        }
        try buffer.flushIfFull()
    }

    /// Bytes of the file so far, those still pending included (what `ftell` gives tcpdump).
    package var byteCount: Int64 { buffer.byteCount }

    /// Hands everything pending to the sink.
    package mutating func flush() throws {
        try buffer.flush()
    }
}
