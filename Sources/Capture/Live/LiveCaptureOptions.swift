import PacketDecoding

/// What to capture and how libpcap should buffer it; the input to ``LiveCapture/open(_:)``.
///
/// Defaults match `tcpdump -i any` except promiscuous mode: tcpdump turns it on for real
/// interfaces, sockctl leaves it off unless ``promiscuous`` is set, because a diagnostic tool
/// should not change an interface's state behind the user's back (loopback does not care, and
/// the `any` pseudo-device cannot be promiscuous at all, so it is never requested there).
public struct LiveCaptureOptions: Sendable, Equatable {
    /// Interface name (`lo`, `eth0`) or `any` for all interfaces.
    public var interface: String
    /// Bytes kept per packet; libpcap treats 0 and values above its maximum as 262144.
    public var snapshotLength: Int
    /// Deliver each packet as soon as it arrives instead of in kernel-sized batches.
    public var immediate: Bool
    /// How long the kernel may hold a partly filled buffer (tcpdump: 100 ms with `-l` or a terminal,
    /// 1000 ms otherwise; the caller decides). Ignored by libpcap in immediate mode.
    public var bufferTimeoutMilliseconds: Int
    /// A BPF expression (`tcp port 6969 and host 127.0.0.1`); nil or empty captures everything.
    public var filter: String?
    /// Link-layer header type to request (`-y`). Nil keeps the device's default, except on `any`,
    /// where LINUX_SLL2 is requested as tcpdump 4.99 does (falling back silently to libpcap's default).
    public var linkType: LinkType?
    /// Put a real interface into promiscuous mode. Never applied to `any`.
    package var promiscuous: Bool
    /// Timestamp resolution of delivered ``PacketHeader``s (`--nano`).
    public var timestampPrecision: TimestampPrecision

    /// `tcpdump -i any`'s defaults (262144-byte snapshot, 1000 ms buffer timeout, microseconds),
    /// except that promiscuous mode is off.
    public init(
        interface: String = "any",
        snapshotLength: Int = 262_144,
        immediate: Bool = false,
        bufferTimeoutMilliseconds: Int = 1000,
        filter: String? = nil,
        linkType: LinkType? = nil,
        promiscuous: Bool = false,
        timestampPrecision: TimestampPrecision = .microseconds
    ) {
        self.interface = interface
        self.snapshotLength = snapshotLength
        self.immediate = immediate
        self.bufferTimeoutMilliseconds = bufferTimeoutMilliseconds
        self.filter = filter
        self.linkType = linkType
        self.promiscuous = promiscuous
        self.timestampPrecision = timestampPrecision
    }

    /// The link type for a `-y` name such as `EN10MB`, `LINUX_SLL2` or `RAW` (case-insensitive).
    ///
    /// Only types sockctl can decode are known (those with a ``LinkType/tcpdumpName``); nil otherwise.
    public static func linkType(named name: String) -> LinkType? {
        let wanted = name.uppercased()
        for type in selectable {
            guard let full = type.tcpdumpName else { continue }
            if full.prefix(while: { $0 != " " }) == wanted { return type }
        }
        return nil
    }

    static let selectable: [LinkType] = [.null, .ethernet, .raw, .loop, .linuxSLL, .ipv4, .ipv6, .linuxSLL2]
}
