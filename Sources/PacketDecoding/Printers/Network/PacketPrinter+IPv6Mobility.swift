/// The IPv6 Mobility Header (RFC 6275; tcpdump's `mobility_print`), the last header `ip6_print`
/// decodes: `mobility: BU seq#=N AH lifetime=N`, and with `-v` the cookies, tokens and options.
extension PacketPrinter {
    /// Prints the header at `offset`; ` [|mobility]` when its length byte is not captured, its
    /// length is too small for its type or an option is cut.
    mutating func printMobilityHeader(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "mobility"
        guard cursor.has(offset + 1, 1) else {
            out.append(" [|mobility]")
            return
        }
        let length = (Int(try cursor.u8(offset + 1)) + 1) * 8
        let type = try cursor.u8(offset + 2)
        let minimum: Int
        switch type {
        case 0: minimum = 8
        case 1, 2: minimum = 16
        case 3, 4, 7: minimum = 24
        case 5, 6: minimum = 12
        default: minimum = 0
        }
        if length < minimum {
            out.append("(header length ")
            out.appendDecimal(length)
            out.append(" is too small for type ")
            out.appendDecimal(type)
            out.append(") [|mobility]")
            return
        }
        out.append("mobility: ")
        let verbose = options.verbosity > 0
        /// ` Home Init Cookie=XXXXXXXX:XXXXXXXX` (both words read before either is printed).
        func appendWords(_ prefix: StaticString, at field: Int, _ out: inout [UInt8]) throws(PacketDecodingError) {
            let first = try cursor.u32(field)
            let second = try cursor.u32(field + 4)
            out.append(prefix)
            out.appendHex(UInt64(first), minimumDigits: 8)
            out.append(":")
            out.appendHex(UInt64(second), minimumDigits: 8)
        }
        var headerEnd = 8
        switch type {
        case 0:
            out.append("BRR")
        case 1, 2:
            out.append(type == 1 ? "HoTI" : "CoTI")
            if verbose { try appendWords(type == 1 ? " Home Init Cookie=" : " Care-of Init Cookie=", at: offset + 8, &out) }
            headerEnd = 16
        case 3, 4:
            out.append(type == 3 ? "HoT" : "CoT")
            let nonce = try cursor.u16(offset + 6)
            out.append(" nonce id=0x")
            out.appendHex(UInt64(nonce))
            if verbose {
                try appendWords(type == 3 ? " Home Init Cookie=" : " Care-of Init Cookie=", at: offset + 8, &out)
                try appendWords(type == 3 ? " Home Keygen Token=" : " Care-of Keygen Token=", at: offset + 16, &out)
            }
            headerEnd = 24
        case 5:
            out.append("BU")
            let sequence = try cursor.u16(offset + 6)
            out.append(" seq#=")
            out.appendDecimal(sequence)
            guard cursor.has(offset + 8, 2) else {
                out.append(" [|mobility]")
                return
            }
            let bits = try cursor.u8(offset + 8) >> 4
            if bits != 0 {
                out.append(" ")
                if bits & 0x08 != 0 { out.append("A") }
                if bits & 0x04 != 0 { out.append("H") }
                if bits & 0x02 != 0 { out.append("L") }
                if bits & 0x01 != 0 { out.append("K") }
            }
            let lifetime = try cursor.u16(offset + 10)
            out.append(" lifetime=")
            out.appendDecimal(UInt32(lifetime) << 2)
            headerEnd = 12
        case 6:
            out.append("BA")
            let status = try cursor.u8(offset + 6)
            out.append(" status=")
            out.appendDecimal(status)
            if try cursor.u8(offset + 7) & 0x80 != 0 { out.append(" K") }
            let sequence = try cursor.u16(offset + 8)
            out.append(" seq#=")
            out.appendDecimal(sequence)
            let lifetime = try cursor.u16(offset + 10)
            out.append(" lifetime=")
            out.appendDecimal(UInt32(lifetime) << 2)
            headerEnd = 12
        case 7:
            out.append("BE")
            let status = try cursor.u8(offset + 6)
            out.append(" status=")
            out.appendDecimal(status)
            try appendIPv6Address(cursor, at: offset + 8, after: " homeaddr ", into: &out)
            headerEnd = 24
        default:
            out.append("type-#")
            out.appendDecimal(type)
            out.append(" len=")
            out.appendDecimal(length / 8 - 1)
            return
        }
        if verbose, try !appendMobilityOptions(cursor, at: offset + headerEnd, length: length - headerEnd, into: &out) {
            out.append(" [|mobility]")
        }
    }

    /// tcpdump's `mobility_opt_print`: `(pad1)`, `(padn)`, `(refresh: N)`, `(alt-CoA: A)`,
    /// `(ni: ho=0xN co=0xN)`, `(auth)`, `(type-0xNN: len=N)`; false when an option runs past
    /// the header, or the byte after it is not captured (tcpdump checks that one).
    private func appendMobilityOptions(_ cursor: ByteCursor, at start: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        var index = 0
        while index < length {
            let type = try cursor.u8(start + index)
            let left = length - index
            guard let optionLength = try Self.ipv6OptionLength(cursor, type: type, at: start + index, left: left),
                  cursor.has(start + index + optionLength, 1) else { return false }
            func fits(_ minimum: Int, _ name: StaticString, _ out: inout [UInt8]) -> Bool {
                Self.ipv6OptionFits(minimum, left: left, name, into: &out)
            }
            switch type {
            case 0:
                out.append("(pad1)")
            case 1:
                guard fits(2, "padn", &out) else { return false }
                out.append("(padn)")
            case 2:
                guard fits(4, "refresh", &out) else { return false }
                out.append("(refresh: ")
                out.appendDecimal(UInt32(try cursor.u16(start + index + 2)) << 2)
                out.append(")")
            case 3:
                guard fits(18, "altcoa", &out) else { return false }
                try cursor.check(start + index + 2, 16)
                out.append("(alt-CoA: ")
                try appendIPv6Address(cursor, at: start + index + 2, into: &out)
                out.append(")")
            case 4:
                guard fits(6, "ni", &out) else { return false }
                let home = try cursor.u16(start + index + 2)
                let careOf = try cursor.u16(start + index + 4)
                out.append("(ni: ho=0x")
                out.appendHex(UInt64(home), minimumDigits: 4)
                out.append(" co=0x")
                out.appendHex(UInt64(careOf), minimumDigits: 4)
                out.append(")")
            case 5:
                guard fits(12, "auth", &out) else { return false }
                out.append("(auth)")
            default:
                if left < 2 {
                    out.append("(sopt_type ")
                    out.appendDecimal(type)
                    out.append(": trunc)")
                    return false
                }
                out.append("(type-0x")
                out.appendHex(UInt64(type), minimumDigits: 2)
                out.append(": len=")
                out.appendDecimal(try cursor.u8(start + index + 1))
                out.append(")")
            }
            index += optionLength
        }
        return true
    }
}
