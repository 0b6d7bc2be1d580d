/// A capture's link-layer header type (libpcap `LINKTYPE_*` values as stored in pcap and pcapng
/// files), with the names tcpdump prints in its banners.
public struct LinkType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The `LINKTYPE_*` number as stored in pcap and pcapng files.
    public let rawValue: UInt32
    /// The link type numbered `rawValue`, taken as is (``init(fileValue:)`` also maps `DLT_RAW`).
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// BSD loopback: a 4-byte address family in the capturing host's byte order.
    public static let null = LinkType(rawValue: 0)
    /// Ethernet (what `-i lo` and `-i eth0` give on Linux).
    package static let ethernet = LinkType(rawValue: 1)
    /// Raw IP, no link header (version nibble tells v4 from v6).
    public static let raw = LinkType(rawValue: 101)
    /// OpenBSD loopback: like NULL but the family is big-endian.
    package static let loop = LinkType(rawValue: 108)
    /// Linux cooked capture v1 (16-byte header).
    package static let linuxSLL = LinkType(rawValue: 113)
    /// Raw IPv4 only.
    package static let ipv4 = LinkType(rawValue: 228)
    /// Raw IPv6 only.
    package static let ipv6 = LinkType(rawValue: 229)
    /// Linux cooked capture v2 (20-byte header; what `-i any` gives since libpcap 1.10).
    public static let linuxSLL2 = LinkType(rawValue: 276)

    /// `DLT_RAW` as some systems write it in pcap files (12 or 14) is read as ``raw``.
    public init(fileValue: UInt32) {
        switch fileValue {
        case 12, 14: self = .raw
        default: self.init(rawValue: fileValue)
        }
    }

    /// tcpdump's `NAME (description)`, e.g. `EN10MB (Ethernet)`; nil when sockctl has no decoder.
    public var tcpdumpName: String? {
        switch self {
        case .null: "NULL (BSD loopback)"
        case .ethernet: "EN10MB (Ethernet)"
        case .raw: "RAW (Raw IP)"
        case .loop: "LOOP (OpenBSD loopback)"
        case .linuxSLL: "LINUX_SLL (Linux cooked v1)"
        case .ipv4: "IPV4 (Raw IPv4)"
        case .ipv6: "IPV6 (Raw IPv6)"
        case .linuxSLL2: "LINUX_SLL2 (Linux cooked v2)"
        default: nil
        }
    }

    /// ``tcpdumpName``, or `link type N` for a type sockctl has no decoder for.
    public var description: String { tcpdumpName ?? "link type \(rawValue)" }
}
