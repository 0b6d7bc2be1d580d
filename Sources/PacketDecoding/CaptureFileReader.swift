#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The container format of a capture file.
public enum CaptureFileFormat: Sendable {
    /// Classic libpcap format (`a1b2c3d4` µs or `a1b23c4d` ns magic, either byte order).
    case pcap
    /// pcapng (Section Header Block `0a0d0d0a`).
    case pcapng
}

/// One capture interface: the whole file for classic pcap, one Interface Description Block for
/// pcapng.
public struct CaptureInterface: Sendable {
    public var linkType: LinkType
    /// The snapshot length as libpcap adjusts it: 0 or more than 262144 reads as 262144.
    public var snapshotLength: Int
    /// The precision of ``PacketHeader/fraction`` in this interface's records.
    public var precision: TimestampPrecision
    /// Timestamp units per second stored in the file: 10⁶ for pcap µs and pcapng without
    /// `if_tsresol`, 10⁹ for pcap ns, else 10ⁿ or 2ⁿ from `if_tsresol`.
    ///
    /// Resolutions of at most 10⁶ units per second (10⁰…10⁻⁶, 2⁻¹…2⁻¹⁹) are converted to
    /// microseconds, finer ones (10⁻⁷…10⁻¹⁹, 2⁻²⁰…2⁻⁶³) to nanoseconds, truncating like libpcap.
    public var timestampUnitsPerSecond: UInt64
    /// pcapng `if_tsoffset`: seconds added to every timestamp (0 when absent).
    public var timestampOffset: Int64

    public init(linkType: LinkType, snapshotLength: Int, precision: TimestampPrecision, timestampUnitsPerSecond: UInt64? = nil, timestampOffset: Int64 = 0) {
        self.linkType = linkType
        self.snapshotLength = snapshotLength
        self.precision = precision
        self.timestampUnitsPerSecond = timestampUnitsPerSecond ?? (precision == .nanoseconds ? 1_000_000_000 : 1_000_000)
        self.timestampOffset = timestampOffset
    }
}

/// One packet read from a capture file.
public struct CaptureRecord {
    public var header: PacketHeader
    /// The captured bytes (`header.capturedLength` of them), pointing into the reader's buffer:
    /// valid only until the next call to ``CaptureFileReader/next()`` or the reader's release.
    public var bytes: UnsafeRawBufferPointer
}

/// Reads classic pcap and pcapng capture files the way libpcap 1.10.3 (tcpdump 4.99.3) does,
/// without Foundation and without copying packets.
///
/// ```
/// let reader = try CaptureFileReader(path: "trace.pcap")     // "-" reads standard input
/// while let record = try reader.next() { decode(record.header, record.bytes) }
/// ```
///
/// The input is read with `read(2)` in 256 KiB chunks into one reused buffer, and each record's
/// bytes are handed out in place. Malformed input ends with a ``CaptureFileError`` carrying
/// libpcap's message; records before it are delivered first, and every later ``next()`` throws
/// the same error again.
///
/// Limits: a record's caplen may not exceed 262144 (libpcap's maximum for every link type sockctl
/// decodes), a pcapng block 16 MiB, a pcapng section 65536 interfaces; memory use is bounded by
/// the largest of those, whatever the file claims.
///
/// Differences from libpcap, on purpose: pcapng files whose interfaces have different link types
/// or snapshot lengths are read (each record carries its interface's link type), where libpcap
/// stops with `an interface has a type … different from the type of the first interface`;
/// timestamps keep the file's precision (µs or ns, see ``CaptureInterface``) instead of being
/// converted to the caller's. Not checked here (the printer's job, as in tcpdump): caplen 0,
/// caplen > len, fractions ≥ 1 s, link types without a decoder.
public final class CaptureFileReader {
    /// The file's format.
    public private(set) var format: CaptureFileFormat = .pcap
    /// The first interface's link type (pcap: the file header's).
    public private(set) var linkType: LinkType = .ethernet
    /// The first interface's adjusted snapshot length (see ``CaptureInterface/snapshotLength``).
    public private(set) var snapshotLength: Int = maximumCaptureLength
    /// The first interface's timestamp precision.
    public private(set) var precision: TimestampPrecision = .microseconds
    /// pcap: the one interface the header describes. pcapng: the current section's interfaces,
    /// indexed by interface ID (a new Section Header Block empties it).
    public private(set) var interfaces: [CaptureInterface] = []

