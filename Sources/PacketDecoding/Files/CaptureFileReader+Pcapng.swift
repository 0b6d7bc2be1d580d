import Glibc

extension CaptureFileReader {
    static let interfaceDescriptionType: UInt32 = 1
    static let packetType: UInt32 = 2
    static let simplePacketType: UInt32 = 3
    static let enhancedPacketType: UInt32 = 6
    static let decryptionSecretsType: UInt32 = 0x0A

    /// One whole block, already consumed from the input; positions stay valid until the next fill.
    struct Block {
        var type: UInt32
        /// Position of the first byte after the 8-byte block header.
        var position: Int
        /// Bytes between the block header and the trailer.
        var remaining: Int

        /// Takes `count` bytes from the block body, or fails the way libpcap does.
        mutating func take(_ count: Int, _ phase: PacketDecodingError.Phase) throws(PacketDecodingError) -> Int {
            guard remaining >= count else {
                throw PacketDecodingError(.malformed, phase: phase, "block of type \(type) in pcapng dump file is too short")
            }
            let start = position
            position += count
            remaining -= count
            return start
        }
    }

    func readFirstSection() throws(PacketDecodingError) {
        format = .pcapng
        // Too short to hold the length and byte-order magic: "not pcapng" for libpcap.
        if try input.fill(12, .open) < 12 { throw Self.unknownFormat }
        let base = input.start
        let byteOrder = input.loadU32(at: base + 8)
        if byteOrder == Self.byteOrderMagic {
            swapped = false
        } else if byteOrder == Self.byteOrderMagic.byteSwapped {
            swapped = true
        } else {
            throw Self.unknownFormat
        }
        let total = u32(base + 4)
        // The first SHB is only checked for 28 ≤ length ≤ 1 MiB (not for alignment or trailer).
        guard total >= 28, total <= 1024 * 1024 else {
            throw PacketDecodingError(.malformed, phase: .open, "Section Header Block in pcapng dump file has invalid length 28 < _\(total)_ < 1048576 (BT_SHB_INSANE_MAX)")
        }
        let length = Int(total)
        let available = try input.fill(length, .open)
        if available < length {
            throw PacketDecodingError(.truncated, phase: .open, "truncated pcapng dump file; tried to read \(length - 12) bytes, only got \(available - 12)")
        }
        let major = u16(base + 12)
        let minor = u16(base + 14)
        guard major == 1, minor == 0 || minor == 2 else {
            throw PacketDecodingError(.unsupportedFormat, phase: .open, "unsupported pcapng savefile version \(major).\(minor)")
        }
        input.start += length
        while true {
            guard let block = try readBlock(.open) else {
                throw PacketDecodingError(.malformed, phase: .open, "the capture file has no Interface Description Blocks")
            }
            switch block.type {
            case Self.interfaceDescriptionType:
                let interface = try readInterface(block, .open)
                interfaces = [interface]
                setFirstInterface(interface)
                return
            case Self.enhancedPacketType, Self.simplePacketType, Self.packetType:
                throw PacketDecodingError(.malformed, phase: .open, "the capture file has a packet block before any Interface Description Blocks")
            case Self.decryptionSecretsType:
                keepDecryptionSecrets(block)
            default:
                continue
            }
        }
    }

