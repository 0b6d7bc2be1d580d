/// Cisco's link-management protocols behind SNAP: DTP, the Dynamic Trunking Protocol (tcpdump's
/// `dtp_print`, PID 0x2004) and UDLD, UniDirectional Link Detection (`udld_print`, PID 0x0111).
/// Without `-v` the version and length (UDLD: code and flags); `-v` each TLV. Lengths that do
/// not fit end the text with ` (invalid)`; reads past the capture with ` [|dtp]` / ` [|udld]`.
extension PacketPrinter {
    private static let dtpTLVNames = NameTable([(1, "Domain"), (2, "Status"), (3, "DTP type"), (4, "Neighbor")])

    private static let udldTLVNames = NameTable([
        (1, "Device-ID TLV"), (2, "Port-ID TLV"), (3, "Echo TLV"), (4, "Message Interval TLV"),
        (5, "Timeout Interval TLV"), (6, "Device Name TLV"), (7, "Sequence Number TLV"),
    ])

    private static let udldCodeNames = NameTable([(0, "Reserved"), (1, "Probe message"), (2, "Echo message"), (3, "Flush message")])

    private static let udldFlagNames = NameTable([
        (1 << 0, "RT"), (1 << 1, "RSY"), (1 << 2, "MBZ-2"), (1 << 3, "MBZ-3"), (1 << 4, "MBZ-4"), (1 << 5, "MBZ-5"),
        (1 << 6, "MBZ-6"), (1 << 7, "MBZ-7"),
    ])

    /// tcpdump's `dtp_print` for the message at `p`, `length` bytes long.
    mutating func printDTP(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "dtp"
        var offset = p
        var left = length
        func invalid(_ out: inout [UInt8]) throws(PacketDecodingError) {
            out.append(" (invalid)")
            try cursor.check(offset, left)
        }
        guard length >= 1 else {
            out.append("[zero packet length]")
            return try invalid(&out)
        }
        let version = try cursor.u8(p)
        out.append("DTPv")
        out.appendDecimal(version)
        out.append(", length ")
        out.appendDecimal(length)
        guard options.verbosity > 0 else { return }
        offset += 1
        left -= 1
        while left > 0 {
            guard left >= 4 else {
                out.append("[")
                out.appendDecimal(left)
                out.append(" bytes remaining]")
                return try invalid(&out)
            }
            let type = try cursor.u16(offset)
            let tlvLength = Int(try cursor.u16(offset + 2))
            if type == 0 { return }
            out.append("\n\t")
            out.append(Self.dtpTLVNames.name(UInt32(type), or: "Unknown"))
            out.append(" (0x")
            out.appendHex(UInt64(type), minimumDigits: 4)
            out.append(") TLV, length ")
            out.appendDecimal(tlvLength)
            guard tlvLength >= 4, tlvLength <= left else {
                out.append("[invalid TLV length ")
                out.appendDecimal(tlvLength)
                out.append("]")
                return try invalid(&out)
            }
            switch type {
            case 1:
                out.append(", ")
                try Self.appendNullPaddedText(cursor, at: offset + 4, count: tlvLength - 4, into: &out)
            case 2, 3:
                guard tlvLength == 5 else { return try invalid(&out) }
                let value = try cursor.u8(offset + 4)
                out.append(", 0x")
                out.appendHex(UInt64(value))
            case 4:
                guard tlvLength == 10 else { return try invalid(&out) }
                try cursor.check(offset + 4, 6)
                out.append(", ")
                appendMAC(cursor, at: offset + 4, into: &out)
            default:
                try cursor.check(offset, tlvLength)
            }
            offset += tlvLength
            left -= tlvLength
        }
    }

    /// tcpdump's `udld_print` for the message at `p`, `length` bytes long.
    mutating func printUDLD(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "udld"
        var offset = p
        var left = length
        func invalid(_ out: inout [UInt8]) throws(PacketDecodingError) {
            out.append(" (invalid)")
            try cursor.check(offset, left)
        }
        guard length >= 4 else { return try invalid(&out) }
        let first = try cursor.u8(p)
        let flags = try cursor.u8(p + 1)
        offset += 2
        left -= 2
        let code = first & 0x1F
        out.append("UDLDv")
        out.appendDecimal(first >> 5)
        out.append(", Code ")
        out.append(Self.udldCodeNames.name(UInt32(code), or: "Reserved"))
        out.append(" (")
        out.appendHex(UInt64(code))
        out.append("), Flags [")
        Self.udldFlagNames.appendBits(UInt32(flags), none: "none", into: &out)
        out.append("] (0x")
        out.appendHex(UInt64(flags), minimumDigits: 2)
        out.append("), length ")
        out.appendDecimal(left + 2)
        guard options.verbosity > 0 else { return try cursor.check(offset, left) }
        let checksum = try cursor.u16(offset)
        out.append("\n\tChecksum 0x")
        out.appendHex(UInt64(checksum), minimumDigits: 4)
        out.append(" (unverified)")
        offset += 2
        left -= 2
        while left > 0 {
            guard left >= 4 else { return try invalid(&out) }
            let type = try cursor.u16(offset)
            var tlvLength = Int(try cursor.u16(offset + 2))
            offset += 4
            left -= 4
            out.append("\n\t")
            out.append(Self.udldTLVNames.name(UInt32(type), or: "Unknown"))
            out.append(" (0x")
            out.appendHex(UInt64(type), minimumDigits: 4)
            out.append(") TLV, length ")
            out.appendDecimal(tlvLength)
            guard tlvLength > 4 else { return try invalid(&out) }
            tlvLength -= 4
            guard left >= tlvLength else { return try invalid(&out) }
            switch type {
            case 1, 2, 6:
                out.append(", ")
                try Self.appendNullPaddedText(cursor, at: offset, count: tlvLength, into: &out)
            case 3:
                out.append(", ")
                try Self.appendEscaped(cursor, at: offset, count: tlvLength, into: &out)
            case 4, 5:
                guard tlvLength == 1 else { return try invalid(&out) }
                let seconds = try cursor.u8(offset)
                out.append(", ")
                out.appendDecimal(seconds)
                out.append("s")
            case 7:
                guard tlvLength == 4 else { return try invalid(&out) }
                let sequence = try cursor.u32(offset)
                out.append(", ")
                out.appendDecimal(sequence)
            default:
                try cursor.check(offset, tlvLength)
            }
            offset += tlvLength
            left -= tlvLength
        }
    }
}
