import PacketDecoding

/// Hand-built frames for filter tests: Ethernet + IPv4/IPv6 + TCP/UDP with zero checksums
/// (BPF does not look at checksums).
enum Frames {
    static func header(_ bytes: [UInt8], linkType: LinkType = .ethernet) -> PacketHeader {
        PacketHeader(seconds: 0, fraction: 0, precision: .microseconds, capturedLength: bytes.count, originalLength: bytes.count, linkType: linkType)
    }

    static func ethernet(type: UInt16, payload: [UInt8]) -> [UInt8] {
        [0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, UInt8(type >> 8), UInt8(type & 0xff)] + payload
    }

    static func ipv4(protocol number: UInt8, payload: [UInt8]) -> [UInt8] {
        let total = 20 + payload.count
        return [0x45, 0, UInt8(total >> 8), UInt8(total & 0xff), 0, 1, 0x40, 0, 64, number, 0, 0,
                127, 0, 0, 1, 127, 0, 0, 1] + payload
    }

    static func ipv6(nextHeader: UInt8, payload: [UInt8]) -> [UInt8] {
        let loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]
        return [0x60, 0, 0, 0, UInt8(payload.count >> 8), UInt8(payload.count & 0xff), nextHeader, 64]
            + loopback + loopback + payload
    }

    static func tcpSegment(sourcePort: UInt16, destinationPort: UInt16) -> [UInt8] {
        [UInt8(sourcePort >> 8), UInt8(sourcePort & 0xff), UInt8(destinationPort >> 8), UInt8(destinationPort & 0xff),
         0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0xff, 0xff, 0, 0, 0, 0]
    }

    static func udpDatagram(sourcePort: UInt16, destinationPort: UInt16) -> [UInt8] {
        [UInt8(sourcePort >> 8), UInt8(sourcePort & 0xff), UInt8(destinationPort >> 8), UInt8(destinationPort & 0xff),
         0, 12, 0, 0, 0x68, 0x69, 0x0a, 0]
    }

    static func tcp4(sourcePort: UInt16 = 40000, destinationPort: UInt16) -> [UInt8] {
        ethernet(type: 0x0800, payload: ipv4(protocol: 6, payload: tcpSegment(sourcePort: sourcePort, destinationPort: destinationPort)))
    }

    static func udp4(sourcePort: UInt16 = 40000, destinationPort: UInt16) -> [UInt8] {
        ethernet(type: 0x0800, payload: ipv4(protocol: 17, payload: udpDatagram(sourcePort: sourcePort, destinationPort: destinationPort)))
    }

    static func tcp6(sourcePort: UInt16 = 40000, destinationPort: UInt16) -> [UInt8] {
        ethernet(type: 0x86dd, payload: ipv6(nextHeader: 6, payload: tcpSegment(sourcePort: sourcePort, destinationPort: destinationPort)))
    }

    /// Replaces an Ethernet frame's 14-byte header with a 20-byte Linux cooked v2 header.
    static func sll2(wrapping frame: [UInt8]) -> [UInt8] {
        let type = Array(frame[12..<14])
        let body = Array(frame.dropFirst(14))
        return type + [0, 0] + [0, 0, 0, 1] + [0, 1] + [0] + [6] + [0, 0, 0, 0, 0, 1, 0, 0] + body
    }
}
