/// The IPv4 header as `-v` prints it (tcpdump's `ip_print` verbose part, `ip_optprint`,
/// `ip_printroute`, `ip_printts`) and the protocol names both IP versions print with `-v`.
extension PacketPrinter {
    /// `(tos 0x0, ttl 64, id 1, offset 0, flags [DF], proto TCP (6), length 60[, options (…)][,
    /// bad cksum …!])` and the line break with its 4-space indent. The fixed 20 bytes are
    /// captured (the caller checked); an option cut by the capture prints ` [truncated-option]`
    /// and the line ends as tcpdump's does: `A > B:  [|ip]`, and false is returned.
    mutating func appendIPv4VerboseHeader(
        _ cursor: ByteCursor, at ip: Int, headerLength: Int, fragmentField: UInt16, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Bool {
        let tos = try cursor.u8(ip + 1)
        out.append("(tos 0x")
        out.appendHex(UInt64(tos))
        switch tos & 0x03 {
        case 1: out.append(",ECT(1)")
        case 2: out.append(",ECT(0)")
        case 3: out.append(",CE")
        default: break
        }
        let ttl = try cursor.u8(ip + 8)
        if ttl >= 1 {
            out.append(", ttl ")
            out.appendDecimal(ttl)
        }
        let identification = try cursor.u16(ip + 4)
        let nextProtocol = try cursor.u8(ip + 9)
        out.append(", id ")
        out.appendDecimal(identification)
        out.append(", offset ")
        out.appendDecimal(UInt32(fragmentField & 0x1FFF) * 8)
        out.append(", flags [")
        Self.appendFragmentFlags(fragmentField, into: &out)
        out.append("], proto ")
        Self.appendIPProtocolName(nextProtocol, into: &out)
        out.append(" (")
        out.appendDecimal(nextProtocol)
        out.append("), length ")
        out.appendDecimal(try cursor.u16(ip + 2))
        var complete = true
        if headerLength > 20 {
            out.append(", options (")
            if try !appendIPv4Options(cursor, at: ip + 20, length: headerLength - 20, into: &out) {
                out.append(" [truncated-option]")
                complete = false
            }
            out.append(")")
        }
        if cursor.has(ip, headerLength) {
            let result = InternetChecksum.result(cursor, at: ip, count: headerLength)
            if result != 0 {
                let field = try cursor.u16(ip + 10)
                out.append(", bad cksum ")
                out.appendHex(UInt64(field))
                out.append(" (->")
                out.appendHex(UInt64(InternetChecksum.shouldBe(field: field, result: result)))
                out.append(")!")
            }
        }
        out.append(")\n    ")
        if !complete {
            try appendIPv4Address(cursor, at: ip + 12, into: &out)
            out.append(" > ")
            try appendIPv4Address(cursor, at: ip + 16, into: &out)
            out.append(":  [|")
            out.append(protocolName)
            out.append("]")
        }
        return complete
    }

    /// `bittok2str` of the fragment bits: `+` (more fragments), `DF`, `rsvd`, joined by `, `;
    /// `none` when no bit is set.
    private static func appendFragmentFlags(_ field: UInt16, into out: inout [UInt8]) {
        var separator = false
        func name(_ text: StaticString, _ out: inout [UInt8]) {
            if separator { out.append(", ") }
            out.append(text)
            separator = true
        }
        if field & 0x2000 != 0 { name("+", &out) }
        if field & 0x4000 != 0 { name("DF", &out) }
        if field & 0x8000 != 0 { name("rsvd", &out) }
        if !separator { out.append("none") }
    }

    /// tcpdump's `ipproto_values`, `unknown` for the others.
    static func appendIPProtocolName(_ value: UInt8, into out: inout [UInt8]) {
        let name: StaticString
        switch value {
        case 0: name = "Options"
        case 1: name = "ICMP"
        case 2: name = "IGMP"
        case 4: name = "IPIP"
        case 6: name = "TCP"
        case 8: name = "EGP"
        case 9: name = "IGRP"
        case 17: name = "UDP"
        case 33: name = "DCCP"
        case 41: name = "IPv6"
        case 43: name = "Routing"
        case 44: name = "Fragment"
        case 46: name = "RSVP"
        case 47: name = "GRE"
        case 50: name = "ESP"
        case 51: name = "AH"
        case 55: name = "Mobile IP"
        case 58: name = "ICMPv6"
        case 62: name = "Mobile IP (old)"
        case 88: name = "EIGRP"
        case 89: name = "OSPF"
        case 103: name = "PIM"
        case 108: name = "Compressed IP"
        case 112: name = "VRRP"
        case 113: name = "PGM"
        case 132: name = "SCTP"
        case 135: name = "Mobility"
        case 143: name = "Ethernet"
        default: name = "unknown"
        }
        out.append(name)
    }

    /// tcpdump's `ip_optprint`: the options, comma-separated, by name (`unknown N` for the
    /// others). A bad length ends the list there; false when an option is not all captured.
    private func appendIPv4Options(_ cursor: ByteCursor, at start: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        var offset = start
        var remaining = length
        var separator = false
        while remaining > 0 {
            if separator { out.append(",") }
            separator = true
            let code = try cursor.u8(offset)
            Self.appendIPOptionName(code, into: &out)
            let optionLength: Int
            if code == 0 || code == 1 {
                optionLength = 1
            } else {
                optionLength = Int(try cursor.u8(offset + 1))
                if optionLength < 2 {
                    Self.appendBadLength(optionLength, into: &out)
                    return true
                }
            }
            if optionLength > remaining {
                Self.appendBadLength(optionLength, into: &out)
                return true
            }
            guard cursor.has(offset, optionLength) else { return false }
            switch code {
            case 0:
                return true
            case 68:
                guard try appendTimestampOption(cursor, at: offset, length: optionLength, into: &out) else { return false }
            case 7, 131, 137:
                guard try appendRouteOption(cursor, at: offset, length: optionLength, into: &out) else { return false }
            case 148:
                if optionLength < 4 {
                    Self.appendBadLength(optionLength, into: &out)
                } else {
                    let value = try cursor.u16(offset + 2)
                    if value != 0 {
                        out.append(" value ")
                        out.appendDecimal(value)
                    }
                }
            default:
                break
            }
            offset += optionLength
            remaining -= optionLength
        }
        return true
    }

    private static func appendIPOptionName(_ code: UInt8, into out: inout [UInt8]) {
        switch code {
        case 0: out.append("EOL")
        case 1: out.append("NOP")
        case 68: out.append("timestamp")
        case 130: out.append("security")
        case 7: out.append("RR")
        case 137: out.append("SSRR")
        case 131: out.append("LSRR")
        case 148: out.append("RA")
        case 82: out.append("traceroute")
        default:
            out.append("unknown ")
            out.appendDecimal(code)
        }
    }

    private static func appendBadLength(_ length: Int, into out: inout [UInt8]) {
        out.append(" [bad length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
        out.append("]")
    }

    /// tcpdump's `ip_printroute` (RR, LSRR, SSRR): ` [bad length N]`, ` [bad ptr N]`, then each
    /// address, followed by `,` while the pointer is past it. False when an address is not
    /// captured.
    private func appendRouteOption(_ cursor: ByteCursor, at option: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        if length < 3 {
            Self.appendBadLength(length, into: &out)
            return true
        }
        if (length + 1) & 3 != 0 { Self.appendBadLength(length, into: &out) }
        let pointerByte = try cursor.u8(option + 2)
        // Unsigned, as in tcpdump: a zero pointer byte makes it the largest value.
        let pointer = UInt32(pointerByte) &- 1
        if pointer < 3 || (pointer &+ 1) & 3 != 0 || pointer > UInt32(length + 1) {
            out.append(" [bad ptr ")
            out.appendDecimal(pointerByte)
            out.append("]")
        }
        var index = 3
        while index < length {
            guard cursor.has(option + index, 4) else { return false }
            out.append(" ")
            try appendIPv4Address(cursor, at: option + index, into: &out)
            if pointer > UInt32(index) { out.append(",") }
            index += 4
        }
        return true
    }

    /// tcpdump's `ip_printts`: ` TS{TSONLY 1@ 2@}`, `TS+ADDR` entries as `TIME@ADDRESS`, ` ^ `
    /// where the pointer is, ` [N hops not recorded]} ` for the overflow count. False when an
    /// entry is not captured.
    private func appendTimestampOption(_ cursor: ByteCursor, at option: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        if length < 4 {
            out.append("[bad length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            out.append("]")
            return true
        }
        out.append(" TS{")
        let flags = try cursor.u8(option + 3)
        let entryLength = flags & 0x0F != 0 ? 8 : 4
        if (length - 4) & (entryLength - 1) != 0 {
            out.append("[bad length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            out.append("]")
        }
        let pointerByte = try cursor.u8(option + 2)
        let pointer = UInt32(pointerByte) &- 1
        if pointer < 4 || (pointer &- 4) & UInt32(entryLength - 1) != 0 || pointer > UInt32(length + 1) {
            out.append("[bad ptr ")
            out.appendDecimal(pointerByte)
            out.append("]")
        }
        var index = 0
        var knownType = true
        switch flags & 0x0F {
        case 0: out.append("TSONLY")
        case 1: out.append("TS+ADDR")
        case 3: out.append("PRESPEC")
        default:
            out.append("[bad ts type ")
            out.appendDecimal(flags & 0x0F)
            out.append("]")
            knownType = false
        }
        if knownType {
            index = 4
            while index < length {
                let marker = pointer == UInt32(index)
                guard cursor.has(option + index, entryLength) else { return false }
                out.append(marker ? " ^ " : " ")
                out.appendDecimal(try cursor.u32(option + index + entryLength - 4))
                out.append("@")
                if entryLength == 8 { try appendIPv4Address(cursor, at: option + index, into: &out) }
                index += entryLength
            }
        }
        if pointer == UInt32(index) { out.append(" ^ ") }
        if flags >> 4 != 0 {
            out.append(" [")
            out.appendDecimal(flags >> 4)
            out.append(" hops not recorded]} ")
        } else {
            out.append("}")
        }
        return true
    }
}
