/// ICMPv6 node information (RFC 4620) and router renumbering (RFC 2894) messages, as
/// tcpdump prints them (`-v` adds length complaints, the success code and the renumbering
/// fields; `-vv` puts each renumbering prefix on its own line).
extension PacketPrinter {
    /// Node information query (RFC 4620; tcpdump's `icmp6_nodeinfo_print`): ` node information
    /// query (node addresses [GSLCA], subject=ADDRESS)`, or the KAME ` who-are-you request`.
    func appendNodeInformationQuery(_ cursor: ByteCursor, at icmp: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let captured = cursor.available(from: icmp)
        if captured == 12 {
            out.append(" who-are-you request")
            return
        }
        out.append(" node information query")
        guard cursor.has(icmp, 16) else {
            out.append(" [|icmp6]")
            return
        }
        out.append(" (")
        let queryType = try cursor.u16(icmp + 4)
        let flags = try cursor.u16(icmp + 6)
        switch queryType {
        case 0: out.append("noop")
        case 1: Self.appendSupportedQueryTypes(flags, into: &out)
        case 2: out.append("DNS name")
        case 3:
            out.append("node addresses")
            if flags != 0 { Self.appendNodeAddressFlags(flags, truncate: false, into: &out) }
        default: out.append("unknown")
        }
        let verbose = options.verbosity > 0
        if queryType == 0 || queryType == 1 {
            if captured != 16 && verbose { out.append(", invalid len") }
            out.append(")")
            return
        }
        if captured == 16 {
            out.append(", 03 draft)")
            return
        }
        let subject = icmp + 16
        switch try cursor.u8(icmp + 1) {
        case 0:
            if cursor.has(icmp, 32) {
                if captured != 32 {
                    if verbose { out.append(", invalid subject len") }
                } else {
                    out.append(", subject=")
                    try appendIPv6Address(cursor, at: subject, into: &out)
                }
            }
        case 1:
            out.append(", subject=DNS name")
            try Self.appendNodeInformationName(cursor, from: subject, verbose: verbose, into: &out)
        case 2:
            if cursor.has(icmp, 20) {
                if captured != 20 {
                    if verbose { out.append(", invalid subject len") }
                } else {
                    out.append(", subject=")
                    try appendIPv4Address(cursor, at: subject, into: &out)
                }
            }
        default:
            out.append(", unknown subject")
        }
        out.append(")")
    }

    /// Node information reply: ` node information reply (refused)`, `(node addresses A(ttl) …)`.
    func appendNodeInformationReply(_ cursor: ByteCursor, at icmp: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let captured = cursor.available(from: icmp)
        guard length <= captured, cursor.has(icmp, 16) else {
            out.append(" [|icmp6]")
            return
        }
        out.append(" node information reply (")
        let code = try cursor.u8(icmp + 1)
        let verbose = options.verbosity > 0
        var needsComma = false
        switch code {
        case 0:
            if verbose {
                out.append("success")
                needsComma = true
            }
        case 1:
            out.append("refused")
            needsComma = true
            if captured != 16 && verbose { out.append(", invalid length") }
        case 2:
            out.append("unknown")
            needsComma = true
            if captured != 16 && verbose { out.append(", invalid length") }
        default:
            break
        }
        guard code == 0 else {
            out.append(")")
            return
        }
        if needsComma { out.append(", ") }
        let flags = try cursor.u16(icmp + 6)
        switch try cursor.u16(icmp + 4) {
        case 0:
            out.append("noop")
            if captured != 16 && verbose { out.append(", invalid length") }
        case 1:
            Self.appendSupportedQueryTypes(flags, into: &out)
        case 2:
            out.append("DNS name")
            try Self.appendNodeInformationName(cursor, from: icmp + 20, verbose: verbose, into: &out)
            if flags & 0x01 != 0 {
                out.append(" [TTL=")
                out.appendDecimal(try cursor.u32(icmp + 16))
                out.append("]")
            }
        case 3:
            out.append("node addresses")
            var offset = 16
            while offset + 20 <= captured {
                var address: [UInt8] = []
                try appendIPv6Address(cursor, at: icmp + offset + 4, into: &address)
                let ttl = try cursor.u32(icmp + offset)
                out.append(" ")
                out.append(contentsOf: address)
                out.append("(")
                out.appendDecimal(ttl)
                out.append(")")
                offset += 20
            }
            if flags != 0 { Self.appendNodeAddressFlags(flags, truncate: true, into: &out) }
        default:
            out.append("unknown")
        }
        out.append(")")
    }

    private static func appendSupportedQueryTypes(_ flags: UInt16, into out: inout [UInt8]) {
        out.append("supported qtypes")
        if flags != 0 { out.append(flags & 0x01 != 0 ? " [C]" : " []") }
    }

    /// ` [aGSLCA]` (and `T` in replies): the node-address flags that are set.
    private static func appendNodeAddressFlags(_ flags: UInt16, truncate: Bool, into out: inout [UInt8]) {
        out.append(" [")
        let letters: [(UInt16, UInt8)] = [(0x40, 0x61), (0x20, 0x47), (0x10, 0x53), (0x08, 0x4C), (0x04, 0x43), (0x02, 0x41)]
        for (bit, letter) in letters where flags & bit != 0 { out.append(letter) }
        if truncate && flags & 0x01 != 0 { out.append(UInt8(ascii: "T")) }
        out.append("]")
    }

