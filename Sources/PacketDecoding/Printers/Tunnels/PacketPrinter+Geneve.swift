/// Geneve (tcpdump's `geneve_print`, UDP port 6081): flags, VNI and options (their total length,
/// or with `-v` each option's class, type and length, `-vv` adding its data), then the payload
/// its protocol type names: an ethertype's printer or, for 0x6558, an inner Ethernet frame.
extension PacketPrinter {
    private static let geneveFlagNames = NameTable([
        (0x80, "O"), (0x40, "C"), (0x20, "R1"), (0x10, "R2"), (0x08, "R3"), (0x04, "R4"), (0x02, "R5"), (0x01, "R6"),
    ])

    /// The Geneve header, options and payload in the UDP payload at `payload` (`length` bytes).
    mutating func printGeneve(_ cursor: inout ByteCursor, at payload: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "geneve"
        out.append("Geneve")
        guard length >= 8 else {
            out.append(" [length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            out.append(" < 8] (invalid)")
            return
        }
        guard cursor.has(payload, 8) else {
            out.append(" [|geneve]")
            return
        }
        let versionAndLength = try cursor.u8(payload)
        guard versionAndLength >> 6 == 0 else {
            out.append(" ERROR: unknown-version ")
            out.appendDecimal(versionAndLength >> 6)
            return
        }
        let flags = try cursor.u8(payload + 1)
        let type = try cursor.u16(payload + 2)
        let vni = UInt32(try cursor.u8(payload + 4)) << 16 | UInt32(try cursor.u16(payload + 5))
        let reserved = try cursor.u8(payload + 7)
        out.append(", Flags [")
        Self.geneveFlagNames.appendBits(UInt32(flags), separator: "", none: "none", into: &out)
        out.append("], vni 0x")
        out.appendHex(UInt64(vni))
        if reserved != 0 {
            out.append(", rsvd 0x")
            out.appendHex(UInt64(reserved))
        }
        if options.linkHeader {
            out.append(", proto ")
            Self.appendEthertypeName(type, unknown: "unknown", into: &out)
        }
        let optionsLength = Int(versionAndLength & 0x3F) * 4
        var left = length - 8
        guard left >= optionsLength else {
            out.append(" truncated-geneve - ")
            out.appendDecimal(optionsLength - left)
            out.append(" bytes missing")
            return
        }
        guard cursor.has(payload + 8, optionsLength) else {
            out.append(" [|geneve]")
            return
        }
        if optionsLength > 0 {
            out.append(", options [")
            if options.verbosity > 0 {
                try appendGeneveOptions(cursor, at: payload + 8, length: optionsLength, into: &out)
            } else {
                out.appendDecimal(optionsLength)
                out.append(" bytes")
            }
            out.append("]")
        }
        left -= optionsLength
        out.append(options.verbosity > 0 ? "\n\t" : ": ")
        let inner = payload + 8 + optionsLength
        if try !printEthertype(type, &cursor, at: inner, length: left, depth: ip.depth + 1, into: &out) {
            if type == 0x6558 {
                try printEthernet(&cursor, at: inner, length: left, depth: ip.depth + 1, into: &out)
            } else {
                out.append("geneve-proto-0x")
                out.appendHex(UInt64(type))
            }
        }
    }

    /// tcpdump's `geneve_opts_print`: `class NAME (0xC) type 0xT[(C)] len L`, `-vv` adding
    /// ` data XXXXXXXX…`; an option longer than what is left ends the list with ` [bad length]`.
    private func appendGeneveOptions(_ cursor: ByteCursor, at start: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var offset = start
        var left = length
        var first = true
        while left > 0 {
            if !first { out.append(", ") }
            first = false
            let optionClass = try cursor.u16(offset)
            let type = try cursor.u8(offset + 2)
            let optionLength = 4 + Int(try cursor.u8(offset + 3) & 0x1F) * 4
            out.append("class ")
            out.append(Self.geneveClassName(optionClass))
            out.append(" (0x")
            out.appendHex(UInt64(optionClass))
            out.append(") type 0x")
            out.appendHex(UInt64(type))
            if type & 0x80 != 0 { out.append("(C)") }
            out.append(" len ")
            out.appendDecimal(optionLength)
            if optionLength > left {
                out.append(" [bad length]")
                return
            }
            if options.verbosity > 1 && optionLength > 4 {
                out.append(" data")
                var index = 4
                while index < optionLength {
                    out.append(" ")
                    out.appendHex(UInt64(try cursor.u32(offset + index)), minimumDigits: 8)
                    index += 4
                }
            }
            offset += optionLength
            left -= optionLength
        }
    }

    /// tcpdump's `format_opt_class`.
    private static func geneveClassName(_ optionClass: UInt16) -> StaticString {
        switch optionClass {
        case 0x0100: "Linux"
        case 0x0101: "Open vSwitch"
        case 0x0102: "Open Virtual Networking (OVN)"
        case 0x0103: "In-band Network Telemetry (INT)"
        case 0x0104: "VMware"
        case 0x0000...0x00FF: "Standard"
        case 0xFFF0...0xFFFF: "Experimental"
        default: "Unknown"
        }
    }
}