    /// Reads and checks one block's framing; nil at a clean end of file.
    func readBlock(_ phase: PacketDecodingError.Phase) throws(PacketDecodingError) -> Block? {
        let available = try input.fill(8, phase)
        if available < 8 {
            if available == 0 { return nil }
            throw PacketDecodingError(.truncated, phase: phase, "truncated pcapng dump file; tried to read 8 bytes, only got \(available)")
        }
        let type = u32(input.start)
        let total = u32(input.start + 4)
        if total < 12 {
            throw PacketDecodingError(.malformed, phase: phase, "block in pcapng dump file has a length of \(total) < 12")
        }
        if total % 4 != 0 {
            throw PacketDecodingError(.malformed, phase: phase, "block in pcapng dump file has a length of \(total) that is not a multiple of 4")
        }
        if total > UInt32(Self.maximumBlockLength) {
            throw PacketDecodingError(.limitExceeded, phase: phase, "pcapng block size \(total) > maximum \(Self.maximumBlockLength)")
        }
        let length = Int(total)
        let got = try input.fill(length, phase)
        if got < length {
            throw PacketDecodingError(.truncated, phase: phase, "truncated pcapng dump file; tried to read \(length - 8) bytes, only got \(got - 8)")
        }
        let start = input.start
        if u32(start + length - 4) != total {
            throw PacketDecodingError(.malformed, phase: phase, "block total length in header and trailer don't match")
        }
        input.start = start + length
        return Block(type: type, position: start + 8, remaining: length - 12)
    }

    /// Keeps a Decryption Secrets Block's text when its secrets type is TLSK; other types, a
    /// length beyond the block and text past the bound are skipped, as libpcap skips the block.
    func keepDecryptionSecrets(_ block: Block) {
        guard block.remaining >= 8 else { return }
        let type = u32(block.position)
        let length = Int(u32(block.position + 4))
        guard type == PcapngWriter.tlsKeyLogSecretsType, length <= block.remaining - 8 else { return }
        let kept = decryptionSecrets?.count ?? 0
        guard kept + length <= Self.maximumBlockLength else { return }
        let text = input.bytes(at: block.position + 8, count: length)
        decryptionSecrets = (decryptionSecrets ?? []) + Array(text)
    }

    func idbError(_ text: String, _ phase: PacketDecodingError.Phase) -> PacketDecodingError {
        PacketDecodingError(.malformed, phase: phase, "Interface Description Block " + text)
    }

    /// Parses an Interface Description Block, with its `if_tsresol` and `if_tsoffset` options.
    func readInterface(_ block: Block, _ phase: PacketDecodingError.Phase) throws(PacketDecodingError) -> CaptureInterface {
        var block = block
        let fixed = try block.take(8, phase)
        let fileLinkType = u16(fixed)
        let snaplen = u32(fixed + 4)
        var units: UInt64 = 1_000_000
        var offset: Int64 = 0
        var sawResolution = false
        var sawOffset = false
        options: while block.remaining != 0 {
            let header = try block.take(4, phase)
            let code = u16(header)
            let length = u16(header + 2)
            let value = try block.take((Int(length) + 3) & ~3, phase)
            switch code {
            case 0:
                if length != 0 { throw idbError("has opt_endofopt option with length \(length) != 0", phase) }
                break options
            case 9:
                if length != 1 { throw idbError("has if_tsresol option with length \(length) != 1", phase) }
                if sawResolution { throw idbError("has more than one if_tsresol option", phase) }
                sawResolution = true
                let resolution = input.loadU8(at: value)
                if resolution & 0x80 != 0 {
                    let shift = resolution & 0x7F
                    if shift > 63 { throw idbError("if_tsresol option resolution 2^-\(shift) is too high", phase) }
                    units = 1 << UInt64(shift)
                } else {
                    if resolution > 19 { throw idbError("if_tsresol option resolution 10^-\(resolution) is too high", phase) }
                    units = 1
                    for _ in 0..<resolution { units &*= 10 }
                }
            case 14:
                if length != 8 { throw idbError("has if_tsoffset option with length \(length) != 8", phase) }
                if sawOffset { throw idbError("has more than one if_tsoffset option", phase) }
                sawOffset = true
                offset = Int64(bitPattern: u64(value))
            default:
                continue
            }
        }
        return CaptureInterface(
            linkType: LinkType(fileValue: UInt32(fileLinkType)),
            snapshotLength: Self.adjustedSnapshot(snaplen),
            precision: units <= 1_000_000 ? .microseconds : .nanoseconds,
            timestampUnitsPerSecond: units, timestampOffset: offset)
    }

