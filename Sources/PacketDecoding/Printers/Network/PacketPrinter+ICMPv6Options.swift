/// Neighbour discovery with `-v` (tcpdump's `icmp6_opt_print` and the router advertisement,
/// neighbour advertisement and mobile IPv6 parts of `icmp6_print`).
extension PacketPrinter {
    /// tcpdump's `icmp6_opt_ra_flag_values`, `icmp6_nd_na_flag_values` and
    /// `icmp6_opt_pi_flag_values`, for `bittok2str`.
    private static let routerAdvertisementFlagNames = NameTable([
        (0x80, "managed"), (0x40, "other stateful"), (0x20, "home agent"), (0x02, "ipv6 only"),
    ])
    private static let neighborAdvertisementFlagNames = NameTable([
        (0x8000_0000, "router"), (0x4000_0000, "solicited"), (0x2000_0000, "override"),
    ])
    private static let prefixFlagNames = NameTable([(0x80, "onlink"), (0x40, "auto"), (0x20, "router")])

    /// `\n\thop limit N, Flags [managed, other stateful], pref medium, router lifetime Ns,
    /// reachable time Nms, retrans timer Nms` (every field read before any is printed).
    func appendRouterAdvertisement(_ cursor: ByteCursor, at icmp: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let hopLimit = try cursor.u8(icmp + 4)
        let flags = try cursor.u8(icmp + 5)
        let lifetime = try cursor.u16(icmp + 6)
        let reachable = try cursor.u32(icmp + 8)
        let retransmit = try cursor.u32(icmp + 12)
        out.append("\n\thop limit ")
        out.appendDecimal(hopLimit)
        out.append(", Flags [")
        Self.routerAdvertisementFlagNames.appendBits(UInt32(flags), none: "none", into: &out)
        out.append("], pref ")
        Self.appendRoutePreference(flags, into: &out)
        out.append(", router lifetime ")
        out.appendDecimal(lifetime)
        out.append("s, reachable time ")
        out.appendDecimal(reachable)
        out.append("ms, retrans timer ")
        out.appendDecimal(retransmit)
        out.append("ms")
    }

    /// `, Flags [router, solicited, override]` of a neighbour advertisement.
    static func appendNeighborAdvertisementFlags(_ flags: UInt32, into out: inout [UInt8]) {
        out.append(", Flags [")
        neighborAdvertisementFlagNames.appendBits(flags, none: "none", into: &out)
        out.append("]")
    }

    /// Home agent address discovery reply: `, id 0xNNNN` and `, ADDRESS` for every 16 bytes up to
    /// the message's length.
    func appendHomeAgentAddresses(_ cursor: ByteCursor, at icmp: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.append(", id 0x")
        out.appendHex(UInt64(try cursor.u16(icmp + 4)), minimumDigits: 4)
        var address = icmp + 8
        while address < icmp + length {
            try appendIPv6Address(cursor, at: address, after: ", ", into: &out)
            address += 16
        }
    }

    /// Mobile prefix advertisement: `, id 0xNNNN` and ` MO` for its flags.
    func appendMobilePrefixAdvertisement(_ cursor: ByteCursor, at icmp: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.append(", id 0x")
        out.appendHex(UInt64(try cursor.u16(icmp + 4)), minimumDigits: 4)
        let flags = try cursor.u16(icmp + 6)
        if flags & 0xC000 != 0 { out.append(" ") }
        if flags & 0x8000 != 0 { out.append("M") }
        if flags & 0x4000 != 0 { out.append("O") }
    }

    /// tcpdump's `icmp6_opt_print` with `-v` (nothing without): each option after the message's
    /// first `skipping` bytes, `\n\t  NAME option (TYPE), length BYTES (UNITS): VALUE`; `-vv`
    /// adds each option's bytes in hex. ` [|icmp6]` ends the list at a zero length or an option
    /// running past the capture.
    func appendNeighborDiscoveryOptions(
        _ cursor: ByteCursor, at icmp: Int, skipping: Int, length: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        guard options.verbosity > 0 else { return }
        if try !walkNeighborDiscoveryOptions(cursor, from: icmp + skipping, length: length - skipping, into: &out) {
            out.append(" [|icmp6]")
        }
    }

