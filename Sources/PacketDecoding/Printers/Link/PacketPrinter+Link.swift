import Synchronization
import Glibc

/// Link-layer printers: Linux cooked v1/v2, BSD NULL/LOOP, raw IP (Ethernet is in
/// Link/PacketPrinter+Ethernet.swift).
extension PacketPrinter {
    mutating func printLinkLayer(_ header: PacketHeader, _ cursor: inout ByteCursor, into out: inout [UInt8]) throws(PacketDecodingError) {
        let wireLength = header.originalLength
        switch header.linkType {
        case .ethernet:
            linkHeaderLength = try printEthernet(&cursor, at: 0, length: wireLength, into: &out)
        case .linuxSLL:
            try printCookedV1(&cursor, wireLength: wireLength, into: &out)
        case .linuxSLL2:
            try printCookedV2(&cursor, wireLength: wireLength, into: &out)
        case .null, .loop:
            try printBSDLoopback(&cursor, wireLength: wireLength, bigEndian: header.linkType == .loop, into: &out)
        case .raw:
            if options.linkHeader { out.append("ip: ") }
            try printAnyIP(&cursor, at: 0, length: wireLength, into: &out)
        case .ipv4:
            if options.linkHeader { out.append("ip: ") }
            try printIPv4(&cursor, at: 0, length: wireLength, into: &out)
        case .ipv6:
            if options.linkHeader { out.append("ip: ") }
            try printIPv6(&cursor, at: 0, length: wireLength, into: &out)
        default:
            out.append("[unsupported link type ")
            out.appendDecimal(header.linkType.rawValue)
            out.append("]")
            linkHeaderLength = 0
            appendDefaultDump(cursor, from: 0, into: &out)
        }
    }

    // MARK: Linux cooked captures

    private static func packetTypeName(_ type: UInt32) -> StaticString {
        switch type {
        case 0: "In"
        case 1: "B"
        case 2: "M"
        case 3: "P"
        case 4: "Out"
        default: "?"
        }
    }

    private mutating func printCookedV1(_ cursor: inout ByteCursor, wireLength: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "sll"
        guard cursor.bytes.count >= 16 else { throw PacketDecodingError.capturedBytesEnd }
        if options.linkHeader { try appendCookedV1Header(cursor, wireLength: wireLength, into: &out) }
        linkHeaderLength = 16
        try printCookedPayload(&cursor, wireLength: wireLength, headerLength: 16, into: &out)
    }

    private func appendCookedV1Header(_ cursor: ByteCursor, wireLength: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.appendRightAligned(Self.packetTypeName(UInt32(try cursor.u16(0))), width: 3)
        out.append(" ")
        if try cursor.u16(4) == 6 {
            appendMAC(cursor, at: 6, into: &out)
            out.append(" ")
        }
        try appendCookedProtocol(try cursor.u16(14), wireLength: wireLength, into: &out)
    }

