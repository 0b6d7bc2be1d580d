/// Domain names inside DHCPv6 options: the search list and SIP domains, the NTP server's
/// FQDN sub-option and the AFTR name, printed as tcpdump 4.99.3 prints them.
extension PacketPrinter {
    /// tcpdump's `fqdn_print` as `print-dhcp6.c` calls it: the name at `start`, labels joined
    /// and ended by `.`, with compression pointers taken relative to `base` — which tcpdump
    /// passes as the *end* of the option, so a pointer lands past the option (any 14-bit
    /// offset passes the first time; each later one must point lower than the one before,
    /// which bounds the jumps). Prints `<BAD PTR>`, `<BAD LABEL TYPE>`, `<ELT N>` and
    /// `<DOMAIN NAME TOO LONG>` (beyond 255 characters) as tcpdump does.
    ///
    /// Returns the offset after the name as stored at `start` (after the first pointer if
    /// there is one), or nil where tcpdump returns NULL: a malformed name or one cut by the
    /// capture, which ends the option list with ` [|dhcp6]`.
    func appendDHCPv6DomainName(_ cursor: ByteCursor, at start: Int, base: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        guard var labelLength = try dhcp6LabelLength(cursor, at: start, into: &out) else { return nil }
        guard cursor.has(start, 1) else { return nil }
        var maximumOffset = UInt32(truncatingIfNeeded: start &- base)
        var byte = Int(try cursor.u8(start))
        var offset = start + 1
        var resume: Int? = nil
        var compressed = false
        if byte & 0xC0 != 0xC0 { resume = offset + labelLength }
        guard byte != 0 else {
            out.append(".")
            return resume
        }
        var characters = 0
        while byte != 0 && offset < cursor.end {
            switch byte & 0xC0 {
            case 0xC0:
                if !compressed {
                    resume = offset + 1
                    compressed = true
                }
                guard cursor.has(offset, 1) else { return nil }
                let target = UInt32((byte << 8 | Int(try cursor.u8(offset))) & 0x3FFF)
                if target >= maximumOffset {
                    out.append("<BAD PTR>")
                    return nil
                }
                maximumOffset = target
                offset = base + Int(target)
                guard cursor.has(offset, 1) else { return nil }
                byte = Int(try cursor.u8(offset))
                guard let length = try dhcp6LabelLength(cursor, at: offset, into: &out) else { return nil }
                labelLength = length
                offset += 1
                continue
            case 0x40:
                let kind = byte & 0x3F
                guard kind == 1 else {
                    out.append("<ELT ")
                    out.appendDecimal(kind)
                    out.append(">")
                    return nil
                }
                guard try appendDHCPv6BitLabel(cursor, at: offset, into: &out) else { return nil }
            case 0x80:
                out.append("<BAD LABEL TYPE>")
                return nil
            default:
                let shown = characters + labelLength <= 255 ? labelLength : max(255 - characters, 0)
                if shown > 0 || characters + labelLength <= 255 {
                    guard try appendDHCPv6Label(cursor, at: offset, count: shown, into: &out) else { return nil }
                }
                characters += labelLength
            }
            offset += labelLength
            if characters <= 255 { out.append(".") }
            characters += 1
            guard cursor.has(offset, 1) else { return nil }
            byte = Int(try cursor.u8(offset))
            guard let length = try dhcp6LabelLength(cursor, at: offset, into: &out) else { return nil }
            labelLength = length
            offset += 1
            if !compressed, let current = resume { resume = current + labelLength + 1 }
        }
        if characters > 255 { out.append("<DOMAIN NAME TOO LONG>") }
        return resume
    }

