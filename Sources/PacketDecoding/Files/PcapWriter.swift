/// Writes a classic pcap file (little-endian, version 2.4) to an injected sink.
///
/// ```
/// var writer = try PcapWriter(linkType: .ethernet, snapshotLength: 262144) { chunk in try output.write(chunk) }
/// try writer.write(header, bytes)
/// try writer.flush()
/// ```
///
/// The 24-byte file header is handed to the sink at once (so even a capture that sees no packet
/// leaves a valid file, like `tcpdump -w`); records are collected and handed over in chunks of
/// about ``chunkLength`` bytes, so the caller must ``flush()`` at the end. A sink error is
/// rethrown and the unsent bytes are kept for the next flush.
///
/// Records are clamped to the snapshot length (0 or more than 262144 means 262144, so every file
/// written reads back in libpcap); timestamps are converted to the writer's precision
/// (µs → ns multiplies, ns → µs truncates). Not errors: caplen 0, len < caplen, fractions ≥ 1 s —
/// written as given.
package struct PcapWriter {
    /// Records are handed to the sink once this many bytes are pending.
    package static let chunkLength = 64 * 1024

    package let linkType: LinkType
    /// The snapshot length written to the file header (adjusted as above).
    package let snapshotLength: Int
    package let precision: TimestampPrecision

    private var pending: [UInt8] = []
    private var flushedBytes: Int64 = 0
    private let sink: ([UInt8]) throws -> Void

    package init(linkType: LinkType, snapshotLength: Int, precision: TimestampPrecision = .microseconds, write: @escaping ([UInt8]) throws -> Void) throws {
        let maximum = CaptureFileReader.maximumCaptureLength
        self.linkType = linkType
        self.snapshotLength = snapshotLength <= 0 || snapshotLength > maximum ? maximum : snapshotLength
        self.precision = precision
        sink = write
        pending.reserveCapacity(Self.chunkLength + 2048)
        append32(precision == .nanoseconds ? 0xA1B2_3C4D : 0xA1B2_C3D4)
        append16(2)
        append16(4)
        append32(0)  // thiszone
        append32(0)  // sigfigs
        append32(UInt32(self.snapshotLength))
        append32(linkType.rawValue)
        try flush()
    }

    /// Appends one record: `bytes` (clamped to the snapshot length) with `header`'s timestamp and
    /// original length.
    package mutating func write(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer) throws {
        let captured = min(bytes.count, snapshotLength)
        var fraction = UInt64(header.fraction)
        switch (header.precision, precision) {
        case (.microseconds, .nanoseconds): fraction *= 1000
        case (.nanoseconds, .microseconds): fraction /= 1000
        default: break
        }
        let record = (
            UInt32(truncatingIfNeeded: header.seconds).littleEndian,
            UInt32(truncatingIfNeeded: fraction).littleEndian,
            UInt32(captured).littleEndian,
            UInt32(clamping: header.originalLength).littleEndian)
        withUnsafeBytes(of: record) { pending.append(contentsOf: $0) }
        if captured > 0 {
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<captured]))
        }
        if pending.count >= Self.chunkLength { try flush() }
    }

    /// Bytes of the file so far, those still pending included (what `ftell` gives tcpdump).
    package var byteCount: Int64 { flushedBytes + Int64(pending.count) }

    /// Hands everything pending to the sink.
    package mutating func flush() throws {
        if pending.isEmpty { return }
        try sink(pending)
        flushedBytes += Int64(pending.count)
        pending.removeAll(keepingCapacity: true)
    }

    private mutating func append16(_ value: UInt16) {
        pending.append(UInt8(truncatingIfNeeded: value))
        pending.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    private mutating func append32(_ value: UInt32) {
        pending.append(UInt8(truncatingIfNeeded: value))
        pending.append(UInt8(truncatingIfNeeded: value >> 8))
        pending.append(UInt8(truncatingIfNeeded: value >> 16))
        pending.append(UInt8(truncatingIfNeeded: value >> 24))
    }
}