    /// libpcap's `MAXIMUM_SNAPLEN`, the largest caplen accepted.
    public static let maximumCaptureLength = 262_144
    /// libpcap's `INITIAL_MAX_BLOCKSIZE`, the largest pcapng block accepted.
    public static let maximumBlockLength = 16 * 1024 * 1024
    /// The most interfaces one pcapng section may describe.
    public static let maximumInterfaces = 65_536

    private let input: CaptureInput
    /// The file was written in the opposite byte order to this host's.
    private var swapped = false
    private var failure: CaptureFileError?
    // Classic pcap only.
    private var recordHeaderLength = 16
    private var lengthOrder = LengthOrder.normal

    /// Opens `path` (`-` is standard input) and reads its file header (pcapng: up to the first
    /// Interface Description Block).
    public convenience init(path: String) throws(CaptureFileError) {
        if path == "-" {
            try self.init(fileDescriptor: 0, closeOnDeinit: false)
            return
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            throw CaptureFileError(.io, phase: .open, "\(path): \(CaptureFileError.systemMessage(code))", errno: code)
        }
        try self.init(fileDescriptor: descriptor, closeOnDeinit: true)
    }

    /// Reads from an open descriptor (a file, pipe or socket), closing it on release if asked.
    public init(fileDescriptor: Int32, closeOnDeinit: Bool) throws(CaptureFileError) {
        input = CaptureInput(fileDescriptor: fileDescriptor, closeOnDeinit: closeOnDeinit)
        try readFileHeader()
    }

    /// Reads a capture held in memory (tests, fuzzing, small files).
    public init(bytes: [UInt8]) throws(CaptureFileError) {
        input = CaptureInput(bytes: bytes)
        try readFileHeader()
    }

    /// The next packet record, or nil at a clean end of file.
    ///
    /// Throws on a read error or malformed input; after that every call throws the same error.
    public func next() throws(CaptureFileError) -> CaptureRecord? {
        if let failure { throw failure }
        do {
            switch format {
            case .pcap: return try nextPcapRecord()
            case .pcapng: return try nextPcapngRecord()
            }
        } catch {
            failure = error
            throw error
        }
    }

    // MARK: - Format detection

    private static let pcapMicrosecondMagic: UInt32 = 0xA1B2_C3D4
    private static let pcapNanosecondMagic: UInt32 = 0xA1B2_3C4D
    /// Alexey Kuznetzov's patched libpcap: 24-byte record headers.
    private static let pcapPatchedMagic: UInt32 = 0xA1B2_CD34
    private static let sectionHeaderType: UInt32 = 0x0A0D_0D0A
    private static let byteOrderMagic: UInt32 = 0x1A2B_3C4D

    private func readFileHeader() throws(CaptureFileError) {
        let available = try input.fill(4, .open)
        if available < 4 {
            throw CaptureFileError(.truncated, phase: .open, "truncated dump file; tried to read 4 file header bytes, only got \(available)")
        }
        let magic = input.loadU32(at: input.start)
        let pcapMagics = [Self.pcapMicrosecondMagic, Self.pcapNanosecondMagic, Self.pcapPatchedMagic]
        if pcapMagics.contains(magic) {
            try readPcapHeader(magic: magic, swapped: false)
        } else if pcapMagics.contains(magic.byteSwapped) {
            try readPcapHeader(magic: magic.byteSwapped, swapped: true)
        } else if magic == Self.sectionHeaderType {
            try readFirstSection()
        } else {
            throw Self.unknownFormat
        }
    }

    private static let unknownFormat = CaptureFileError(.unsupportedFormat, phase: .open, "unknown file format")

    /// libpcap's `pcap_adjust_snapshot`.
    private static func adjustedSnapshot(_ value: UInt32) -> Int {
        value == 0 || value > UInt32(maximumCaptureLength) ? maximumCaptureLength : Int(value)
    }

    private func setFirstInterface(_ interface: CaptureInterface) {
        linkType = interface.linkType
        snapshotLength = interface.snapshotLength
        precision = interface.precision
    }

    // MARK: - Byte access (callers have made the bytes available)

    @inline(__always) private func u16(_ position: Int) -> UInt16 {
        let value = input.loadU16(at: position)
        return swapped ? value.byteSwapped : value
    }

    @inline(__always) private func u32(_ position: Int) -> UInt32 {
        let value = input.loadU32(at: position)
        return swapped ? value.byteSwapped : value
    }

    @inline(__always) private func u64(_ position: Int) -> UInt64 {
        let value = input.loadU64(at: position)
        return swapped ? value.byteSwapped : value
    }
}

