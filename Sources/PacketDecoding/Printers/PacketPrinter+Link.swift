import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Link-layer printers: Ethernet (with 802.1Q tags), Linux cooked v1/v2, BSD NULL/LOOP, raw IP.
extension PacketPrinter {
    mutating func printLinkLayer(_ header: PacketHeader, _ cursor: inout ByteCursor, into out: inout [UInt8]) throws(PacketDecodingError) {
        let wireLength = header.originalLength
        switch header.linkType {
        case .ethernet:
            linkHeaderLength = try printEthernet(&cursor, wireLength: wireLength, into: &out)
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

    // MARK: Ethernet

    /// Returns the link-header length the dump skips (all captured bytes when the header is cut).
    private mutating func printEthernet(_ cursor: inout ByteCursor, wireLength: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int {
        protocolName = "ether"
        let captured = cursor.bytes.count
        guard captured >= 14 else {
            out.append(" [|ether]")
            return captured
        }
        if options.linkHeader {
            appendMAC(cursor, at: 6, into: &out)
            out.append(" > ")
            appendMAC(cursor, at: 0, into: &out)
            out.append(", ")
        }
        var offset = 12
        var printedLength = false
        while true {
            let type = try cursor.u16(offset)
            offset += 2
            let remaining = wireLength - offset
            if type <= 1500 {
                // 802.3 length field: LLC is not decoded.
                if options.linkHeader {
                    out.append("802.3, length ")
                    out.appendDecimal(UInt32(truncatingIfNeeded: wireLength))
                    out.append(": ")
                } else {
                    appendMAC(cursor, at: 6, into: &out)
                    out.append(" > ")
                    appendMAC(cursor, at: 0, into: &out)
                    out.append(", 802.3, length ")
                    out.appendDecimal(UInt32(truncatingIfNeeded: wireLength))
                    out.append(": ")
                }
                out.append("LLC")
                appendDefaultDump(cursor, from: offset, into: &out)
                return offset
            }
            if Self.isVLANType(type) {
                // A cut tag ends the line before -e names its type, as in tcpdump.
                let capturedLeft = captured - offset
                if capturedLeft < 4 || remaining < 4 {
                    protocolName = "vlan"
                    out.append(" [|vlan]")
                    return offset + max(0, min(capturedLeft, remaining))
                }
                if options.linkHeader {
                    appendEthertype(type, into: &out)
                    if printedLength {
                        out.append(", ")
                    } else {
                        out.append(", length ")
                        out.appendDecimal(UInt32(truncatingIfNeeded: wireLength))
                        out.append(": ")
                        printedLength = true
                    }
                    let tag = try cursor.u16(offset)
                    out.append("vlan ")
                    out.appendDecimal(tag & 0x0FFF)
                    out.append(", p ")
                    out.appendDecimal(tag >> 13)
                    if tag & 0x1000 != 0 { out.append(", DEI") }
                    out.append(", ")
                }
                offset += 2
                continue
            }
            if options.linkHeader {
                appendEthertype(type, into: &out)
                if printedLength {
                    out.append(", ")
                } else {
                    out.append(", length ")
                    out.appendDecimal(UInt32(truncatingIfNeeded: wireLength))
                    out.append(": ")
                }
            }
            if try !printEthertype(type, &cursor, at: offset, length: remaining, into: &out) {
                if !options.linkHeader {
                    appendMAC(cursor, at: 6, into: &out)
                    out.append(" > ")
                    appendMAC(cursor, at: 0, into: &out)
                    out.append(", ")
                    appendEthertype(type, into: &out)
                    out.append(", length ")
                    out.appendDecimal(UInt32(truncatingIfNeeded: wireLength))
                    out.append(": ")
                }
                appendDefaultDump(cursor, from: offset, into: &out)
            }
            return offset
        }
    }

    private static func isVLANType(_ type: UInt16) -> Bool {
        type == 0x8100 || type == 0x88A8 || type == 0x9100 || type == 0x9200
    }

    /// Hands the payload to the network-layer printer; false when tcpdump has no decoder for it.
    private mutating func printEthertype(_ type: UInt16, _ cursor: inout ByteCursor, at offset: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        switch type {
        case 0x0800: try printIPv4(&cursor, at: offset, length: length, into: &out)
        case 0x86DD: try printIPv6(&cursor, at: offset, length: length, into: &out)
        case 0x0806, 0x8035: try printARP(&cursor, at: offset, length: length, into: &out)
        default: return false
        }
        return true
    }

    /// `ethertype IPv4 (0x0800)`.
    func appendEthertype(_ type: UInt16, into out: inout [UInt8]) {
        out.append("ethertype ")
        out.append(Self.ethertypeName(type))
        out.append(" (0x")
        out.appendHex(UInt64(type), minimumDigits: 4)
        out.append(")")
    }

    static func ethertypeName(_ type: UInt16) -> StaticString {
        knownEthertypeName(type) ?? "Unknown"
    }

    /// tcpdump 4.99.3's ethertype names (`ethertype_values`); the first entry wins, so 0x9100
    /// is `802.1Q-9100`, not `VMAN`.
    static func knownEthertypeName(_ type: UInt16) -> StaticString? {
        switch type {
        case 0x0800: "IPv4"
        case 0x8847: "MPLS unicast"
        case 0x8848: "MPLS multicast"
        case 0x86DD: "IPv6"
        case 0x8100: "802.1Q"
        case 0x9100: "802.1Q-9100"
        case 0x88A8: "802.1Q-QinQ"
        case 0x9200: "802.1Q-9200"
        case 0x88E5: "802.1AE MACsec"
        case 0x0200: "PUP"
        case 0x0806: "ARP"
        case 0x8035: "Reverse ARP"
        case 0x0600: "NS"
        case 0x0500: "Sprite"
        case 0x1000: "Trail"
        case 0x6001: "MOP DL"
        case 0x6002: "MOP RC"
        case 0x6003: "DN"
        case 0x6004: "LAT"
        case 0x6007: "SCA"
        case 0x6558: "TEB"
        case 0x8038: "Lanbridge"
        case 0x803C: "DEC DNS"
        case 0x803E: "DEC DTS"
        case 0x805B: "VEXP"
        case 0x805C: "VPROD"
        case 0x809B: "Appletalk"
        case 0x80F3: "Appletalk ARP"
        case 0x8137: "IPX"
        case 0x880B: "PPP"
        case 0x8808: "MPCP"
        case 0x8809: "Slow Protocols"
        case 0x8863: "PPPoE D"
        case 0x8864: "PPPoE S"
        case 0x888E: "EAPOL"
        case 0x8899: "Realtek protocols"
        case 0x886F: "MS NLB heartbeat"
        case 0x8870: "Jumbo"
        case 0x894F: "NSH"
        case 0x9000: "Loopback"
        case 0xFEFE: "OSI"
        case 0x00FE: "GRE-OSI"
        case 0xABCD: "CFM (old)"
        case 0x8902: "CFM"
        case 0x893A: "IEEE1905.1"
        case 0x88CC: "LLDP"
        case 0x88CA: "TIPC"
        case 0x0707: "GeoNet (old)"
        case 0x8947: "GeoNet"
        case 0x1111: "CALM FAST"
        case 0x88A2: "AoE"
        case 0x88F7: "PTP"
        case 0xD28B: "Arista Vendor Specific Protocol"
        default: nil
        }
    }

    func appendMAC(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) {
        for index in 0..<6 {
            if index > 0 { out.append(":") }
            let byte = cursor.has(offset + index, 1) ? cursor.bytes[offset + index] : 0
            out.append(hexDigitTable[Int(byte >> 4)])
            out.append(hexDigitTable[Int(byte & 0xF)])
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
        while Self.isVLANType(type) && type == 0x8100 {
            if options.linkHeader {
                let tag = try cursor.u16(offset)
                out.append("vlan ")
                out.appendDecimal(tag & 0x0FFF)
                out.append(", p ")
                out.appendDecimal(tag >> 13)
                if tag & 0x1000 != 0 { out.append(", DEI") }
                out.append(", ")
            }
            type = try cursor.u16(offset + 2)
            offset += 4
            linkHeaderLength = offset
            if options.linkHeader {
                appendEthertype(type, into: &out)
                out.append(", ")
            }
        }
        if type <= 1500 {
            if !options.linkHeader { try appendHeader(self, &out) }
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
        out.append("AF ")
        switch family {
        case 2: out.append("IPv4")
        case 24, 28, 30: out.append("IPv6")
        case 7: out.append("OSI")
        case 16: out.append("Appletalk")
        case 23: out.append("IPX")
        default: out.append("Unknown")
        }
        out.append(" (")
        out.appendDecimal(family)
        out.append("), length ")
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
