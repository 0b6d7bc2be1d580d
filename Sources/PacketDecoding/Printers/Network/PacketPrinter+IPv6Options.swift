/// The IPv6 extension headers tcpdump's `ip6_print` walks: Hop-by-Hop and Destination Options
/// (print-ip6opts.c, their options printed with `-v`), Fragment (print-frag6.c) and Routing
/// (print-rt6.c).
extension PacketPrinter {
    /// Hop-by-Hop Options (tcpdump's `hbhopt_process`): `HBH `, then the options (printed with
    /// `-v`) and a Jumbo Payload option noted in `walk`; the header length, or nil after
    /// ` [|hbhopt]`.
    mutating func printHopByHopOptions(
        _ cursor: ByteCursor, at offset: Int, walk: inout IPv6Walk, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Int? {
        protocolName = "hbhopt"
        let length = (Int(try cursor.u8(offset + 1)) + 1) * 8
        guard cursor.has(offset, length) else {
            out.append(" [|hbhopt]")
            return nil
        }
        out.append("HBH ")
        guard try processIPv6Options(cursor, from: offset + 2, count: length - 2, walk: &walk, hopByHop: true, into: &out) else {
            out.append(" [|hbhopt]")
            return nil
        }
        return length
    }

    /// tcpdump's `ip6_opt_process`: walks the TLV options of a Hop-by-Hop or Destination
    /// Options header. Without `-v` only what is wrong is printed
    /// (`(rtalert: invalid len 3)`); with it every option (`(pad1)`, `(padn)`,
    /// `(rtalert: 0x0000) `, `(jumbo: N) `, `(homeaddr: ADDRESS…)`, `(opt_type 0xNN: len=N)`) and a
    /// space after the list. A Jumbo Payload option is noted in `walk`. False when the list is
    /// malformed.
    private func processIPv6Options(
        _ cursor: ByteCursor, from start: Int, count: Int, walk: inout IPv6Walk, hopByHop: Bool, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Bool {
        let verbose = options.verbosity > 0
        var index = 0
        var sawJumbo = false
        if count == 0 { return true }
        while index < count {
            let type = try cursor.u8(start + index)
            let left = count - index
            guard let optionLength = try Self.ipv6OptionLength(cursor, type: type, at: start + index, left: left) else { return false }
            let lengthByte = type == 0 ? 0 : try cursor.u8(start + index + 1)
            func invalid(_ name: StaticString, _ out: inout [UInt8]) -> Bool {
                out.append("(")
                out.append(name)
                out.append(": invalid len ")
                out.appendDecimal(lengthByte)
                out.append(")")
                return false
            }
            switch type {
            case 0x00:
                if verbose { out.append("(pad1)") }
            case 0x01:
                guard Self.ipv6OptionFits(2, left: left, "padn", into: &out) else { return false }
                if verbose { out.append("(padn)") }
            case 0x05:
                guard Self.ipv6OptionFits(4, left: left, "rtalert", into: &out) else { return false }
                if lengthByte != 2 { return invalid("rtalert", &out) }
                if verbose {
                    out.append("(rtalert: 0x")
                    out.appendHex(UInt64(try cursor.u16(start + index + 2)), minimumDigits: 4)
                    out.append(") ")
                }
            case 0xC2:
                guard Self.ipv6OptionFits(6, left: left, "jumbo", into: &out) else { return false }
                if lengthByte != 4 { return invalid("jumbo", &out) }
                let jumboLength = try cursor.u32(start + index + 2)
                let verdict: StaticString
                if sawJumbo {
                    verdict = " - already seen"
                } else {
                    sawJumbo = true
                    if !hopByHop {
                        verdict = " - not a hop-by-hop option"
                    } else if walk.payloadLength != 0 {
                        verdict = " - payload len != 0"
                    } else if jumboLength < 65536 {
                        verdict = " - < 65536"
                    } else {
                        walk.foundJumbo = true
                        walk.payloadLength = jumboLength
                        verdict = ""
                    }
                }
                if verbose {
                    out.append("(jumbo: ")
                    out.appendDecimal(jumboLength)
                    out.append(verdict)
                    out.append(") ")
                }
            case 0xC9:
                guard Self.ipv6OptionFits(18, left: left, "homeaddr", into: &out) else { return false }
                if lengthByte < 16 { return invalid("homeaddr", &out) }
                if verbose {
                    out.append("(homeaddr: ")
                    try appendIPv6Address(cursor, at: start + index + 2, into: &out)
                    if lengthByte > 16 {
                        guard try Self.appendIPv6SubOptions(cursor, from: start + index + 18, count: optionLength - 18, into: &out) else {
                            return false
                        }
                    }
                    out.append(")")
                }
            default:
                if left < 2 {
                    out.append("(type ")
                    out.appendDecimal(type)
                    out.append(": trunc)")
                    return false
                }
                if verbose {
                    out.append("(opt_type 0x")
                    out.appendHex(UInt64(type), minimumDigits: 2)
                    out.append(": len=")
                    out.appendDecimal(lengthByte)
                    out.append(")")
                }
            }
            index += optionLength
        }
        if verbose { out.append(" ") }
        return true
    }

    /// tcpdump's `ip6_sopt_print`: the sub-options of a Home Address option (`, pad1`, `, padn`,
    /// `, sopt_type 0xNN: len=N`); false when they are malformed.
    private static func appendIPv6SubOptions(_ cursor: ByteCursor, from start: Int, count: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        var index = 0
        while index < count {
            let type = try cursor.u8(start + index)
            guard let optionLength = try ipv6OptionLength(cursor, type: type, at: start + index, left: count - index) else { return false }
            switch type {
            case 0:
                out.append(", pad1")
            case 1:
                if count - index < 2 {
                    out.append(", padn: trunc")
                    return false
                }
                out.append(", padn")
            default:
                if count - index < 2 {
                    out.append(", sopt_type ")
                    out.appendDecimal(type)
                    out.append(": trunc)")
                    return false
                }
                out.append(", sopt_type 0x")
                out.appendHex(UInt64(type), minimumDigits: 2)
                out.append(": len=")
                out.appendDecimal(try cursor.u8(start + index + 1))
            }
            index += optionLength
        }
        return true
    }

    /// The length of the option whose type byte (`type`) is at `option` in a type-length-value
    /// list with `left` bytes from there on — IPv6 Hop-by-Hop and Destination options, their
    /// sub-options and Mobility options: 1 for Pad1 (type 0), else its length byte plus 2; nil
    /// when its length byte or its value lies past the list (the `goto trunc` of tcpdump's
    /// `ip6_opt_process`, `ip6_sopt_print` and `mobility_opt_print`).
    static func ipv6OptionLength(_ cursor: ByteCursor, type: UInt8, at option: Int, left: Int) throws(PacketDecodingError) -> Int? {
        let length: Int
        if type == 0 {
            length = 1
        } else {
            guard left > 1 else { return nil }
            length = Int(try cursor.u8(option + 1)) + 2
        }
        return length <= left ? length : nil
    }

    /// True when the `left` bytes from an option on hold its `minimum`; otherwise prints
    /// tcpdump's `(NAME: trunc)` (Hop-by-Hop, Destination and Mobility options).
    static func ipv6OptionFits(_ minimum: Int, left: Int, _ name: StaticString, into out: inout [UInt8]) -> Bool {
        guard left < minimum else { return true }
        out.append("(")
        out.append(name)
        out.append(": trunc)")
        return false
    }

    /// Destination Options (tcpdump's `dstopt_process`): `DSTOPT `; the options themselves are
    /// only looked at (and printed) with `-v`. The header length, or nil after ` [|dstopt]`.
    mutating func printDestinationOptions(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        protocolName = "dstopt"
        let length = (Int(try cursor.u8(offset + 1)) + 1) * 8
        guard cursor.has(offset, length) else {
            out.append(" [|dstopt]")
            return nil
        }
        out.append("DSTOPT ")
        if options.verbosity > 0 {
            var unused = IPv6Walk(payloadLength: 0)
            guard try processIPv6Options(cursor, from: offset + 2, count: length - 2, walk: &unused, hopByHop: false, into: &out) else {
                out.append(" [|dstopt]")
                return nil
            }
        }
        return length
    }

    /// tcpdump's `frag6_print`: `frag (OFFSET|LENGTH) ` (`-v`: `frag (0xIDENT:OFFSET|LENGTH) `),
    /// the length being what the payload length field leaves after this header (computed in 64
    /// bits, so it wraps as tcpdump's does). 8, or nil for a non-first fragment, which is not
    /// decoded further.
    mutating func printFragmentHeader(_ cursor: ByteCursor, at offset: Int, ip: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        protocolName = "frag6"
        let identification: UInt32? = options.verbosity > 0 ? try cursor.u32(offset + 4) : nil
        let fragmentOffset = try cursor.u16(offset + 2) & 0xFFF8
        let payloadLength = try cursor.u16(ip + 4)
        let fragmentPayload = UInt64(40 + Int(payloadLength)) &- UInt64(offset - ip) &- 8
        out.append("frag (")
        if let identification {
            out.append("0x")
            out.appendHex(UInt64(identification), minimumDigits: 8)
            out.append(":")
        }
        out.appendDecimal(fragmentOffset)
        out.append("|")
        out.appendDecimal(fragmentPayload)
        out.append(")")
        if fragmentOffset != 0 { return nil }
        out.append(" ")
        return 8
    }

    /// tcpdump's `rt6_print`: `RT6 (len=2, type=0 [Deprecated], segleft=1, [0]ADDRESS) `.
    /// Every field is read before its text is printed, as tcpdump's `ND_PRINT` arguments are.
    /// The header length, or nil when the packet ends there.
    mutating func printRoutingHeader(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        protocolName = "rt6"
        out.append("RT6")
        let length = Int(try cursor.u8(offset + 1))
        out.append(" (len=")
        out.appendDecimal(length)
        let type = try cursor.u8(offset + 2)
        out.append(", type=")
        out.appendDecimal(type)
        if type == 0 { out.append(" [Deprecated]") }
        let segmentsLeft = try cursor.u8(offset + 3)
        out.append(", segleft=")
        out.appendDecimal(segmentsLeft)
        /// `, [N]ADDRESS` for the `length / 2` addresses at the header's offset 8; false after
        /// ` (invalid length N) (invalid)` when the length is odd.
        func appendAddresses(_ printer: PacketPrinter, _ out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
            if length % 2 == 1 {
                out.append(" (invalid length ")
                out.appendDecimal(length)
                out.append(") (invalid)")
                return false
            }
            for index in 0..<(length / 2) {
                let address = offset + 8 + index * 16
                try cursor.check(address, 16)
                out.append(", [")
                out.appendDecimal(index)
                out.append("]")
                try printer.appendIPv6Address(cursor, at: address, into: &out)
            }
            return true
        }
        switch type {
        case 0, 2:
            let reserved = try cursor.u32(offset + 4)
            if reserved != 0 || options.verbosity > 0 {
                out.append(", rsv=0x")
                out.appendHex(UInt64(reserved))
            }
            guard try appendAddresses(self, &out) else { return nil }
        case 4:
            let lastEntry = Int(try cursor.u8(offset + 4))
            out.append(", last-entry=")
            out.appendDecimal(lastEntry)
            let flags = try cursor.u8(offset + 5)
            if flags != 0 || options.verbosity > 0 {
                out.append(", flags=0x")
                out.appendHex(UInt64(flags))
            }
            let tag = try cursor.u16(offset + 6)
            out.append(", tag=")
            out.appendHex(UInt64(tag))
            guard try appendAddresses(self, &out) else { return nil }
        default:
            out.append(" (unknown type) (invalid)")
            return nil
        }
        out.append(") ")
        return (length + 1) * 8
    }
}