// MARK: - Classic pcap

extension CaptureFileReader {
    /// How a file orders the caplen and len fields (swapped before pcap 2.3, and by DG/UX 543.0).
    enum LengthOrder {
        case normal, swapped, swappedIfCaplenExceedsLen
    }

    private func readPcapHeader(magic: UInt32, swapped: Bool) throws(CaptureFileError) {
        self.swapped = swapped
        format = .pcap
        let available = try input.fill(24, .open)
        if available < 24 {
            throw CaptureFileError(.truncated, phase: .open, "truncated dump file; tried to read 24 file header bytes, only got \(available - 4)")
        }
        let base = input.start
        let major = u16(base + 4)
        let minor = u16(base + 6)
        let snaplen = u32(base + 16)
        let fileLinkType = u32(base + 20)
        if major < 2 {
            throw CaptureFileError(.unsupportedFormat, phase: .open, "archaic pcap savefile format")
        }
        guard (major == 2 && minor <= 4) || (major == 543 && minor == 0) else {
            throw CaptureFileError(.unsupportedFormat, phase: .open, "unsupported pcap savefile version \(major).\(minor)")
        }
        switch major {
        case 2: lengthOrder = minor < 3 ? .swapped : (minor == 3 ? .swappedIfCaplenExceedsLen : .normal)
        case 543: lengthOrder = .swapped
        default: lengthOrder = .normal
        }
        // The top 6 bits carry FCS information (LT_LINKTYPE_EXT); libpcap masks them off.
        let link = LinkType(fileValue: fileLinkType & 0x03FF_FFFF)
        var snapshot = Self.adjustedSnapshot(snaplen)
        if magic == Self.pcapPatchedMagic {
            recordHeaderLength = 24
            // libpcap assumes a cooked capture with a faked 14-byte Ethernet header.
            if link == .ethernet { snapshot += 14 }
        }
        let interface = CaptureInterface(
            linkType: link, snapshotLength: snapshot,
            precision: magic == Self.pcapNanosecondMagic ? .nanoseconds : .microseconds)
        interfaces = [interface]
        setFirstInterface(interface)
        input.start += 24
    }

    private func nextPcapRecord() throws(CaptureFileError) -> CaptureRecord? {
        let headerLength = recordHeaderLength
        let available = try input.fill(headerLength, .record)
        if available < headerLength {
            if available == 0 { return nil }
            throw CaptureFileError(.truncated, phase: .record, "truncated dump file; tried to read \(headerLength) header bytes, only got \(available)")
        }
        let base = input.start
        let seconds = u32(base)
        let fraction = u32(base + 4)
        var caplen = u32(base + 8)
        var length = u32(base + 12)
        switch lengthOrder {
        case .normal: break
        case .swapped: swap(&caplen, &length)
        case .swappedIfCaplenExceedsLen: if caplen > length { swap(&caplen, &length) }
        }
        let snapshot = snapshotLength
        if caplen > UInt32(Self.maximumCaptureLength) {
            let limit = caplen > UInt32(snapshot) ? "snaplen of \(snapshot)" : "maximum of \(Self.maximumCaptureLength)"
            throw CaptureFileError(.limitExceeded, phase: .record, "invalid packet capture length \(caplen), bigger than \(limit)")
        }
        let captured = Int(caplen)
        let got = try input.fill(headerLength + captured, .record) - headerLength
        if got < captured {
            // Like libpcap: reading up to the snapshot length fails first, then the discard.
            let wanted = captured > snapshot && got < snapshot ? snapshot : captured
            throw CaptureFileError(.truncated, phase: .record, "truncated dump file; tried to read \(wanted) captured bytes, only got \(got)")
        }
        // A record longer than the snapshot length is clamped to it; the rest is discarded.
        let kept = min(captured, snapshot)
        let start = input.start
        input.start = start + headerLength + captured
        let interface = interfaces[0]
        return CaptureRecord(
            header: PacketHeader(
                seconds: Int64(Int32(bitPattern: seconds)), fraction: fraction, precision: interface.precision,
                capturedLength: kept, originalLength: Int(length), interfaceID: 0, linkType: interface.linkType),
            bytes: input.bytes(at: start + headerLength, count: kept))
    }
}

// MARK: - pcapng

extension CaptureFileReader {
    private static let interfaceDescriptionType: UInt32 = 1
    private static let packetType: UInt32 = 2
    private static let simplePacketType: UInt32 = 3
    private static let enhancedPacketType: UInt32 = 6

