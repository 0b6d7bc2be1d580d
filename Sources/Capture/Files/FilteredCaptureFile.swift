import PacketDecoding

/// A capture file read the way `capture -r` (and `tcpdump -r`) reads it: records in file
/// order, those a BPF filter rejects left out, at most a given number.
///
/// The filter is compiled once per link type, since a pcapng file may mix interfaces of several
/// link types. The file itself is read by ``CaptureFileReader`` (PacketDecoding); this type adds
/// libpcap's filter, which is why it lives here, next to ``LiveCapture``.
public final class FilteredCaptureFile {
    /// The path given (`-` for stdin), as the ``banner`` names it.
    public let path: String
    private let reader: CaptureFileReader
    private let filter: String?
    private var compiled: [UInt32: PacketFilter] = [:]

    /// Opens `path` (`-` for stdin); `filter` is a pcap-filter(7) expression or nil for all,
    /// compiled here for the file's first link type, so that a bad one is refused before any
    /// packet is read.
    public init(path: String, filter: String?) throws(CaptureError) {
        self.path = path
        self.filter = filter
        do {
            reader = try CaptureFileReader(path: path)
        } catch {
            throw CaptureError(error.code == .io && error.phase == .open ? .unopenableFile : .unreadableFile, error.description)
        }
        if let filter {
            compiled[reader.linkType.rawValue] = try PacketFilter(expression: filter, linkType: reader.linkType, snapshotLength: reader.snapshotLength)
        }
    }

    /// The link type of the file's first interface.
    public var linkType: LinkType { reader.linkType }
    /// The snapshot length of the file's first interface, as the ``banner`` prints it.
    public var snapshotLength: Int { reader.snapshotLength }

    /// tcpdump's first stderr line: `reading from file F, link-type EN10MB (Ethernet), snapshot
    /// length 262144`.
    public var banner: String {
        "reading from file \(path), link-type \(linkType.tcpdumpName ?? "\(linkType.rawValue)"), snapshot length \(snapshotLength)"
    }

    /// The TLS key log text of the pcapng Decryption Secrets Blocks met since the last call
    /// (nil if none): once a packet is handed out, the blocks before it are here.
    public func takeDecryptionSecrets() -> [UInt8]? {
        reader.takeDecryptionSecrets()
    }

    /// Hands each packet that passes the filter to `body`, at most `limit` of them. Ends at the
    /// end of the file; a record that cannot be read (a cut or corrupted file) is thrown as
    /// `.unreadableFile` after every packet before it was delivered, as tcpdump prints them
    /// before its error. `body` may stop the reading by throwing.
    public func forEach(limit: Int? = nil, _ body: (PacketHeader, UnsafeRawBufferPointer) throws(CaptureError) -> Void) throws(CaptureError) {
        var delivered = 0
        while limit.map({ delivered < $0 }) ?? true {
            let record: CaptureRecord
            do {
                guard let next = try reader.next() else { return }
                record = next
            } catch {
                throw CaptureError(.unreadableFile, error.description)
            }
            guard try matches(record) else { continue }
            delivered += 1
            try body(record.header, record.bytes)
        }
    }

    private func matches(_ record: CaptureRecord) throws(CaptureError) -> Bool {
        guard let filter else { return true }
        let linkType = record.header.linkType
        if let program = compiled[linkType.rawValue] {
            return program.matches(record.header, record.bytes)
        }
        let program = try PacketFilter(expression: filter, linkType: linkType, snapshotLength: reader.snapshotLength)
        compiled[linkType.rawValue] = program
        return program.matches(record.header, record.bytes)
    }
}
