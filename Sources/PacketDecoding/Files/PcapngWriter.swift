/// Writes a pcapng file (little-endian, version 1.0) to an injected sink: one Section Header
/// Block, one Interface Description Block, then Enhanced Packet Blocks and, when asked,
/// Decryption Secrets Blocks.
///
/// ```
/// var writer = try PcapngWriter(linkType: .ethernet, snapshotLength: 262144) { chunk in try output.write(chunk) }
/// try writer.writeDecryptionSecrets(Array("CLIENT_RANDOM … …\n".utf8))
/// try writer.write(header, bytes)
/// try writer.flush()
/// ```
///
/// The same shape and rules as ``PcapWriter``, on the same parts: the section and interface
/// blocks are handed to the sink at once (a capture that sees no packet still leaves a valid
/// file), records go out in chunks through a ``CaptureFileBuffer``, so the caller must
/// ``flush()`` at the end; a sink error is rethrown and the unsent bytes are kept for the next
/// flush. Records are clamped to the snapshot length (``SnapshotLength``) and timestamps are
/// stored in the interface's resolution: microseconds (no `if_tsresol`, pcapng's default) or
/// nanoseconds (`if_tsresol` 9), converted from the record's precision
/// (``TimestampPrecision/fraction(_:from:)``).
package struct PcapngWriter {
    /// The Decryption Secrets Block's type.
    package static let decryptionSecretsType: UInt32 = 0x0000_000A
    /// The secrets type of a TLS key log (NSS format): "TLSK".
    package static let tlsKeyLogSecretsType: UInt32 = 0x544C_534B
    /// The most secrets bytes one Decryption Secrets Block carries; longer text is split at line
    /// ends into several blocks (readers accept blocks of up to 16 MiB).
    package static let maximumSecretsLength = 1024 * 1024

    package let linkType: LinkType
    /// The snapshot length written to the interface block (adjusted as above).
    package let snapshotLength: Int
    package let precision: TimestampPrecision

    private var buffer: CaptureFileBuffer

    package init(linkType: LinkType, snapshotLength: Int, precision: TimestampPrecision = .microseconds, write: @escaping ([UInt8]) throws -> Void) throws {
        self.linkType = linkType
        self.snapshotLength = SnapshotLength.clamped(snapshotLength)
        self.precision = precision
        buffer = CaptureFileBuffer(sink: write)
        // Section Header Block: byte-order magic, version 1.0, section length unknown (-1).
        buffer.append32(CaptureFileReader.sectionHeaderType)
        buffer.append32(28)
        buffer.append32(CaptureFileReader.byteOrderMagic)
        buffer.append16(1)
        buffer.append16(0)
        buffer.append32(0xFFFF_FFFF)
        buffer.append32(0xFFFF_FFFF)
        buffer.append32(28)
        // Interface Description Block: link type, snapshot length, if_tsresol when nanoseconds.
        let interfaceLength: UInt32 = precision == .nanoseconds ? 32 : 20
        buffer.append32(CaptureFileReader.interfaceDescriptionType)
        buffer.append32(interfaceLength)
        buffer.append16(UInt16(truncatingIfNeeded: linkType.rawValue))
        buffer.append16(0)
        buffer.append32(UInt32(self.snapshotLength))
        if precision == .nanoseconds {
            buffer.append16(9)  // if_tsresol
            buffer.append16(1)
            buffer.append(contentsOf: [9, 0, 0, 0])  // 10^-9, padded
            buffer.append32(0)  // opt_endofopt
        }
        buffer.append32(interfaceLength)
        try flush()
    }

    /// Appends one Enhanced Packet Block on interface 0: `bytes` (clamped to the snapshot length)
    /// with `header`'s timestamp and original length.
    package mutating func write(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer) throws {
        let captured = min(bytes.count, snapshotLength)
        let fraction = precision.fraction(header.fraction, from: header.precision)
        let units: UInt64 = precision == .nanoseconds ? 1_000_000_000 : 1_000_000
        // Negative seconds wrap like libpcap's unsigned arithmetic; no trap either way.
        let timestamp = UInt64(bitPattern: header.seconds) &* units &+ fraction
        let padded = (captured + 3) & ~3
        let total = UInt32(32 + padded)
        buffer.append32(CaptureFileReader.enhancedPacketType)
        buffer.append32(total)
        buffer.append32(0)
        buffer.append32(UInt32(truncatingIfNeeded: timestamp >> 32))
        buffer.append32(UInt32(truncatingIfNeeded: timestamp))
        buffer.append32(UInt32(captured))
        buffer.append32(UInt32(clamping: header.originalLength))
        if captured > 0 {
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<captured]))
        }
        buffer.appendPadding(padded - captured)
        buffer.append32(total)
        try buffer.flushIfFull()
    }

    /// Appends the key log text (NSS format, whole lines) as Decryption Secrets Blocks of type
    /// TLSK, before the packets that need them; each block carries at most
    /// ``maximumSecretsLength`` bytes, split after a line end where one falls in range. Empty text
    /// writes nothing. The blocks are handed to the sink at once, so a reader of a growing file
    /// meets the keys before the packets written after them.
    package mutating func writeDecryptionSecrets(_ keyLogText: [UInt8]) throws {
        var start = keyLogText.startIndex
        while start < keyLogText.endIndex {
            var end = min(keyLogText.endIndex, start + Self.maximumSecretsLength)
            if end < keyLogText.endIndex, let newline = keyLogText[start..<end].lastIndex(of: 0x0A) {
                end = newline + 1
            }
            let secrets = keyLogText[start..<end]
            let padded = (secrets.count + 3) & ~3
            let total = UInt32(20 + padded)
            buffer.append32(Self.decryptionSecretsType)
            buffer.append32(total)
            buffer.append32(Self.tlsKeyLogSecretsType)
            buffer.append32(UInt32(secrets.count))
            buffer.append(contentsOf: secrets)
            buffer.appendPadding(padded - secrets.count)
            buffer.append32(total)
            start = end
        }
        try flush()
    }

    /// Bytes of the file so far, those still pending included (what `ftell` gives tcpdump).
    package var byteCount: Int64 { buffer.byteCount }

    /// Hands everything pending to the sink.
    package mutating func flush() throws {
        try buffer.flush()
    }
}
