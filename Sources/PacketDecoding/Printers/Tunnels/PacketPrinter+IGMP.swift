/// IGMP (tcpdump's `igmp_print`, IP protocol 2): v1/v2/v3 queries, v1/v2 reports, leaves, v3
/// reports with their group records (`-v`; `-vv` lists the sources), multicast traceroute
/// queries and responses, DVMRP (PacketPrinter+DVMRP.swift); `-v` checks the checksum. Over IPv6
/// the protocol prints tcpdump's `[IGMP requires IPv4] (invalid)` (in the IP hand-off).
///
/// Limits: PIM version 1 messages (type 0x14) print `igmp pimv1` without tcpdump's PIM text.
extension PacketPrinter {
    /// tcpdump's `igmp_print` for the message at `igmp`, `length` bytes long.
    mutating func printIGMP(_ cursor: inout ByteCursor, at igmp: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "igmp"
        if ip.isIPv6 {
            out.append("[IGMP requires IPv4] (invalid)")
            return
        }
        if options.quick { return out.append("igmp") }
        let type = try cursor.u8(igmp)
        switch type {
        case 0x11:
            out.append("igmp query")
            if length >= 12 {
                try appendIGMPv3Query(cursor, at: igmp, length: length, into: &out)
            } else {
                let maxResponse = try cursor.u8(igmp + 1)
                if maxResponse != 0 {
                    out.append(" v2")
                    if maxResponse != 100 {
                        out.append(" [max resp time ")
                        out.appendDecimal(maxResponse)
                        out.append("]")
                    }
                } else {
                    out.append(" v1")
                }
                if try cursor.u32(igmp + 4) != 0 {
                    out.append(" [gaddr ")
                    try appendIPv4Address(cursor, at: igmp + 4, into: &out)
                    out.append("]")
                }
                if length != 8 { Self.appendIGMPLength(length, into: &out) }
            }
        case 0x12, 0x16, 0x17:
            try cursor.check(igmp + 4, 4)
            out.append(type == 0x12 ? "igmp v1 report " : type == 0x16 ? "igmp v2 report " : "igmp leave ")
            try appendIPv4Address(cursor, at: igmp + 4, into: &out)
            if type == 0x12 && length != 8 { Self.appendIGMPLength(length, into: &out) }
        case 0x22:
            out.append("igmp v3 report")
            try appendIGMPv3Report(cursor, at: igmp, length: length, into: &out)
        case 0x13:
            out.append("igmp dvmrp")
            if length < 8 {
                Self.appendIGMPLength(length, into: &out)
            } else {
                try printDVMRP(cursor, at: igmp, length: length, into: &out)
            }
        case 0x14:
            out.append("igmp pimv1")
        case 0x1E, 0x1F:
            try appendMulticastTrace(cursor, at: igmp, length: length, response: type == 0x1E, into: &out)
        default:
            out.append("igmp-")
            out.appendDecimal(type)
        }
        if options.verbosity > 0 && length >= 4 && cursor.has(igmp, length) {
            if InternetChecksum.result(cursor, at: igmp, count: length) != 0 {
                out.append(" bad igmp cksum ")
                out.appendHex(UInt64(try cursor.u16(igmp + 2)))
                out.append("!")
            }
        }
    }

    /// ` [len N]`.
    private static func appendIGMPLength(_ length: Int, into out: inout [UInt8]) {
        out.append(" [len ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
        out.append("]")
    }

    /// tcpdump's `print_igmpv3_query`: the maximum response time unless it is the default
    /// 10 s, the group, its number of sources (`-vv`: the sources).
    private func appendIGMPv3Query(_ cursor: ByteCursor, at igmp: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.append(" v3")
        guard length >= 12, length & 3 == 0 else {
            out.append(" [invalid len ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            out.append("]")
            return
        }
        let code = UInt32(try cursor.u8(igmp + 1))
        let time = code < 128 ? code : ((code & 0x0F) | 0x10) << (((code & 0x70) >> 4) + 3)
        if code != 100 {
            out.append(" [max resp time ")
            if time < 600 {
                out.appendDecimal(time / 10)
                out.append(".")
                out.appendDecimal(time % 10)
                out.append("s")
            } else {
                out.appendRelativeSeconds(time / 10)
            }
            out.append("]")
        }
        guard try cursor.u32(igmp + 4) != 0 else { return }
        out.append(" [gaddr ")
        try appendIPv4Address(cursor, at: igmp + 4, into: &out)
        let sources = Int(try cursor.u16(igmp + 10))
        try appendMulticastQuerySources(cursor, at: igmp + 12, count: sources, room: length - 12, addressLength: 4, into: &out)
        out.append("]")
    }

    /// tcpdump's `print_igmpv3_report`: the number of group records; `-v` each record's group,
    /// type and number of sources, `-vv` the sources (``appendMulticastGroupRecords``).
    private func appendIGMPv3Report(_ cursor: ByteCursor, at igmp: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard length >= 16, length & 3 == 0 else {
            out.append(" [invalid len ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            out.append("]")
            return
        }
        try appendMulticastGroupRecords(cursor, at: igmp, length: length, addressLength: 4, unknownType: " [v3-report-#", into: &out)
    }

    /// tcpdump's `print_mtrace`: `mtrace 7: SOURCE to DESTINATION reply-to ADDRESS` (`mresp`
    /// for responses), with the response TTL when the reply goes to a multicast group.
    private func appendMulticastTrace(_ cursor: ByteCursor, at igmp: Int, length: Int, response: Bool, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard length >= 24 else {
            out.append(" [invalid len ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            out.append("]")
            return
        }
        let query = igmp + 8
        let queryID = UInt32(try cursor.u8(query + 13)) << 16 | UInt32(try cursor.u16(query + 14))
        try cursor.check(query, 12)
        out.append(response ? "mresp " : "mtrace ")
        out.appendDecimal(queryID)
        out.append(": ")
        try appendIPv4Address(cursor, at: query, into: &out)
        out.append(" to ")
        try appendIPv4Address(cursor, at: query + 4, into: &out)
        out.append(" reply-to ")
        try appendIPv4Address(cursor, at: query + 8, into: &out)
        if try cursor.u32(query + 8) & 0xF000_0000 == 0xE000_0000 {
            out.append(" with-ttl ")
            out.appendDecimal(try cursor.u8(query + 12))
        }
    }
}
