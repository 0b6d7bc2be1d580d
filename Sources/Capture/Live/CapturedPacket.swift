import PacketDecoding

/// One packet from ``LiveCapture/packets``, owning a copy of its captured bytes.
///
/// `bytes.count == header.capturedLength`; `header.originalLength` may be larger when the
/// snapshot length cut the packet.
public struct CapturedPacket: Sendable, Equatable {
    /// When the packet was captured, and its captured and original lengths.
    public var header: PacketHeader
    /// The captured bytes, `header.capturedLength` of them.
    public var bytes: [UInt8]

    /// A packet from its header and its captured bytes.
    public init(header: PacketHeader, bytes: [UInt8]) {
        self.header = header
        self.bytes = bytes
    }
}