    /// The option loop; false where tcpdump gives up with ` [|icmp6]`.
    private func walkNeighborDiscoveryOptions(
        _ cursor: ByteCursor, from start: Int, length: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Bool {
        var offset = start
        var remaining = length
        while offset < cursor.end {
            guard cursor.has(offset + 1, 1) else { return false }
            if remaining <= 0 { return true }
            let type = try cursor.u8(offset)
            let units = Int(try cursor.u8(offset + 1))
            let optionLength = units * 8
            if units == 0 || !cursor.has(offset, optionLength) { return false }
            out.append("\n\t  ")
            Self.appendNeighborDiscoveryOptionName(type, into: &out)
            out.append(" option (")
            out.appendDecimal(type)
            out.append("), length ")
            out.appendDecimal(optionLength)
            out.append(" (")
            out.appendDecimal(units)
            out.append("): ")
            switch type {
            case 1, 2:
                try Self.appendLinkAddress(cursor, at: offset + 2, count: optionLength - 2, into: &out)
            case 3:
                try appendPrefixInformation(cursor, at: offset, units: units, into: &out)
            case 4:
                Self.appendUnknownData(cursor, at: start, length: optionLength, indent: "\n\t    ", into: &out)
            case 5:
                out.append(" ")
                out.appendDecimal(try cursor.u32(offset + 4))
                if units != 1 { out.append("bad option length") }
            case 25:
                let lifetime = try cursor.u32(offset + 4)
                out.append(" lifetime ")
                out.appendDecimal(lifetime)
                out.append("s,")
                for index in 0..<((units - 1) / 2) {
                    try appendIPv6Address(cursor, at: offset + 8 + index * 16, after: " addr: ", into: &out)
                }
            case 31:
                let lifetime = try cursor.u32(offset + 4)
                out.append(" lifetime ")
                out.appendDecimal(lifetime)
                out.append("s, domain(s):")
                var name = offset + 8
                while name < offset + optionLength, try cursor.u8(name) != 0 {
                    out.append(" ")
                    guard let next = try Self.appendDNSName(cursor, at: name, base: start, into: &out) else { return false }
                    name = next
                }
            case 7:
                out.append(" ")
                out.appendDecimal(try cursor.u32(offset + 4))
                out.append("ms")
            case 8:
                let preference = try cursor.u16(offset + 4)
                let lifetime = try cursor.u16(offset + 6)
                out.append(" preference ")
                out.appendDecimal(preference)
                out.append(", lifetime ")
                out.appendDecimal(lifetime)
            case 24:
                guard cursor.has(offset + 4, 4) else { return false }
                var high: UInt64 = 0, low: UInt64 = 0
                switch units {
                case 1:
                    break
                case 2:
                    try cursor.check(offset + 8, 8)
                    high = try cursor.u64(offset + 8)
                case 3:
                    try cursor.check(offset + 8, 16)
                    high = try cursor.u64(offset + 8)
                    low = try cursor.u64(offset + 16)
                default:
                    return false
                }
                out.append(" ")
                out.appendIPv6(high: high, low: low)
                out.append("/")
                out.appendDecimal(try cursor.u8(offset + 2))
                out.append(", pref=")
                Self.appendRoutePreference(try cursor.u8(offset + 3), into: &out)
                out.append(", lifetime=")
                Self.appendLifetime(try cursor.u32(offset + 4), into: &out)
            default:
                if options.verbosity <= 1 {
                    Self.appendUnknownData(cursor, at: offset + 2, length: optionLength - 2, indent: "\n\t  ", into: &out)
                    return true
                }
            }
            if options.verbosity > 1 {
                Self.appendUnknownData(cursor, at: offset + 2, length: optionLength - 2, indent: "\n\t    ", into: &out)
            }
            offset += optionLength
            remaining -= optionLength
        }
        return true
    }

    /// Prefix information: `PREFIX/LEN[badlen], Flags [onlink, auto], valid time Ns, pref. time Ns`.
    private func appendPrefixInformation(_ cursor: ByteCursor, at option: Int, units: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var prefix: [UInt8] = []
        try appendIPv6Address(cursor, at: option + 16, into: &prefix)
        let prefixLength = try cursor.u8(option + 2)
        let flags = try cursor.u8(option + 3)
        let valid = try cursor.u32(option + 4)
        out.append(contentsOf: prefix)
        out.append("/")
        out.appendDecimal(prefixLength)
        if units != 4 { out.append("badlen") }
        out.append(", Flags [")
        Self.prefixFlagNames.appendBits(UInt32(flags), none: "none", into: &out)
        out.append("], valid time ")
        Self.appendLifetime(valid, into: &out)
        let preferred = try cursor.u32(option + 8)
        out.append(", pref. time ")
        Self.appendLifetime(preferred, into: &out)
    }

    private static func appendNeighborDiscoveryOptionName(_ type: UInt8, into out: inout [UInt8]) {
        switch type {
        case 1: out.append("source link-address")
        case 2: out.append("destination link-address")
        case 3: out.append("prefix info")
        case 4: out.append("redirected header")
        case 5: out.append("mtu")
        case 25: out.append("rdnss")
        case 31: out.append("dnssl")
        case 7: out.append("advertisement interval")
        case 8: out.append("homeagent information")
        case 24: out.append("route info")
        default: out.append("unknown")
        }
    }

    /// `medium`, `high`, `rsv` or `low` from a router preference field (bits 3–4).
    private static func appendRoutePreference(_ flags: UInt8, into out: inout [UInt8]) {
        switch (flags & 0x18) >> 3 {
        case 0: out.append("medium")
        case 1: out.append("high")
        case 2: out.append("rsv")
        default: out.append("low")
        }
    }

    /// `Ns`, or `infinity` for all ones.
    private static func appendLifetime(_ value: UInt32, into out: inout [UInt8]) {
        if value == 0xFFFF_FFFF {
            out.append("infinity")
        } else {
            out.appendDecimal(value)
            out.append("s")
        }
    }
}
