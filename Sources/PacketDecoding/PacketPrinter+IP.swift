/// IPv4 and IPv6 printers (tcpdump's `ip_print`, `ip6_print` and the IPv6 extension headers)
/// and the demultiplexer that hands the payload to TCP, UDP, ICMP and ICMPv6.
extension PacketPrinter {
    /// Where the transport printers find the addresses: the IP header's offset and version.
    struct IPContext {
        var offset: Int
        var isIPv6: Bool
        /// The IP header's own next-protocol field (not the last extension header's).
        var headerProtocol: UInt8
        var fragmented: Bool
    }

    // MARK: IPv4

    mutating func printIPv4(_ cursor: inout ByteCursor, at ip: Int, length: Int, into out: inout [UInt8]) throws(Truncated) {
        protocolName = "ip"
        let versionAndLength = try cursor.u8(ip)
        guard versionAndLength >> 4 == 4 else {
            if versionAndLength >> 4 == 6 {
                out.append("IP6, wrong link-layer encapsulation")
            } else {
                out.append("IP")
                out.appendDecimal(versionAndLength >> 4)
            }
            out.append(" (invalid)")
            return
        }
        if !options.linkHeader { out.append("IP ") }
        guard cursor.has(ip, 20) else {
            out.append(" [|ip]")
            return
        }
        let headerLength = Int(versionAndLength & 0x0F) * 4
        guard headerLength >= 20 else {
            out.append("bad-hlen ")
            out.appendDecimal(headerLength)
            return
        }
        let totalLength = Int(try cursor.u16(ip + 2))
        guard totalLength >= headerLength else {
            out.append("bad-len ")
            out.appendDecimal(totalLength)
            return
        }
        if length < totalLength {
            out.append("truncated-ip - ")
            out.appendDecimal(UInt32(truncatingIfNeeded: totalLength - length))
            out.append(" bytes missing! ")
        }
        cursor.narrow(from: ip, length: min(length, totalLength))
        let payloadLength = totalLength - headerLength
        let fragmentField = try cursor.u16(ip + 6)
        let nextProtocol = try cursor.u8(ip + 9)
        if fragmentField & 0x1FFF == 0 {
            if !Self.printsOwnAddresses(nextProtocol) {
                try appendIPv4Address(cursor, at: ip + 12, into: &out)
                out.append(" > ")
                try appendIPv4Address(cursor, at: ip + 16, into: &out)
                out.append(": ")
            }
            guard cursor.has(ip, headerLength) else {
                out.append(" [remaining caplen(")
                out.appendDecimal(cursor.available(from: ip))
                out.append(") < header length(")
                out.appendDecimal(headerLength)
                out.append(")] [|ip]")
                return
            }
            let context = IPContext(offset: ip, isIPv6: false, headerProtocol: nextProtocol, fragmented: fragmentField & 0x2000 != 0)
            try printTransport(nextProtocol, &cursor, at: ip + headerLength, length: payloadLength, context: context, into: &out)
        } else {
            try appendIPv4Address(cursor, at: ip + 12, into: &out)
            out.append(" > ")
            try appendIPv4Address(cursor, at: ip + 16, into: &out)
            out.append(": ip-proto-")
            out.appendDecimal(nextProtocol)
        }
    }

    /// TCP, UDP, SCTP and DCCP print `address.port > address.port` themselves.
    private static func printsOwnAddresses(_ nextProtocol: UInt8) -> Bool {
        nextProtocol == 6 || nextProtocol == 17 || nextProtocol == 132 || nextProtocol == 33
    }

