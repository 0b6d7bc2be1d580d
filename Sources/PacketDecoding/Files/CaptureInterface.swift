import Glibc

/// One capture interface: the whole file for classic pcap, one Interface Description Block for
/// pcapng.
package struct CaptureInterface: Sendable {
    package var linkType: LinkType
    /// The snapshot length as libpcap adjusts it: 0 or more than 262144 reads as 262144.
    package var snapshotLength: Int
    /// The precision of ``PacketHeader/fraction`` in this interface's records.
    package var precision: TimestampPrecision
    /// Timestamp units per second stored in the file: 10⁶ for pcap µs and pcapng without
    /// `if_tsresol`, 10⁹ for pcap ns, else 10ⁿ or 2ⁿ from `if_tsresol`.
    ///
    /// Resolutions of at most 10⁶ units per second (10⁰…10⁻⁶, 2⁻¹…2⁻¹⁹) are converted to
    /// microseconds, finer ones (10⁻⁷…10⁻¹⁹, 2⁻²⁰…2⁻⁶³) to nanoseconds, truncating like libpcap.
    package var timestampUnitsPerSecond: UInt64
    /// pcapng `if_tsoffset`: seconds added to every timestamp (0 when absent).
    package var timestampOffset: Int64

    package init(linkType: LinkType, snapshotLength: Int, precision: TimestampPrecision, timestampUnitsPerSecond: UInt64? = nil, timestampOffset: Int64 = 0) {
        self.linkType = linkType
        self.snapshotLength = snapshotLength
        self.precision = precision
        self.timestampUnitsPerSecond = timestampUnitsPerSecond ?? (precision == .nanoseconds ? 1_000_000_000 : 1_000_000)
        self.timestampOffset = timestampOffset
    }
}
