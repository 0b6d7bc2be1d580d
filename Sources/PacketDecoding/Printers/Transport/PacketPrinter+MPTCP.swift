/// Multipath TCP options (TCP option 30), as tcpdump 4.99.3's MPTCP printer writes them:
/// ` LEN SUBTYPE details`, e.g. `mptcp 12 capable v0 csum {0x102030405060708}`,
/// `mptcp 8 add-addr v1 id 1 10.0.0.1`, `mptcp 18 dss ack 1 seq 2 subseq 3 len 4`.
///
/// Each subtype accepts only the lengths (and TCP flags) its RFC 8684 layout allows; any other
/// makes the printer fail, and the caller then prints `[bad opt]` and abandons the line, after
/// whatever text the subtype printed before it noticed.
extension PacketPrinter {
    /// Subtype names; 4.99.3 knows subtypes 0–7 and calls everything above `unknown`.
    private static let mptcpSubtypeNames: [StaticString] = [
        "capable", "join", "dss", "add-addr", "rem-addr", "prio", "fail", "fast-close", "unknown",
    ]

    /// One MPTCP option: `offset` is its kind byte, `length` its length byte, `tcpFlags` the
    /// segment's flags (some layouts are only valid on a SYN or an ACK).
    struct MPTCPOption {
        var cursor: ByteCursor
        var offset: Int
        var length: Int
        var tcpFlags: UInt8

        var isSYN: Bool { tcpFlags & 0x02 != 0 }
        var isACK: Bool { tcpFlags & 0x10 != 0 }
        /// ACK set and SYN clear.
        var isACKOnly: Bool { tcpFlags & 0x12 == 0x10 }
        var isSYNACK: Bool { tcpFlags & 0x12 == 0x12 }

        func u8(_ at: Int) throws(PacketDecodingError) -> UInt8 { try cursor.u8(offset + at) }
        func u16(_ at: Int) throws(PacketDecodingError) -> UInt16 { try cursor.u16(offset + at) }
        func u32(_ at: Int) throws(PacketDecodingError) -> UInt32 { try cursor.u32(offset + at) }
        func u64(_ at: Int) throws(PacketDecodingError) -> UInt64 { try cursor.u64(offset + at) }
    }

    /// Prints the option whose kind byte is at `offset`; false when its length does not fit its
    /// subtype (tcpdump's `[bad opt]`). `cursor` must end at the option's end.
    mutating func printMPTCP(_ cursor: ByteCursor, at offset: Int, length: Int, flags: UInt8, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        protocolName = "mptcp"
        guard length >= 3 else { return false }
        let option = MPTCPOption(cursor: cursor, offset: offset, length: length, tcpFlags: flags)
        let subtype = min(Int(try option.u8(2) >> 4), Self.mptcpSubtypeNames.count - 1)
        out.append(" ")
        out.appendDecimal(length)
        out.append(" ")
        out.append(Self.mptcpSubtypeNames[subtype])
        switch subtype {
        case 0: return try appendMPTCPCapable(option, into: &out)
        case 1: return try appendMPTCPJoin(option, into: &out)
        case 2: return try appendMPTCPDataSequence(option, into: &out)
        case 3: return try appendMPTCPAddAddress(option, into: &out)
        case 4: return try appendMPTCPRemoveAddress(option, into: &out)
        case 5: return try appendMPTCPPriority(option, into: &out)
        case 6: return try appendMPTCPFail(option, into: &out)
        case 7: return try appendMPTCPFastClose(option, into: &out)
        default: return true
        }
    }

    /// MP_CAPABLE: ` v1 csum {0xSENDERKEY,0xRECEIVERKEY}`.
    private func appendMPTCPCapable(_ option: MPTCPOption, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        let length = option.length
        let onSYN = (length == 12 || length == 4) && option.isSYN
        let onACK = (length == 20 || length == 22) && option.isACKOnly
        guard onSYN || onACK else { return false }
        let version = try option.u8(2) & 0x0F
        guard version <= 1 else {
            out.append(" Unknown Version (")
            out.appendDecimal(version)
            out.append(")")
            return true
        }
        out.append(" v")
        out.appendDecimal(version)
        if try option.u8(3) & 0x80 != 0 { out.append(" csum") }
        if length == 12 || length >= 20 {
            out.append(" {0x")
            out.appendHex(try option.u64(4))
            if length >= 20 {
                out.append(",0x")
                out.appendHex(try option.u64(12))
            }
            out.append("}")
        }
        return true
    }

    /// MP_JOIN: the SYN (token, nonce), SYN-ACK (truncated HMAC, nonce) and ACK (full HMAC) forms.
    private func appendMPTCPJoin(_ option: MPTCPOption, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        let length = option.length
        let valid = (length == 12 && option.isSYN) || (length == 16 && option.isSYNACK) || (length == 24 && option.isACK)
        guard valid else { return false }
        if length != 24 {
            if try option.u8(2) & 0x01 != 0 { out.append(" backup") }
            out.append(" id ")
            out.appendDecimal(try option.u8(3))
        }
        switch length {
        case 12:
            out.append(" token 0x")
            out.appendHex(UInt64(try option.u32(4)))
            out.append(" nonce 0x")
            out.appendHex(UInt64(try option.u32(8)))
        case 16:
            out.append(" hmac 0x")
            out.appendHex(try option.u64(4))
            out.append(" nonce 0x")
            out.appendHex(UInt64(try option.u32(12)))
        default:
            out.append(" hmac 0x")
            for index in 4..<24 { out.appendHex(UInt64(try option.u8(index)), minimumDigits: 2) }
        }
        return true
    }

