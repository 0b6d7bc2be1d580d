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

    mutating func printIPv4(_ cursor: inout ByteCursor, at ip: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
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
                // tcpdump leaves through its longjmp here: ` [|ip]`, and -X dumps from byte 0.
                out.append(" [remaining caplen(")
                out.appendDecimal(cursor.available(from: ip))
                out.append(") < header length(")
                out.appendDecimal(headerLength)
                out.append(")]")
                throw PacketDecodingError.capturedBytesEnd
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
    ) throws(PacketDecodingError) {
        switch nextProtocol {
        case 6: try printTCP(&cursor, at: offset, length: length, ip: context, into: &out)
        case 17: try printUDP(&cursor, at: offset, length: length, ip: context, into: &out)
        case 1: try printICMP(cursor, at: offset, length: length, fragmented: context.fragmented, into: &out)
        case 58: try printICMPv6(cursor, at: offset, length: length, into: &out)
        case 4: try printIPv4(&cursor, at: offset, length: length, into: &out)
        case 41: try printIPv6(&cursor, at: offset, length: length, into: &out)
        case 2: try printIGMP(&cursor, at: offset, length: length, ip: context, into: &out)
        case 47: try printGRE(&cursor, at: offset, length: length, ip: context, into: &out)
        case 132: try printSCTP(&cursor, at: offset, length: length, ip: context, into: &out)
        case 33: try printDCCP(&cursor, at: offset, length: length, ip: context, into: &out)
        case 59: out.append("no next header")
        default: appendUnknownProtocol(nextProtocol, length: length, into: &out)
        }
    }

    /// tcpdump's line for a protocol it has no printer for: ` ip-proto-N LENGTH`.
    func appendUnknownProtocol(_ nextProtocol: UInt8, length: Int, into out: inout [UInt8]) {
        out.append(" ip-proto-")
        out.appendDecimal(nextProtocol)
        out.append(" ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
    }

    // MARK: IPv6

    /// What the extension-header walk of one IPv6 packet has learned (tcpdump's `ip6_print`).
    struct IPv6Walk {
        /// The header's payload length, replaced by a valid Jumbo Payload option's length.
        var payloadLength: UInt32
        var foundExtensionHeader = false
        var foundHopByHop = false
        /// A Hop-by-Hop Jumbo Payload option with a length of at least 65536 and a zero
        /// payload length field.
        var foundJumbo = false
        var fragmented = false
    }

    /// tcpdump's `ip6_print`: the fixed header, the extension headers in order, then the payload.
    ///
    /// A zero payload length means "look for a Jumbo Payload option": the walk runs over the
    /// whole frame, and without such an option the payload is empty (an extension header then
    /// makes it ` [|ip6]`).
    mutating func printIPv6(_ cursor: inout ByteCursor, at ip: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "ip6"
        guard cursor.has(ip, 40) else {
            out.append(" [|ip6]")
            return
        }
        if length < 40 {
            out.append("truncated-ip6 ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
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
        var walk = IPv6Walk(payloadLength: UInt32(try cursor.u16(ip + 4)))
        /// tcpdump's `len`: bytes from the current header to the end of the datagram.
        var remaining: Int
        if walk.payloadLength != 0 {
            remaining = Int(walk.payloadLength) + 40
            if length < remaining { Self.appendMissingBytes(remaining - length, into: &out) }
        } else {
            remaining = length + 40
        }
        cursor.narrow(from: ip, length: remaining)
        var nextHeader = try cursor.u8(ip + 6)
        var offset = ip
        var advance = 40
        var totalAdvance = 0
        while offset < cursor.end && advance > 0 {
            guard remaining >= advance else {
                out.append(" [|ip6]")
                return
            }
            let first = offset == ip
            offset += advance
            remaining -= advance
            totalAdvance += advance
            if first && !Self.printsOwnAddresses(nextHeader) {
                try appendIPv6Address(cursor, at: ip + 8, into: &out)
                out.append(" > ")
                try appendIPv6Address(cursor, at: ip + 24, into: &out)
                out.append(": ")
            }
            switch nextHeader {
            case 0:
                if walk.foundHopByHop {
                    out.append("[The Hop-by-Hop Options header was already found] (invalid)")
                    return
                }
                if !first {
                    out.append("[The Hop-by-Hop Options header don't follow the IPv6 header] (invalid)")
                    return
                }
                let length = try printHopByHopOptions(cursor, at: offset, walk: &walk, into: &out)
                if walk.payloadLength == 0 && !walk.foundJumbo {
                    out.append("[No valid Jumbo Payload Hop-by-Hop option found] (invalid)")
                    return
                }
                guard let length else { return }
                walk.foundHopByHop = true
                advance = length
            case 60:
                guard let length = try printDestinationOptions(cursor, at: offset, into: &out) else { return }
                advance = length
            case 44:
                guard let length = try printFragmentHeader(cursor, at: offset, ip: ip, into: &out),
                      offset + length < cursor.end else { return }
                walk.fragmented = true
                advance = length
            case 43:
                guard cursor.has(offset, 1) else {
                    out.append(" [|ip6]")
                    return
                }
                guard let length = try printRoutingHeader(cursor, at: offset, into: &out) else { return }
                advance = length
            default:
                guard let payloadLength = payloadLength(&cursor, ip: ip, length: length, remaining: remaining,
                                                        totalAdvance: totalAdvance, walk: walk, into: &out) else {
                    out.append(" [|ip6]")
                    return
                }
                let headerProtocol = try cursor.u8(ip + 6)
                let context = IPContext(offset: ip, isIPv6: true, headerProtocol: headerProtocol, fragmented: walk.fragmented)
                try printTransport(nextHeader, &cursor, at: offset, length: payloadLength, context: context, into: &out)
                return
            }
            walk.foundExtensionHeader = true
            nextHeader = try cursor.u8(offset)
            protocolName = "ip6"
        }
    }

    /// `truncated-ip6 - N bytes missing!` (no space after it, as in tcpdump).
    private static func appendMissingBytes(_ count: Int, into out: inout [UInt8]) {
        out.append("truncated-ip6 - ")
        out.appendDecimal(UInt32(truncatingIfNeeded: count))
        out.append(" bytes missing!")
    }

    /// The upper-layer payload length once the extension headers are behind: the Jumbo
    /// Payload length when one was found, nothing for a zero payload length without one; nil
    /// when the headers already walked do not fit (` [|ip6]`). Narrows `cursor` to match.
    private func payloadLength(
        _ cursor: inout ByteCursor, ip: Int, length: Int, remaining: Int, totalAdvance: Int, walk: IPv6Walk, into out: inout [UInt8]
    ) -> Int? {
        if walk.foundJumbo {
            let total = Int(UInt32(truncatingIfNeeded: UInt64(walk.payloadLength) + 40))
            guard total >= totalAdvance else { return nil }
            if length < total { Self.appendMissingBytes(total - length, into: &out) }
            cursor.narrow(from: ip, length: total)
            return total - totalAdvance
        }
        guard walk.payloadLength == 0 else { return remaining }
        guard !walk.foundExtensionHeader else { return nil }
        cursor.narrow(from: ip, length: 40)
        return 0
    }

    /// Hop-by-Hop Options (tcpdump's `hbhopt_process`): `HBH `, then the options are checked
    /// and a Jumbo Payload option is noted in `walk`; the header length, or nil after
    /// ` [|hbhopt]`.
    private mutating func printHopByHopOptions(
        _ cursor: ByteCursor, at offset: Int, walk: inout IPv6Walk, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Int? {
        protocolName = "hbhopt"
        let length = (Int(try cursor.u8(offset + 1)) + 1) * 8
        guard cursor.has(offset, length) else {
            out.append(" [|hbhopt]")
            return nil
        }
        out.append("HBH ")
        guard try checkHopByHopOptions(cursor, from: offset + 2, count: length - 2, walk: &walk, into: &out) else {
            out.append(" [|hbhopt]")
            return nil
        }
        return length
    }

    /// tcpdump's `ip6_opt_process` without `-v`: walks the TLV options and prints only what is
    /// wrong with them (`(rtalert: invalid len 3)`); false when the list is malformed.
    private func checkHopByHopOptions(
        _ cursor: ByteCursor, from start: Int, count: Int, walk: inout IPv6Walk, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Bool {
        var index = 0
        var sawJumbo = false
        while index < count {
            let type = try cursor.u8(start + index)
            let optionLength: Int
            if type == 0 {
                optionLength = 1
            } else {
                guard index + 1 < count else { return false }
                optionLength = Int(try cursor.u8(start + index + 1)) + 2
            }
            guard index + optionLength <= count else { return false }
            let left = count - index
            let lengthByte = type == 0 ? 0 : try cursor.u8(start + index + 1)
            func invalid(_ name: StaticString, _ out: inout [UInt8]) -> Bool {
                out.append("(")
                out.append(name)
                out.append(": invalid len ")
                out.appendDecimal(lengthByte)
                out.append(")")
                return false
            }
            func truncated(_ name: StaticString, _ out: inout [UInt8]) -> Bool {
                out.append("(")
                out.append(name)
                out.append(": trunc)")
                return false
            }
            switch type {
            case 0x00:
                break
            case 0x01:
                if left < 2 { return truncated("padn", &out) }
            case 0x05:
                if left < 4 { return truncated("rtalert", &out) }
                if lengthByte != 2 { return invalid("rtalert", &out) }
            case 0xC2:
                if left < 6 { return truncated("jumbo", &out) }
                if lengthByte != 4 { return invalid("jumbo", &out) }
                let jumboLength = try cursor.u32(start + index + 2)
                if !sawJumbo {
                    sawJumbo = true
                    if walk.payloadLength == 0 && jumboLength >= 65536 {
                        walk.foundJumbo = true
                        walk.payloadLength = jumboLength
                    }
                }
            case 0xC9:
                if left < 18 { return truncated("homeaddr", &out) }
                if lengthByte < 16 { return invalid("homeaddr", &out) }
            default:
                if left < 2 {
                    out.append("(type ")
                    out.appendDecimal(type)
                    out.append(": trunc)")
                    return false
                }
            }
            index += optionLength
        }
        return true
    }

    /// Destination Options (tcpdump's `dstopt_process`): `DSTOPT `; the options themselves are
    /// only looked at with `-v`. The header length, or nil after ` [|dstopt]`.
    private mutating func printDestinationOptions(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        protocolName = "dstopt"
        let length = (Int(try cursor.u8(offset + 1)) + 1) * 8
        guard cursor.has(offset, length) else {
            out.append(" [|dstopt]")
            return nil
        }
        out.append("DSTOPT ")
        return length
    }

    /// tcpdump's `frag6_print`: `frag (OFFSET|LENGTH) `, the length being what the payload
    /// length field leaves after this header (computed in 64 bits, so it wraps as tcpdump's
    /// does). 8, or nil for a non-first fragment, which is not decoded further.
    private mutating func printFragmentHeader(_ cursor: ByteCursor, at offset: Int, ip: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        protocolName = "frag6"
        let fragmentOffset = try cursor.u16(offset + 2) & 0xFFF8
        let payloadLength = try cursor.u16(ip + 4)
        let fragmentPayload = UInt64(40 + Int(payloadLength)) &- UInt64(offset - ip) &- 8
        out.append("frag (")
        out.appendDecimal(fragmentOffset)
        out.append("|")
        out.appendDecimal(fragmentPayload)
        out.append(")")
        if fragmentOffset != 0 { return nil }
        out.append(" ")
        return 8
    }

    /// tcpdump's `rt6_print`: `RT6 (len=2, type=0 [Deprecated], segleft=1, [0]ADDRESS) `.
    /// Every field is read before its text is printed, as tcpdump's `ND_PRINT` arguments are.
    /// The header length, or nil when the packet ends there.
    private mutating func printRoutingHeader(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        protocolName = "rt6"
        out.append("RT6")
        let length = Int(try cursor.u8(offset + 1))
        out.append(" (len=")
        out.appendDecimal(length)
        let type = try cursor.u8(offset + 2)
        out.append(", type=")
        out.appendDecimal(type)
        if type == 0 { out.append(" [Deprecated]") }
        let segmentsLeft = try cursor.u8(offset + 3)
        out.append(", segleft=")
        out.appendDecimal(segmentsLeft)
        /// `, [N]ADDRESS` for the addresses at the header's offset 8.
        func appendAddresses(_ count: Int, _ printer: PacketPrinter, _ out: inout [UInt8]) throws(PacketDecodingError) {
            for index in 0..<count {
                let address = offset + 8 + index * 16
                try cursor.check(address, 16)
                out.append(", [")
                out.appendDecimal(index)
                out.append("]")
                try printer.appendIPv6Address(cursor, at: address, into: &out)
            }
        }
        switch type {
        case 0, 2:
            let reserved = try cursor.u32(offset + 4)
            if reserved != 0 {
                out.append(", rsv=0x")
                out.appendHex(UInt64(reserved))
            }
            if length % 2 == 1 {
                out.append(" (invalid length ")
                out.appendDecimal(length)
                out.append(") (invalid)")
                return nil
            }
            try appendAddresses(length / 2, self, &out)
        case 4:
            let lastEntry = Int(try cursor.u8(offset + 4))
            out.append(", last-entry=")
            out.appendDecimal(lastEntry)
            let flags = try cursor.u8(offset + 5)
            if flags != 0 {
                out.append(", flags=0x")
                out.appendHex(UInt64(flags))
            }
            let tag = try cursor.u16(offset + 6)
            out.append(", tag=")
            out.appendHex(UInt64(tag))
            try appendAddresses(lastEntry + 1, self, &out)
        default:
            out.append(" (unknown type) (invalid)")
            return nil
        }
        out.append(") ")
        return (length + 1) * 8
    }

    // MARK: Addresses

    func appendIPv4Address(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try cursor.check(offset, 4)
        for index in 0..<4 {
            if index > 0 { out.append(".") }
            out.appendDecimal(cursor.bytes[offset + index])
        }
    }

    /// The 16 address bytes at `offset` as tcpdump's `addrtostr6` writes them (see
    /// ``Swift/Array/appendIPv6(high:low:)``).
    func appendIPv6Address(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try cursor.check(offset, 16)
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(cursor.bytes[offset + index])
            low = low << 8 | UInt64(cursor.bytes[offset + 8 + index])
        }
        out.appendIPv6(high: high, low: low)
    }
}