    /// tcpdump's `ip_demux_print`.
    private mutating func printTransport(
        _ nextProtocol: UInt8, _ cursor: inout ByteCursor, at offset: Int, length: Int, context: IPContext, into out: inout [UInt8]
    ) throws(Truncated) {
        switch nextProtocol {
        case 6: try printTCP(&cursor, at: offset, length: length, ip: context, into: &out)
        case 17: try printUDP(cursor, at: offset, length: length, ip: context, into: &out)
        case 1: try printICMP(cursor, at: offset, length: length, fragmented: context.fragmented, into: &out)
        case 58: try printICMPv6(cursor, at: offset, length: length, into: &out)
        case 4: try printIPv4(&cursor, at: offset, length: length, into: &out)
        case 41: try printIPv6(&cursor, at: offset, length: length, into: &out)
        default:
            out.append(" ip-proto-")
            out.appendDecimal(nextProtocol)
            out.append(" ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
        }
    }

    // MARK: IPv6

    /// The most extension headers walked in one packet; more print ` [|ip6]`.
    static let maximumExtensionHeaders = 64

    mutating func printIPv6(_ cursor: inout ByteCursor, at ip: Int, length: Int, into out: inout [UInt8]) throws(Truncated) {
        protocolName = "ip6"
        guard cursor.has(ip, 40) else {
            out.append(" [|ip6]")
            return
        }
        if !options.linkHeader { out.append("IP6 ") }
        let version = try cursor.u8(ip) >> 4
        guard version == 6 else {
            out.append("version error: ")
            out.appendDecimal(version)
            out.append(" != 6")
            return
        }
        let payloadLength = Int(try cursor.u16(ip + 4))
        let totalLength: Int
        if payloadLength != 0 {
            totalLength = payloadLength + 40
            if length < totalLength {
                out.append("truncated-ip6 - ")
                out.appendDecimal(UInt32(truncatingIfNeeded: totalLength - length))
                out.append(" bytes missing!")
            }
        } else {
            totalLength = length
        }
        cursor.narrow(from: ip, length: min(length, totalLength))
        var nextHeader = try cursor.u8(ip + 6)
        var offset = ip
        var advance = 40
        var remaining = totalLength
        var fragmented = false
        var foundHopByHop = false
        var headersWalked = 0
        while offset < cursor.end && advance > 0 {
            guard remaining >= advance, headersWalked < Self.maximumExtensionHeaders else {
                protocolName = "ip6"
                out.append(" [|ip6]")
                return
            }
            headersWalked += 1
            let first = offset == ip
            offset += advance
            remaining -= advance
            if first && !Self.printsOwnAddresses(nextHeader) {
                try appendIPv6Address(cursor, at: ip + 8, into: &out)
                out.append(" > ")
                try appendIPv6Address(cursor, at: ip + 24, into: &out)
                out.append(": ")
            }
            switch nextHeader {
            case 0:
                if foundHopByHop {
                    out.append("[The Hop-by-Hop Options header was already found] (invalid)")
                    return
                }
                if !first {
                    out.append("[The Hop-by-Hop Options header don't follow the IPv6 header] (invalid)")
                    return
                }
                guard let length = try printOptionsHeader(cursor, at: offset, name: "HBH ", protocol: "hbhopt", into: &out) else { return }
                foundHopByHop = true
                advance = length
                nextHeader = try cursor.u8(offset)
            case 60:
                guard let length = try printOptionsHeader(cursor, at: offset, name: "DSTOPT ", protocol: "dstopt", into: &out) else { return }
                advance = length
                nextHeader = try cursor.u8(offset)
            case 44:
                protocolName = "frag6"
                guard cursor.has(offset, 8) else {
                    out.append(" [|frag6]")
                    return
                }
                let fragmentOffset = try cursor.u16(offset + 2) & 0xFFF8
                out.append("frag (")
                out.appendDecimal(fragmentOffset)
                out.append("|")
                out.appendDecimal(UInt32(truncatingIfNeeded: 40 + payloadLength - (offset - ip) - 8))
                out.append(")")
                if fragmentOffset != 0 { return }
                out.append(" ")
                if cursor.end <= offset + 8 { return }
                advance = 8
                nextHeader = try cursor.u8(offset)
                fragmented = true
            case 43:
                guard let length = try printRoutingHeader(cursor, at: offset, into: &out) else { return }
                advance = length
                nextHeader = try cursor.u8(offset)
            case 59:
                out.append("no next header")
                return
            default:
                let headerProtocol = try cursor.u8(ip + 6)
                let context = IPContext(offset: ip, isIPv6: true, headerProtocol: headerProtocol, fragmented: fragmented)
                try printTransport(nextHeader, &cursor, at: offset, length: remaining, context: context, into: &out)
                return
            }
            protocolName = "ip6"
        }
    }

    /// Hop-by-Hop and Destination Options headers; the header length, or nil when it printed
    /// a truncation marker and the packet ends there.
    private mutating func printOptionsHeader(
        _ cursor: ByteCursor, at offset: Int, name: StaticString, protocol: StaticString, into out: inout [UInt8]
    ) throws(Truncated) -> Int? {
        protocolName = `protocol`
        let length = (Int(try cursor.u8(offset + 1)) + 1) * 8
        guard cursor.has(offset, length) else {
            out.append(" [|")
            out.append(`protocol`)
            out.append("]")
            return nil
        }
        out.append(name)
        // Validate the options the way tcpdump does before it moves on.
        let end = offset + length
        var index = offset + 2
        while index < end {
            let type = try cursor.u8(index)
            if type == 0 {
                index += 1
                continue
            }
            guard index + 1 < end else { return truncatedOptions(`protocol`, into: &out) }
            let optionLength = Int(try cursor.u8(index + 1)) + 2
            guard index + optionLength <= end else { return truncatedOptions(`protocol`, into: &out) }
            if type == 0x05 && optionLength != 4 {
                out.append("(rtalert: invalid len ")
                out.appendDecimal(optionLength - 2)
                out.append(")")
                return truncatedOptions(`protocol`, into: &out)
            }
            index += optionLength
        }
        return length
    }

    private func truncatedOptions(_ name: StaticString, into out: inout [UInt8]) -> Int? {
        out.append(" [|")
        out.append(name)
        out.append("]")
        return nil
    }

    /// tcpdump's `rt6_print`; nil when the packet ends there.
    private mutating func printRoutingHeader(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(Truncated) -> Int? {
        protocolName = "rt6"
        let length = Int(try cursor.u8(offset + 1))
        out.append("srcrt (len=")
        out.appendDecimal(length)
        let type = try cursor.u8(offset + 2)
        out.append(", type=")
        out.appendDecimal(type)
        if type == 0 { out.append(" [Deprecated]") }
        out.append(", segleft=")
        out.appendDecimal(try cursor.u8(offset + 3))
        switch type {
        case 0, 2:
            let reserved = try cursor.u32(offset + 4)
            if reserved != 0 {
                out.append(", rsv=0x")
                out.appendHex(UInt64(reserved))
            }
            if length % 2 == 1 {
                out.append(" [invalid length ")
                out.appendDecimal(length)
                out.append("] (invalid)")
                return nil
            }
            for index in 0..<(length / 2) {
                out.append(", [")
                out.appendDecimal(index)
                out.append("]")
                try appendIPv6Address(cursor, at: offset + 8 + index * 16, into: &out)
            }
        case 4:
            let lastEntry = Int(try cursor.u8(offset + 4))
            out.append(", last-entry=")
            out.appendDecimal(lastEntry)
            let flags = try cursor.u8(offset + 5)
            if flags != 0 {
                out.append(", flags=0x")
                out.appendHex(UInt64(flags))
            }
            out.append(", tag=")
            out.appendHex(UInt64(try cursor.u16(offset + 6)))
            for index in 0...lastEntry {
                out.append(", [")
                out.appendDecimal(index)
                out.append("]")
                try appendIPv6Address(cursor, at: offset + 8 + index * 16, into: &out)
            }
        default:
            out.append(" (unknown type) (invalid)")
            return nil
        }
        out.append(") ")
        return (length + 1) * 8
    }

    // MARK: Addresses

    func appendIPv4Address(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(Truncated) {
        try cursor.check(offset, 4)
        for index in 0..<4 {
            if index > 0 { out.append(".") }
            out.appendDecimal(cursor.bytes[offset + index])
        }
    }

    /// RFC 5952 text as tcpdump's `addrtostr6` writes it: lowercase, the longest run of two or
    /// more zero groups as `::` (the first on ties), `::a.b.c.d` and `::ffff:a.b.c.d` forms.
    func appendIPv6Address(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(Truncated) {
        try cursor.check(offset, 16)
        var words: (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { raw in
            let slots = raw.bindMemory(to: UInt16.self)
            for index in 0..<8 {
                slots[index] = UInt16(cursor.bytes[offset + 2 * index]) << 8 | UInt16(cursor.bytes[offset + 2 * index + 1])
            }
        }
        withUnsafeBytes(of: &words) { raw in
            let slots = raw.bindMemory(to: UInt16.self)
            var bestStart = -1, bestLength = 0, runStart = -1, runLength = 0
            for index in 0..<8 {
                if slots[index] == 0 {
                    if runStart < 0 {
                        runStart = index
                        runLength = 1
                    } else {
                        runLength += 1
                    }
                    if runLength > bestLength {
                        bestStart = runStart
                        bestLength = runLength
                    }
                } else {
                    runStart = -1
                    runLength = 0
                }
            }
            if bestLength < 2 {
                bestStart = -1
                bestLength = 0
            }
            var index = 0
            while index < 8 {
                if index == bestStart {
                    out.append(":")
                    index += bestLength
                    if index == 8 { out.append(":") }
                    continue
                }
                if index > 0 { out.append(":") }
                if index == 6 && bestStart == 0 && (bestLength == 6 || (bestLength == 5 && slots[5] == 0xFFFF)) {
                    for byte in 12..<16 {
                        if byte > 12 { out.append(".") }
                        out.appendDecimal(cursor.bytes[offset + byte])
                    }
                    return
                }
                out.appendHex(UInt64(slots[index]))
                index += 1
            }
        }
    }
}
