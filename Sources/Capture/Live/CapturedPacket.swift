import PacketDecoding

/// One packet from ``LiveCapture/packets``, owning a copy of its captured bytes.
///
/// `bytes.count == header.capturedLength`; `header.originalLength` may be larger when the
/// snapshot length cut the packet.
public struct CapturedPacket: Sendable, Equatable {
    public var header: PacketHeader
    public var bytes: [UInt8]

    public init(header: PacketHeader, bytes: [UInt8]) {
        self.header = header
        self.bytes = bytes
    }
}
