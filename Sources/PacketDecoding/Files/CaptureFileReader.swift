import Glibc

/// Reads classic pcap and pcapng capture files the way libpcap 1.10.3 (tcpdump 4.99.3) does,
/// without Foundation and without copying packets.
///
/// ```
/// let reader = try CaptureFileReader(path: "trace.pcap")     // "-" reads standard input
/// while let record = try reader.next() { decode(record.header, record.bytes) }
/// ```
///
/// The input is read with `read(2)` in 256 KiB chunks into one reused buffer, and each record's
/// bytes are handed out in place. Malformed input ends with a ``PacketDecodingError`` carrying
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
package final class CaptureFileReader {
    /// The file's format.
    package internal(set) var format: CaptureFileFormat = .pcap
    /// The first interface's link type (pcap: the file header's).
    package internal(set) var linkType: LinkType = .ethernet
    /// The first interface's adjusted snapshot length (see ``CaptureInterface/snapshotLength``).
    package internal(set) var snapshotLength: Int = maximumCaptureLength
    /// The first interface's timestamp precision.
    package internal(set) var precision: TimestampPrecision = .microseconds
    /// pcap: the one interface the header describes. pcapng: the current section's interfaces,
    /// indexed by interface ID (a new Section Header Block empties it).
    package internal(set) var interfaces: [CaptureInterface] = []

    /// libpcap's `MAXIMUM_SNAPLEN`, the largest caplen accepted.
    package static let maximumCaptureLength = 262_144
    /// libpcap's `INITIAL_MAX_BLOCKSIZE`, the largest pcapng block accepted.
    package static let maximumBlockLength = 16 * 1024 * 1024
    /// The most interfaces one pcapng section may describe.
    package static let maximumInterfaces = 65_536

    let input: CaptureInput
    /// The file was written in the opposite byte order to this host's.
    var swapped = false
    var failure: PacketDecodingError?
    // Classic pcap only.
    var recordHeaderLength = 16
    var lengthOrder = LengthOrder.normal
    // pcapng only: the TLS key log text of the Decryption Secrets Blocks not yet taken.
    var decryptionSecrets: [UInt8]?

    /// Opens `path` (`-` is standard input) and reads its file header (pcapng: up to the first
    /// Interface Description Block).
    package convenience init(path: String) throws(PacketDecodingError) {
        if path == "-" {
            try self.init(fileDescriptor: 0, closeOnDeinit: false)
            return
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            throw PacketDecodingError(.io, phase: .open, "\(path): \(PacketDecodingError.systemMessage(code))", errno: code)
        }
        try self.init(fileDescriptor: descriptor, closeOnDeinit: true)
    }

    /// Reads from an open descriptor (a file, pipe or socket), closing it on release if asked.
    package init(fileDescriptor: Int32, closeOnDeinit: Bool) throws(PacketDecodingError) {
        input = CaptureInput(fileDescriptor: fileDescriptor, closeOnDeinit: closeOnDeinit)
        try readFileHeader()
    }

    /// Reads a capture held in memory (tests, fuzzing, small files).
    package init(bytes: [UInt8]) throws(PacketDecodingError) {
        input = CaptureInput(bytes: bytes)
        try readFileHeader()
    }

    /// The next packet record, or nil at a clean end of file.
    ///
    /// Throws on a read error or malformed input; after that every call throws the same error.
    package func next() throws(PacketDecodingError) -> CaptureRecord? {
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

    /// The TLS key log text (secrets type TLSK) of the pcapng Decryption Secrets Blocks read
    /// since the last call, in file order; nil if there were none. Blocks are met while reading,
    /// so the keys a packet needs are here once ``next()`` has returned that packet. At most
    /// ``maximumBlockLength`` bytes are kept between calls; blocks beyond that are dropped.
    package func takeDecryptionSecrets() -> [UInt8]? {
        defer { decryptionSecrets = nil }
        return decryptionSecrets
    }

    // MARK: - Format detection

    static let pcapMicrosecondMagic: UInt32 = 0xA1B2_C3D4
    static let pcapNanosecondMagic: UInt32 = 0xA1B2_3C4D
    /// Alexey Kuznetzov's patched libpcap: 24-byte record headers.
    static let pcapPatchedMagic: UInt32 = 0xA1B2_CD34
    static let sectionHeaderType: UInt32 = 0x0A0D_0D0A
    static let byteOrderMagic: UInt32 = 0x1A2B_3C4D

    func readFileHeader() throws(PacketDecodingError) {
        let available = try input.fill(4, .open)
        if available < 4 {
            throw PacketDecodingError(.truncated, phase: .open, "truncated dump file; tried to read 4 file header bytes, only got \(available)")
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

    static let unknownFormat = PacketDecodingError(.unsupportedFormat, phase: .open, "unknown file format")

    /// libpcap's `pcap_adjust_snapshot`.
    static func adjustedSnapshot(_ value: UInt32) -> Int {
        value == 0 || value > UInt32(maximumCaptureLength) ? maximumCaptureLength : Int(value)
    }

    func setFirstInterface(_ interface: CaptureInterface) {
        linkType = interface.linkType
        snapshotLength = interface.snapshotLength
        precision = interface.precision
    }

    // MARK: - Byte access (callers have made the bytes available)

    @inline(__always) func u16(_ position: Int) -> UInt16 {
        let value = input.loadU16(at: position)
        return swapped ? value.byteSwapped : value
    }

    @inline(__always) func u32(_ position: Int) -> UInt32 {
        let value = input.loadU32(at: position)
        return swapped ? value.byteSwapped : value
    }

    @inline(__always) func u64(_ position: Int) -> UInt64 {
        let value = input.loadU64(at: position)
        return swapped ? value.byteSwapped : value
    }
}