    /// tcpdump's `labellen`: the length of the label whose first byte is at `offset` (for an
    /// EDNS0 bit label, its bytes plus one); nil, having printed why where tcpdump does, for
    /// an unknown extended label type, a reserved type, or a byte beyond the capture.
    private func dhcp6LabelLength(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        guard cursor.has(offset, 1) else { return nil }
        let byte = Int(try cursor.u8(offset))
        switch byte & 0xC0 {
        case 0x40:
            let kind = byte & 0x3F
            guard kind == 1 else {
                out.append("<ELT ")
                out.appendDecimal(kind)
                out.append(">")
                return nil
            }
            guard cursor.has(offset + 1, 1) else { return nil }
            var bits = Int(try cursor.u8(offset + 1))
            if bits == 0 { bits = 256 }
            return (bits + 7) / 8 + 1
        case 0x80:
            out.append("<BAD LABEL TYPE>")
            return nil
        default:
            return byte
        }
    }

    /// tcpdump's `blabel_print`: an EDNS0 bit label (its bit count at `offset`) as
    /// `\[xHEX/BITS]`; false when the count byte is not captured.
    private func appendDHCPv6BitLabel(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard cursor.has(offset, 1) else { return false }
        var bits = Int(try cursor.u8(offset))
        if bits == 0 { bits = 256 }
        let limit = offset + 1 + (bits + 3) / 4
        out.append("\\[x")
        var position = offset + 1
        var left = bits
        while position < limit && left > 7 {
            out.appendHex(UInt64(try cursor.u8(position)), minimumDigits: 2)
            left -= 8
            position += 1
        }
        if left > 4 {
            let byte = Int(try cursor.u8(position))
            out.appendHex(UInt64(byte & (0xFF << (8 - left)) & 0xFF), minimumDigits: 2)
        } else if left > 0 {
            let byte = Int(try cursor.u8(position))
            out.appendHex(UInt64((byte >> 4) & 0x0F & (0x0F << (4 - left))))
        }
        out.append("/")
        out.appendDecimal(bits)
        out.append("]")
        return true
    }

    /// tcpdump's `nd_printn` up to the capture's end: `count` escaped characters; false when
    /// the capture ended first (the characters before it are printed).
    private func appendDHCPv6Label(_ cursor: ByteCursor, at offset: Int, count: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        var index = 0
        while index < count {
            guard offset + index < cursor.end else { return false }
            out.appendEscapedCharacter(try cursor.u8(offset + index))
            index += 1
        }
        return true
    }

    /// The NTP server option (RFC 5908): ` subopt:N` and the server or multicast address or
    /// the server's FQDN for each sub-option, ` ?` for others; a sub-option running past the
    /// option truncates the list. Closes with `)`.
    func appendDHCPv6NTPServer(
        _ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> DHCPv6OptionOutcome {
        let end = value + length
        var offset = value
        while offset < end - 4 {
            let code = try cursor.u16(offset)
            let size = Int(try cursor.u16(offset + 2))
            offset += 4
            if offset + size > end { return .truncated }
            out.append(" subopt:")
            out.appendDecimal(code)
            switch code {
            case 1, 2:
                if size == 16 {
                    out.append(" ")
                    try appendIPv6Address(cursor, at: offset, into: &out)
                } else {
                    out.append(" ?")
                }
            case 3:
                out.append(" ")
                guard try appendDHCPv6DomainName(cursor, at: offset, base: offset + size, into: &out) != nil else {
                    return .truncated
                }
            default:
                out.append(" ?")
            }
            offset += size
        }
        out.append(")")
        return .printed
    }

    /// The AFTR name (RFC 6334): its labels joined by `.`, ` ?` where a label runs past the
    /// option; reads the byte after each label (maybe past the option) as tcpdump does.
    /// Closes with `)`.
    func appendDHCPv6AFTRName(_ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var offset = value
        var left = length
        out.append(" ")
        while left > 0, try cursor.u8(offset) != 0 {
            let label = Int(try cursor.u8(offset))
            offset += 1
            guard label < left - 1 else {
                out.append(" ?")
                break
            }
            try appendDHCPv6PaddedText(cursor, at: offset, count: label, into: &out)
            offset += label
            left -= label + 1
            if try cursor.u8(offset) != 0 { out.append(".") }
        }
        out.append(")")
    }
}
