/// The IPv6 printer (tcpdump's `ip6_print`): the fixed header (with `-v` its
/// `(class …, flowlabel …, hlim …, next-header … payload length: …)` group), the extension
/// headers in order (PacketPrinter+IPv6Options.swift), then the payload through the demultiplexer.
extension PacketPrinter {
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
    mutating func printIPv6(_ cursor: inout ByteCursor, at ip: Int, length: Int, depth: Int = 0, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "ip6"
        guard depth < Self.maximumIPNesting else { throw PacketDecodingError.capturedBytesEnd }
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
        if options.verbosity > 0 { try appendIPv6VerboseHeader(cursor, at: ip, nextHeader: nextHeader, into: &out) }
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
            case 135, 62:
                try printMobilityHeader(cursor, at: offset, into: &out)
                return
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
                let context = IPContext(
                    offset: ip, isIPv6: true, headerProtocol: headerProtocol, fragmented: walk.fragmented, depth: depth)
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

    /// `-v`: `(class 0xNN, flowlabel 0xNNNNN, hlim N, next-header NAME (N) payload length: N) `,
    /// the class and flow label only when not zero.
    private func appendIPv6VerboseHeader(_ cursor: ByteCursor, at ip: Int, nextHeader: UInt8, into out: inout [UInt8]) throws(PacketDecodingError) {
        let flow = try cursor.u32(ip)
        out.append("(")
        if flow & 0x0FF0_0000 != 0 {
            out.append("class 0x")
            out.appendHex(UInt64((flow & 0x0FF0_0000) >> 20), minimumDigits: 2)
            out.append(", ")
        }
        if flow & 0x000F_FFFF != 0 {
            out.append("flowlabel 0x")
            out.appendHex(UInt64(flow & 0x000F_FFFF), minimumDigits: 5)
            out.append(", ")
        }
        out.append("hlim ")
        out.appendDecimal(try cursor.u8(ip + 7))
        out.append(", next-header ")
        Self.appendIPProtocolName(nextHeader, into: &out)
        out.append(" (")
        out.appendDecimal(nextHeader)
        out.append(") payload length: ")
        out.appendDecimal(try cursor.u16(ip + 4))
        out.append(") ")
    }
}
