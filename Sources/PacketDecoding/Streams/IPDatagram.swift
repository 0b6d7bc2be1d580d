/// The network layer of a captured frame: what ``TransportSegment`` and ``PacketJSON`` share.
///
/// `cursor.end` is narrowed to the end of the datagram (Ethernet padding excluded);
/// `transportLength` is the wire length after the IP headers, which may exceed what was captured.
struct IPDatagram {
    var version: UInt8
    var source: TransportSegment.Address
    var destination: TransportSegment.Address
    /// The protocol after the last IPv6 extension header (or IPv4's protocol field).
    var transportProtocol: UInt8
    var transportOffset: Int
    var transportLength: Int
    /// A non-first fragment, or a first fragment with more to come: its transport header or
    /// payload is incomplete, so it is not decoded as TCP/UDP.
    var fragmentOffsetOrMore: Bool
    var cursor: ByteCursor

    /// The most IPv6 extension headers walked before giving up.
    static let maximumExtensionHeaders = 64

    static func parse(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer) -> IPDatagram? {
        let captured = UnsafeRawBufferPointer(rebasing: bytes[0..<max(0, min(bytes.count, header.capturedLength))])
        let cursor = ByteCursor(captured)
        // The wire length never below what was captured, so a bad record cannot shrink it below 0.
        let wireLength = max(header.originalLength, captured.count)
        guard let (offset, version) = networkOffset(header.linkType, cursor) else { return nil }
        switch version {
        case 4: return parseIPv4(cursor, at: offset, wireLength: wireLength - offset)
        case 6: return parseIPv6(cursor, at: offset, wireLength: wireLength - offset)
        default: return nil
        }
    }

    /// Where the IP header starts and which version the link layer says it is (0: look at the
    /// version nibble).
    private static func networkOffset(_ linkType: LinkType, _ cursor: ByteCursor) -> (Int, UInt8)? {
        func ethertypeVersion(_ type: UInt16) -> UInt8? {
            switch type {
            case 0x0800: 4
            case 0x86DD: 6
            default: nil
            }
        }
        /// Skips 802.1Q-style tags (at most 8) starting with the type field at `typeOffset`.
        func afterTags(typeOffset: Int) -> (Int, UInt8)? {
            var offset = typeOffset
            for _ in 0..<8 {
                guard let type = try? cursor.u16(offset) else { return nil }
                if type == 0x8100 || type == 0x88A8 || type == 0x9100 || type == 0x9200 {
                    offset += 4
                    continue
                }
                guard let version = ethertypeVersion(type) else { return nil }
                return (offset + 2, version)
            }
            return nil
        }
        switch linkType {
        case .ethernet:
            return afterTags(typeOffset: 12)
        case .linuxSLL:
            return afterTags(typeOffset: 14)
        case .linuxSLL2:
            // The protocol is at 0; tags, if any, follow the 20-byte header.
            guard let type = try? cursor.u16(0) else { return nil }
            if let version = ethertypeVersion(type) { return (20, version) }
            guard type == 0x8100 else { return nil }
            return afterTags(typeOffset: 22)
        case .null, .loop:
            guard var family = try? cursor.u32(0) else { return nil }
            if linkType == .null {
                family = family.byteSwapped
                if family & 0xFFFF_0000 != 0 { family = family.byteSwapped }
            }
            switch family {
            case 2: return (4, 4)
            case 24, 28, 30: return (4, 6)
            default: return nil
            }
        case .raw:
            guard let first = try? cursor.u8(0) else { return nil }
            return (0, first >> 4)
        case .ipv4:
            return (0, 4)
        case .ipv6:
            return (0, 6)
        default:
            return nil
        }
    }

    private static func parseIPv4(_ cursor: ByteCursor, at ip: Int, wireLength: Int) -> IPDatagram? {
        var cursor = cursor
        guard cursor.has(ip, 20), cursor.bytes[ip] >> 4 == 4 else { return nil }
        let headerLength = Int(cursor.bytes[ip] & 0x0F) * 4
        guard headerLength >= 20, cursor.has(ip, headerLength) else { return nil }
        var totalLength = Int(cursor.bytes[ip + 2]) << 8 | Int(cursor.bytes[ip + 3])
        if totalLength == 0 {
            totalLength = wireLength  // segmentation offload: the frame decides
        }
        guard totalLength >= headerLength else { return nil }
        totalLength = min(totalLength, max(wireLength, headerLength))
        cursor.narrow(from: ip, length: totalLength)
        let fragment = UInt16(cursor.bytes[ip + 6]) << 8 | UInt16(cursor.bytes[ip + 7])
        return IPDatagram(
            version: 4,
            source: .v4(address4(cursor, ip + 12)),
            destination: .v4(address4(cursor, ip + 16)),
            transportProtocol: cursor.bytes[ip + 9],
            transportOffset: ip + headerLength,
            transportLength: totalLength - headerLength,
            fragmentOffsetOrMore: fragment & 0x3FFF != 0,
            cursor: cursor
        )
    }

    private static func parseIPv6(_ cursor: ByteCursor, at ip: Int, wireLength: Int) -> IPDatagram? {
        var cursor = cursor
        guard cursor.has(ip, 40), cursor.bytes[ip] >> 4 == 6 else { return nil }
        let payloadLength = Int(cursor.bytes[ip + 4]) << 8 | Int(cursor.bytes[ip + 5])
        var totalLength = payloadLength == 0 ? wireLength : payloadLength + 40
        totalLength = min(totalLength, max(wireLength, 40))
        cursor.narrow(from: ip, length: totalLength)
        var nextHeader = cursor.bytes[ip + 6]
        var offset = ip + 40
        var fragmented = false
        for _ in 0..<maximumExtensionHeaders {
            switch nextHeader {
            case 0, 43, 60:  // Hop-by-Hop, Routing, Destination Options: (length + 1) * 8 bytes
                guard cursor.has(offset, 2) else { return nil }
                let length = (Int(cursor.bytes[offset + 1]) + 1) * 8
                guard offset - ip + length <= totalLength else { return nil }
                nextHeader = cursor.bytes[offset]
                offset += length
            case 44:  // Fragment: 8 bytes
                guard cursor.has(offset, 8), offset - ip + 8 <= totalLength else { return nil }
                let field = UInt16(cursor.bytes[offset + 2]) << 8 | UInt16(cursor.bytes[offset + 3])
                if field & 0xFFF9 != 0 { fragmented = true }
                nextHeader = cursor.bytes[offset]
                offset += 8
            default:
                guard offset - ip <= totalLength else { return nil }
                return IPDatagram(
                    version: 6,
                    source: .v6(address64(cursor, ip + 8), address64(cursor, ip + 16)),
                    destination: .v6(address64(cursor, ip + 24), address64(cursor, ip + 32)),
                    transportProtocol: nextHeader,
                    transportOffset: offset,
                    transportLength: totalLength - (offset - ip),
                    fragmentOffsetOrMore: fragmented,
                    cursor: cursor
                )
            }
        }
        return nil
    }

    /// Callers checked the header is captured.
    private static func address4(_ cursor: ByteCursor, _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<4 { value = value << 8 | UInt32(cursor.bytes[offset + index]) }
        return value
    }

    private static func address64(_ cursor: ByteCursor, _ offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 { value = value << 8 | UInt64(cursor.bytes[offset + index]) }
        return value
    }
}