    func nextPcapngRecord() throws(PacketDecodingError) -> CaptureRecord? {
        let phase = PacketDecodingError.Phase.record
        while true {
            guard var block = try readBlock(phase) else { return nil }
            let interfaceID: UInt32
            let caplen: UInt32
            let length: UInt32
            let timestamp: UInt64
            switch block.type {
            case Self.enhancedPacketType:
                let fixed = try block.take(20, phase)
                interfaceID = u32(fixed)
                timestamp = UInt64(u32(fixed + 4)) << 32 | UInt64(u32(fixed + 8))
                caplen = u32(fixed + 12)
                length = u32(fixed + 16)
            case Self.simplePacketType:
                let fixed = try block.take(4, phase)
                // Always interface 0; the caplen is what the snapshot length left of the packet.
                interfaceID = 0
                length = u32(fixed)
                let snapshot = interfaces.first?.snapshotLength ?? snapshotLength
                caplen = min(length, UInt32(snapshot))
                timestamp = 0
            case Self.packetType:
                let fixed = try block.take(20, phase)
                interfaceID = UInt32(u16(fixed))
                timestamp = UInt64(u32(fixed + 4)) << 32 | UInt64(u32(fixed + 8))
                caplen = u32(fixed + 12)
                length = u32(fixed + 16)
            case Self.interfaceDescriptionType:
                let interface = try readInterface(block, phase)
                if interfaces.count >= Self.maximumInterfaces {
                    throw PacketDecodingError(.limitExceeded, phase: phase, "more than \(Self.maximumInterfaces) interfaces in the file")
                }
                interfaces.append(interface)
                continue
            case Self.sectionHeaderType:
                let fixed = try block.take(16, phase)
                let byteOrder = u32(fixed)
                if byteOrder == Self.byteOrderMagic.byteSwapped {
                    throw PacketDecodingError(.unsupportedFormat, phase: phase, "the file has sections with different byte orders")
                }
                if byteOrder != Self.byteOrderMagic {
                    throw PacketDecodingError(.malformed, phase: phase, "the file has a section with a bad byte order magic field")
                }
                let major = u16(fixed + 4)
                if major != 1 {
                    throw PacketDecodingError(.unsupportedFormat, phase: phase, "unknown pcapng savefile major version number \(major)")
                }
                // A new section numbers its interfaces from 0 again.
                interfaces.removeAll(keepingCapacity: true)
                continue
            case Self.decryptionSecretsType:
                keepDecryptionSecrets(block)
                continue
            default:
                continue
            }
            guard Int(interfaceID) < interfaces.count else {
                throw PacketDecodingError(.malformed, phase: phase, "a packet arrived on interface \(interfaceID), but there's no Interface Description Block for that interface")
            }
            let interface = interfaces[Int(interfaceID)]
            if caplen > UInt32(interface.snapshotLength) {
                throw PacketDecodingError(.limitExceeded, phase: phase, "invalid packet capture length \(caplen), bigger than snaplen of \(interface.snapshotLength)")
            }
            let data = try block.take(Int(caplen), phase)
            let units = interface.timestampUnitsPerSecond
            let target: UInt64 = interface.precision == .nanoseconds ? 1_000_000_000 : 1_000_000
            var fraction = timestamp % units
            if units != target {
                // fraction < units, so fraction × target / units < target: no overflow, fits.
                let product = fraction.multipliedFullWidth(by: target)
                fraction = units.dividingFullWidth(product).quotient
            }
            return CaptureRecord(
                header: PacketHeader(
                    seconds: Int64(bitPattern: timestamp / units) &+ interface.timestampOffset,
                    fraction: UInt32(truncatingIfNeeded: fraction), precision: interface.precision,
                    capturedLength: Int(caplen), originalLength: Int(length),
                    interfaceID: Int(interfaceID), linkType: interface.linkType),
                bytes: input.bytes(at: data, count: Int(caplen)))
        }
    }
}