    private func appendCookedProtocol(_ type: UInt16, wireLength: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        // tcpdump's -q: neither the protocol nor the length.
        if options.quick { return }
        if type <= 1500 {
            switch type {
            case 1: out.append("802.3")
            case 4: out.append("802.2")
            default:
                out.append("ethertype Unknown (0x")
                out.appendHex(UInt64(type), minimumDigits: 4)
                out.append(")")
            }
        } else {
            appendEthertype(type, into: &out)
        }
        out.append(", length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: wireLength))
        out.append(": ")
    }

    private mutating func printCookedV2(_ cursor: inout ByteCursor, wireLength: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "sll2"
        guard cursor.bytes.count >= 20 else { throw PacketDecodingError.capturedBytesEnd }
        let index = try cursor.u32(4)
        out.appendPadded(InterfaceNames.name(index: index), width: 5)
        out.append(" ")
        var type: [UInt8] = []
        type.append(Self.packetTypeName(UInt32(try cursor.u8(10))))
        out.appendPadded(type, width: 3)
        out.append(" ")
        if options.linkHeader { try appendCookedV2Header(cursor, wireLength: wireLength, into: &out) }
        linkHeaderLength = 20
        try printCookedPayload(&cursor, wireLength: wireLength, headerLength: 20, into: &out)
    }

    private func appendCookedV2Header(_ cursor: ByteCursor, wireLength: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.append("ifindex ")
        out.appendDecimal(try cursor.u32(4))
        out.append(" ")
        if try cursor.u8(11) == 6 {
            appendMAC(cursor, at: 12, into: &out)
            out.append(" ")
        }
        try appendCookedProtocol(try cursor.u16(0), wireLength: wireLength, into: &out)
    }

    /// The part SLL and SLL2 share after their headers: the protocol, 802.1Q tags, unknown types.
    private mutating func printCookedPayload(
        _ cursor: inout ByteCursor, wireLength: Int, headerLength: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        func appendHeader(_ printer: PacketPrinter, _ out: inout [UInt8]) throws(PacketDecodingError) {
            if headerLength == 16 {
                try printer.appendCookedV1Header(cursor, wireLength: wireLength, into: &out)
            } else {
                try printer.appendCookedV2Header(cursor, wireLength: wireLength, into: &out)
            }
        }
        var type = try cursor.u16(headerLength == 16 ? 14 : 0)
        var offset = headerLength
        while type == 0x8100 {
            if cursor.available(from: offset) < 4 {
                protocolName = "vlan"
                out.append(" [|vlan]")
                linkHeaderLength = offset + cursor.available(from: offset)
                return
            }
            if options.linkHeader {
                let tag = try cursor.u16(offset)
                Self.appendVLANTag(tag, into: &out)
                out.append(", ")
            }
            // A length after the tag means 802.2; the type is named even without -e.
            type = try cursor.u16(offset + 2)
            if type <= 1500 { type = 4 }
            if !options.quick {
                out.append("ethertype ")
                out.append(Self.ethertypeName(type))
                out.append(", ")
            }
            offset += 4
            linkHeaderLength = offset
        }
        if type <= 1500 {
            if type == 4 {
                // 802.2: an LLC header, without link-layer addresses to name.
                let llcLength = try printLLC(&cursor, at: offset, length: wireLength - offset, macs: nil, into: &out)
                if llcLength >= 0 {
                    linkHeaderLength = offset + llcLength
                    return
                }
            }
            // Other lengths (and 1, raw 802.3 IPX, which sockctl does not decode): the bytes only.
            appendDefaultDump(cursor, from: offset, into: &out)
            return
        }
        if try !printEthertype(type, &cursor, at: offset, length: wireLength - offset, into: &out) {
            if !options.linkHeader { try appendHeader(self, &out) }
            appendDefaultDump(cursor, from: offset, into: &out)
        }
    }

    // MARK: BSD loopback and raw IP

    private mutating func printBSDLoopback(_ cursor: inout ByteCursor, wireLength: Int, bigEndian: Bool, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "null"
        guard cursor.bytes.count >= 4 else { throw PacketDecodingError.capturedBytesEnd }
        var family = try cursor.u32(0)
        if !bigEndian {
            family = family.byteSwapped  // written in the (little-endian) capturing host's order
            if family & 0xFFFF_0000 != 0 { family = family.byteSwapped }
        }
        if options.linkHeader { appendAddressFamily(family, wireLength: wireLength, into: &out) }
        linkHeaderLength = 4
        switch family {
        case 2: try printIPv4(&cursor, at: 4, length: wireLength - 4, into: &out)
        case 24, 28, 30: try printIPv6(&cursor, at: 4, length: wireLength - 4, into: &out)
        default:
            if !options.linkHeader { appendAddressFamily(family, wireLength: wireLength, into: &out) }
            appendDefaultDump(cursor, from: 4, into: &out)
        }
    }

    private func appendAddressFamily(_ family: UInt32, wireLength: Int, into out: inout [UInt8]) {
        if !options.quick { out.append("AF ") }
        switch family {
        case 2: out.append("IPv4")
        case 24, 28, 30: out.append("IPv6")
        case 7: out.append("OSI")
        case 16: out.append("Appletalk")
        case 23: out.append("IPX")
        default: out.append(options.quick ? "Unknown AF " : "Unknown")
        }
        if options.quick {
            if ![2, 24, 28, 30, 7, 16, 23].contains(family) { out.appendDecimal(family) }
        } else {
            out.append(" (")
            out.appendDecimal(family)
            out.append(")")
        }
        out.append(", length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: wireLength))
        out.append(": ")
    }

    /// Raw IP: the version nibble picks the printer (tcpdump's `ipN_print`).
    mutating func printAnyIP(_ cursor: inout ByteCursor, at offset: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "ipn"
        if length < 1 {
            out.append("truncated-ip ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            return
        }
        let version = try cursor.u8(offset) & 0xF0
        switch version {
        case 0x40: try printIPv4(&cursor, at: offset, length: length, into: &out)
        case 0x60: try printIPv6(&cursor, at: offset, length: length, into: &out)
        default:
            out.append("unknown ip ")
            out.appendDecimal(version >> 4)
        }
    }
}