    /// A node-information name: an old-draft Pascal string when its length byte covers the rest
    /// of the capture, otherwise DNS labels (tcpdump's `dnsname_print`, no compression).
    private static func appendNodeInformationName(_ cursor: ByteCursor, from start: Int, verbose: Bool, into out: inout [UInt8]) throws(PacketDecodingError) {
        let end = cursor.end
        if Int(try cursor.u8(start)) == end - start - 1 {
            if verbose { out.append(", 03 draft") }
            out.append(", \"")
            try Self.appendEscaped(cursor, at: start + 1, count: end - start - 1, into: &out)
            out.append("\"")
            return
        }
        out.append(", \"")
        var offset = start
        while offset < end {
            let labelLength = Int(try cursor.u8(offset))
            offset += 1
            if labelLength == 0 {
                if offset == end {
                    out.append(".")
                } else {
                    // A lone zero byte left at the end means the name was cut; anything else is invalid.
                    let cut = offset + 1 == end ? try cursor.u8(offset) == 0 : false
                    if !cut { out.append("???") }
                }
                break
            }
            if labelLength > end - offset {
                out.append("???")
                break
            }
            var left = labelLength
            while left > 0 && offset < end {
                out.appendEscapedCharacter(try cursor.u8(offset))
                offset += 1
                left -= 1
            }
            if offset + 1 < end, try cursor.u8(offset) != 0 { out.append(".") }
        }
        out.append("\"")
    }

    /// Router renumbering (tcpdump's `icmp6_rrenum_print` without `-v`): `, command, seq=N
    /// match(add,PREFIX/LEN) use(PREFIX/USE/KEEP)`.
    func appendRouterRenumbering(_ cursor: ByteCursor, at icmp: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard cursor.has(icmp + 12, 4) else {
            out.append(" [|icmp6]")
            return
        }
        let code = try cursor.u8(icmp + 1)
        switch code {
        case 0: out.append(", command")
        case 1: out.append(", result")
        case 255: out.append(", sequence number reset")
        default:
            out.append(", code-#")
            out.appendDecimal(code)
        }
        out.append(", seq=")
        out.appendDecimal(try cursor.u32(icmp + 4))
        let verbosity = options.verbosity
        if verbosity > 0 {
            let flags = try cursor.u8(icmp + 9)
            out.append("[")
            if flags != 0 {
                if flags & 0x80 != 0 { out.append("T") }
                if flags & 0x40 != 0 { out.append("R") }
                if flags & 0x20 != 0 { out.append("A") }
                if flags & 0x10 != 0 { out.append("S") }
                if flags & 0x08 != 0 { out.append("P") }
                out.append(",")
            }
            out.append("seg=")
            out.appendDecimal(try cursor.u8(icmp + 8))
            out.append(",maxdelay=")
            out.appendDecimal(try cursor.u16(icmp + 10))
            let reserved = try cursor.u32(icmp + 12)
            if reserved != 0 {
                out.append("rsvd=0x")
                out.appendHex(UInt64(reserved))
            }
            out.append("]")
        }
        guard code == 0 else { return }
        let match = icmp + 16
        guard cursor.has(match + 8, 16) else {
            out.append(" [|icmp6]")
            return
        }
        out.append(verbosity > 1 ? "\n\tmatch(" : " match(")
        let matchCode = try cursor.u8(match)
        switch matchCode {
        case 1: out.append("add")
        case 2: out.append("change")
        case 3: out.append("setglobal")
        default:
            out.append("#")
            out.appendDecimal(matchCode)
        }
        if verbosity > 0 {
            out.append(",ord=")
            out.appendDecimal(try cursor.u8(match + 2))
            out.append(",min=")
            out.appendDecimal(try cursor.u8(match + 4))
            out.append(",max=")
            out.appendDecimal(try cursor.u8(match + 5))
        }
        out.append(",")
        try appendIPv6Address(cursor, at: match + 8, into: &out)
        out.append("/")
        out.appendDecimal(try cursor.u8(match + 3))
        out.append(")")
        var count = Int(try cursor.u8(match + 1)) - 3
        guard count % 4 == 0 else {
            out.append(" [|icmp6]")
            return
        }
        count /= 4
        var use = match + 24
        while count > 0 {
            count -= 1
            guard cursor.has(use + 16, 16) else {
                out.append(" [|icmp6]")
                return
            }
            out.append(verbosity > 1 ? "\n\tuse(" : " use(")
            let useFlags = try cursor.u8(use + 12)
            if useFlags != 0 {
                if useFlags & 0x80 != 0 { out.append("V") }
                if useFlags & 0x40 != 0 { out.append("P") }
                out.append(",")
            }
            if verbosity > 0 {
                out.append("mask=0x")
                out.appendHex(UInt64(try cursor.u8(use + 2)))
                out.append(",raflags=0x")
                out.appendHex(UInt64(try cursor.u8(use + 3)))
                out.append(",")
                for (field, name) in [(4, "vltime=" as StaticString), (8, "pltime=")] {
                    let value = try cursor.u32(use + field)
                    out.append(name)
                    if value == 0xFFFF_FFFF {
                        out.append("infty,")
                    } else {
                        out.appendDecimal(value)
                        out.append(",")
                    }
                }
            }
            try appendIPv6Address(cursor, at: use + 16, into: &out)
            out.append("/")
            out.appendDecimal(try cursor.u8(use))
            out.append("/")
            out.appendDecimal(try cursor.u8(use + 1))
            out.append(")")
            use += 32
        }
    }
}