    /// One whole block, already consumed from the input; positions stay valid until the next fill.
    private struct Block {
        var type: UInt32
        /// Position of the first byte after the 8-byte block header.
        var position: Int
        /// Bytes between the block header and the trailer.
        var remaining: Int

        /// Takes `count` bytes from the block body, or fails the way libpcap does.
        mutating func take(_ count: Int, _ phase: CaptureFileError.Phase) throws(CaptureFileError) -> Int {
            guard remaining >= count else {
                throw CaptureFileError(.malformed, phase: phase, "block of type \(type) in pcapng dump file is too short")
            }
            let start = position
            position += count
            remaining -= count
            return start
        }
    }

    private func readFirstSection() throws(CaptureFileError) {
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
            throw CaptureFileError(.malformed, phase: .open, "Section Header Block in pcapng dump file has invalid length 28 < _\(total)_ < 1048576 (BT_SHB_INSANE_MAX)")
        }
        let length = Int(total)
        let available = try input.fill(length, .open)
        if available < length {
            throw CaptureFileError(.truncated, phase: .open, "truncated pcapng dump file; tried to read \(length - 12) bytes, only got \(available - 12)")
        }
        let major = u16(base + 12)
        let minor = u16(base + 14)
        guard major == 1, minor == 0 || minor == 2 else {
            throw CaptureFileError(.unsupportedFormat, phase: .open, "unsupported pcapng savefile version \(major).\(minor)")
        }
        input.start += length
        while true {
            guard let block = try readBlock(.open) else {
                throw CaptureFileError(.malformed, phase: .open, "the capture file has no Interface Description Blocks")
            }
            switch block.type {
            case Self.interfaceDescriptionType:
                let interface = try readInterface(block, .open)
                interfaces = [interface]
                setFirstInterface(interface)
                return
            case Self.enhancedPacketType, Self.simplePacketType, Self.packetType:
                throw CaptureFileError(.malformed, phase: .open, "the capture file has a packet block before any Interface Description Blocks")
            default:
                continue
            }
        }
    }

    /// Reads and checks one block's framing; nil at a clean end of file.
    private func readBlock(_ phase: CaptureFileError.Phase) throws(CaptureFileError) -> Block? {
        let available = try input.fill(8, phase)
        if available < 8 {
            if available == 0 { return nil }
            throw CaptureFileError(.truncated, phase: phase, "truncated pcapng dump file; tried to read 8 bytes, only got \(available)")
        }
        let type = u32(input.start)
        let total = u32(input.start + 4)
        if total < 12 {
            throw CaptureFileError(.malformed, phase: phase, "block in pcapng dump file has a length of \(total) < 12")
        }
        if total % 4 != 0 {
            throw CaptureFileError(.malformed, phase: phase, "block in pcapng dump file has a length of \(total) that is not a multiple of 4")
        }
        if total > UInt32(Self.maximumBlockLength) {
            throw CaptureFileError(.limitExceeded, phase: phase, "pcapng block size \(total) > maximum \(Self.maximumBlockLength)")
        }
        let length = Int(total)
        let got = try input.fill(length, phase)
        if got < length {
            throw CaptureFileError(.truncated, phase: phase, "truncated pcapng dump file; tried to read \(length - 8) bytes, only got \(got - 8)")
        }
        let start = input.start
        if u32(start + length - 4) != total {
            throw CaptureFileError(.malformed, phase: phase, "block total length in header and trailer don't match")
        }
        input.start = start + length
        return Block(type: type, position: start + 8, remaining: length - 12)
    }

    private func idbError(_ text: String, _ phase: CaptureFileError.Phase) -> CaptureFileError {
        CaptureFileError(.malformed, phase: phase, "Interface Description Block " + text)
    }

    /// Parses an Interface Description Block, with its `if_tsresol` and `if_tsoffset` options.
    private func readInterface(_ block: Block, _ phase: CaptureFileError.Phase) throws(CaptureFileError) -> CaptureInterface {
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

    private func nextPcapngRecord() throws(CaptureFileError) -> CaptureRecord? {
        let phase = CaptureFileError.Phase.record
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
                    throw CaptureFileError(.limitExceeded, phase: phase, "more than \(Self.maximumInterfaces) interfaces in the file")
                }
                interfaces.append(interface)
                continue
            case Self.sectionHeaderType:
                let fixed = try block.take(16, phase)
                let byteOrder = u32(fixed)
                if byteOrder == Self.byteOrderMagic.byteSwapped {
                    throw CaptureFileError(.unsupportedFormat, phase: phase, "the file has sections with different byte orders")
                }
                if byteOrder != Self.byteOrderMagic {
                    throw CaptureFileError(.malformed, phase: phase, "the file has a section with a bad byte order magic field")
                }
                let major = u16(fixed + 4)
                if major != 1 {
                    throw CaptureFileError(.unsupportedFormat, phase: phase, "unknown pcapng savefile major version number \(major)")
                }
                // A new section numbers its interfaces from 0 again.
                interfaces.removeAll(keepingCapacity: true)
                continue
            default:
                continue
            }
            guard Int(interfaceID) < interfaces.count else {
                throw CaptureFileError(.malformed, phase: phase, "a packet arrived on interface \(interfaceID), but there's no Interface Description Block for that interface")
            }
            let interface = interfaces[Int(interfaceID)]
            if caplen > UInt32(interface.snapshotLength) {
                throw CaptureFileError(.limitExceeded, phase: phase, "invalid packet capture length \(caplen), bigger than snaplen of \(interface.snapshotLength)")
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

// MARK: - Buffered input

/// The reader's input: one growable buffer, refilled with `read(2)` in large chunks.
///
/// Bytes from `start` to `end` are unconsumed; positions handed out are offsets from the buffer's
/// base and stay valid until the next ``fill(_:_:)`` (which may move or reallocate the buffer).
/// The buffer only grows to the largest single header, record or block asked for, which the
/// reader caps.
final class CaptureInput {
    static let chunkLength = 256 * 1024

    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// Offset of the first unconsumed byte.
    var start = 0
    private var end = 0
    private let descriptor: Int32
    private let closeOnDeinit: Bool
    private var atEnd: Bool

    init(fileDescriptor: Int32, closeOnDeinit: Bool) {
        capacity = Self.chunkLength
        base = .allocate(byteCount: capacity, alignment: 16)
        descriptor = fileDescriptor
        self.closeOnDeinit = closeOnDeinit
        atEnd = false
    }

    init(bytes: [UInt8]) {
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { source in
            if let address = source.baseAddress { storage.copyMemory(from: address, byteCount: source.count) }
        }
        base = storage
        capacity = max(bytes.count, 1)
        end = bytes.count
        descriptor = -1
        closeOnDeinit = false
        atEnd = true
    }

    deinit {
        base.deallocate()
        if closeOnDeinit, descriptor >= 0 { _ = close(descriptor) }
    }

    /// Makes `count` bytes available from `start` unless the input ends first, and returns how
    /// many are available (fewer than `count` only at end of input).
    @inline(__always) func fill(_ count: Int, _ phase: CaptureFileError.Phase) throws(CaptureFileError) -> Int {
        let available = end - start
        if available >= count || atEnd { return available }
        return try refill(count, phase)
    }

    private func refill(_ count: Int, _ phase: CaptureFileError.Phase) throws(CaptureFileError) -> Int {
        if capacity - start < count {
            let available = end - start
            if count > capacity {
                let newCapacity = max(count, capacity * 2)
                let bigger = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
                bigger.copyMemory(from: base + start, byteCount: available)
                base.deallocate()
                base = bigger
                capacity = newCapacity
            } else if available > 0 {
                memmove(base, base + start, available)
            }
            start = 0
            end = available
        }
        while end - start < count {
            let got = read(descriptor, base + end, capacity - end)
            if got > 0 {
                end += got
            } else if got == 0 {
                atEnd = true
                break
            } else {
                let code = errno
                if code == EINTR { continue }
                throw CaptureFileError(.io, phase: phase, "error reading dump file: \(CaptureFileError.systemMessage(code))", errno: code)
            }
        }
        return end - start
    }

    @inline(__always) func loadU8(at position: Int) -> UInt8 {
        base.load(fromByteOffset: position, as: UInt8.self)
    }

    @inline(__always) func loadU16(at position: Int) -> UInt16 {
        base.loadUnaligned(fromByteOffset: position, as: UInt16.self)
    }

    @inline(__always) func loadU32(at position: Int) -> UInt32 {
        base.loadUnaligned(fromByteOffset: position, as: UInt32.self)
    }

    @inline(__always) func loadU64(at position: Int) -> UInt64 {
        base.loadUnaligned(fromByteOffset: position, as: UInt64.self)
    }

    @inline(__always) func bytes(at position: Int, count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + position, count: count)
    }
}
