/// One captured packet's record header: when, how much was captured, how long it was.
///
/// `fraction` is the sub-second part in the record's ``precision`` exactly as stored, so an
/// invalid value (≥ 10⁶ µs or ≥ 10⁹ ns) survives to be printed the way tcpdump prints it.
public struct PacketHeader: Sendable, Equatable {
    package var seconds: Int64
    package var fraction: UInt32
    package var precision: TimestampPrecision
    /// Bytes present in the capture (caplen).
    package var capturedLength: Int
    /// Bytes the packet had on the wire (len).
    package var originalLength: Int
    /// pcapng interface index (0 for pcap files and live captures).
    package var interfaceID: Int
    /// The link type of the record's interface.
    public var linkType: LinkType

    /// A header from its stored fields, taken as given: `fraction` counts `precision` units, and
    /// neither it nor the lengths are checked. `interfaceID` is 0 except in pcapng files.
    public init(seconds: Int64, fraction: UInt32, precision: TimestampPrecision, capturedLength: Int, originalLength: Int, interfaceID: Int = 0, linkType: LinkType) {
        self.seconds = seconds
        self.fraction = fraction
        self.precision = precision
        self.capturedLength = capturedLength
        self.originalLength = originalLength
        self.interfaceID = interfaceID
        self.linkType = linkType
    }
}