    /// DSS: ` fin`, ` ack N`, ` seq N subseq N len N [csum 0xN]`; every byte must be accounted for.
    private func appendMPTCPDataSequence(_ option: MPTCPOption, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard option.length >= 4, !option.isSYN else { return false }
        let dssFlags = try option.u8(3)
        if dssFlags & 0x10 != 0 { out.append(" fin") }
        var position = 4
        var remaining = option.length - 4
        /// A 4- or 8-byte number; false when fewer bytes remain.
        func appendNumber(wide: Bool, _ out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
            let size = wide ? 8 : 4
            guard remaining >= size else { return false }
            if wide {
                out.appendDecimal(try option.u64(position))
            } else {
                out.appendDecimal(try option.u32(position))
            }
            position += size
            remaining -= size
            return true
        }
        if dssFlags & 0x01 != 0 {
            out.append(" ack ")
            guard try appendNumber(wide: dssFlags & 0x02 != 0, &out) else { return false }
        }
        if dssFlags & 0x04 != 0 {
            out.append(" seq ")
            guard try appendNumber(wide: dssFlags & 0x08 != 0, &out) else { return false }
            guard remaining >= 4 else { return false }
            out.append(" subseq ")
            out.appendDecimal(try option.u32(position))
            position += 4
            remaining -= 4
            guard remaining >= 2 else { return false }
            out.append(" len ")
            out.appendDecimal(try option.u16(position))
            position += 2
            remaining -= 2
            if remaining >= 2 {
                out.append(" csum 0x")
                out.appendHex(UInt64(try option.u16(position)))
                remaining -= 2
            }
        }
        return remaining == 0
    }

    /// ADD_ADDR: ` v1 id N ADDRESS[:PORT][ hmac 0xN]`; the length alone picks IPv4 or IPv6,
    /// with or without port and HMAC.
    private func appendMPTCPAddAddress(_ option: MPTCPOption, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        let length = option.length
        let ipv4Lengths = [8, 10, 16, 18], ipv6Lengths = [20, 22, 28, 30]
        let isIPv4 = ipv4Lengths.contains(length)
        guard isIPv4 || ipv6Lengths.contains(length) else { return false }
        out.append(" ")
        switch try option.u8(2) & 0x0F {
        case 0x6: out.append("v0-ip6")
        case 0x4: out.append("v0-ip4")
        case 0x1: out.append("v1-echo")
        case 0x0: out.append("v1")
        default: out.append("[bad version/echo]")
        }
        out.append(" id ")
        out.appendDecimal(try option.u8(3))
        out.append(" ")
        let addressLength = isIPv4 ? 4 : 16
        if isIPv4 {
            try appendIPv4Address(option.cursor, at: option.offset + 4, into: &out)
        } else {
            try appendIPv6Address(option.cursor, at: option.offset + 4, into: &out)
        }
        let afterAddress = 4 + addressLength
        let withPort = length == afterAddress + 2 || length == afterAddress + 10
        let withHMAC = length >= afterAddress + 8
        if withPort {
            out.append(":")
            out.appendDecimal(try option.u16(afterAddress))
        }
        if withHMAC {
            out.append(" hmac 0x")
            out.appendHex(try option.u64(afterAddress + (withPort ? 2 : 0)))
        }
        return true
    }

    /// REMOVE_ADDR: ` id N N …`, one address id per remaining byte.
    private func appendMPTCPRemoveAddress(_ option: MPTCPOption, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard option.length >= 4 else { return false }
        out.append(" id")
        for index in 3..<option.length {
            out.append(" ")
            out.appendDecimal(try option.u8(index))
        }
        return true
    }

    /// MP_PRIO: ` backup` / ` non-backup`, then ` id N` when the option carries one.
    private func appendMPTCPPriority(_ option: MPTCPOption, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard option.length == 3 || option.length == 4 else { return false }
        out.append(try option.u8(2) & 0x01 != 0 ? " backup" : " non-backup")
        if option.length == 4 {
            out.append(" id ")
            out.appendDecimal(try option.u8(3))
        }
        return true
    }

    /// MP_FAIL: ` seq N` (the 64-bit data sequence number).
    private func appendMPTCPFail(_ option: MPTCPOption, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard option.length == 12 else { return false }
        out.append(" seq ")
        out.appendDecimal(try option.u64(4))
        return true
    }

    /// MP_FASTCLOSE: ` key 0xN`.
    private func appendMPTCPFastClose(_ option: MPTCPOption, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard option.length == 12 else { return false }
        out.append(" key 0x")
        out.appendHex(try option.u64(4))
        return true
    }
}
