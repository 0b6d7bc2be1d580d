/// The DHCP options tcpdump 4.99.3 decodes with their own code (the `$` entries of its option
/// table): NetBIOS node type, option overload, client FQDN, client identifier, relay agent
/// information, classless static routes and user class.
extension PacketPrinter {
    /// The value of special option `tag` (`length` bytes at `value`, all captured), as
    /// `rfc1048_print` prints it; returns the bytes left over for `trailing data length N`.
    /// A malformed value prints tcpdump's `[ERROR: …]` text and consumes the rest.
    func appendSpecialBOOTPOption(
        _ tag: UInt8, _ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Int {
        switch tag {
        case 46, 52:
            guard length >= 1 else {
                out.append("[ERROR: length < 1 bytes]")
                return 0
            }
            let code = try cursor.u8(value)
            let name: StaticString? = tag == 46
                ? (code == 1 ? "b-node" : code == 2 ? "p-node" : code == 4 ? "m-node" : code == 8 ? "h-node" : nil)
                : (code == 1 ? "file" : code == 2 ? "sname" : code == 3 ? "file+sname" : nil)
            if let name {
                out.append(name)
            } else {
                out.append("#")
                out.appendDecimal(code)
            }
            return length - 1
        case 81:
            try appendClientFQDN(cursor, at: value, length: length, into: &out)
            return 0
        case 61:
            try appendClientIdentifier(cursor, at: value, length: length, into: &out)
            return 0
        case 82:
            return try appendAgentInformation(cursor, at: value, length: length, into: &out)
        case 121, 249:
            try appendClasslessStaticRoutes(cursor, at: value, length: length, into: &out)
            return 0
        case 77:
            try appendUserClass(cursor, at: value, length: length, into: &out)
            return 0
        default:
            out.append("[unknown special tag ")
            out.appendDecimal(tag)
            out.append(", size ")
            out.appendDecimal(length)
            out.append("]")
            return 0
        }
    }

    /// Option 81 (RFC 4702): `[SOEN] RCODE1/RCODE2 "name"`, the flags and result codes only
    /// when set, and an error for bits in the flags' must-be-zero nibble.
    private func appendClientFQDN(_ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard length >= 3 else {
            out.append("[ERROR: length < 3 bytes]")
            return
        }
        let flags = try cursor.u8(value)
        if flags & 0xF0 != 0 {
            out.append("[ERROR: MBZ nibble 0x")
            out.appendHex(UInt64(flags >> 4))
            out.append(" != 0] ")
        }
        if flags & 0x0F != 0 {
            out.append("[")
            if flags & 1 != 0 { out.append("S") }
            if flags & 2 != 0 { out.append("O") }
            if flags & 4 != 0 { out.append("E") }
            if flags & 8 != 0 { out.append("N") }
            out.append("] ")
        }
        let first = try cursor.u8(value + 1)
        let second = try cursor.u8(value + 2)
        if first != 0 || second != 0 {
            out.appendDecimal(first)
            out.append("/")
            out.appendDecimal(second)
            out.append(" ")
        }
        try appendBOOTPCharacters(cursor, at: value + 3, count: length - 3, into: &out)
    }

    /// Option 61: type 0 as quoted text, otherwise the hardware type's name (`ether`,
    /// `ieee802` … or `hardware-type N,`) and the bytes in colon-separated hex.
    private func appendClientIdentifier(_ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard length >= 1 else {
            out.append("[ERROR: length < 1 bytes]")
            return
        }
        let type = try cursor.u8(value)
        if type == 0 {
            try appendBOOTPCharacters(cursor, at: value + 1, count: length - 1, into: &out)
            return
        }
        switch type {
        case 0x01: out.append("ether")
        case 0x06: out.append("ieee802")
        case 0x07: out.append("arcnet")
        case 0x0F: out.append("frelay")
        case 0x17: out.append("strip")
        case 0x18: out.append("ieee1394")
        default:
            out.append("hardware-type ")
            out.appendDecimal(type)
            out.append(",")
        }
        out.append(" ")
        try Self.appendLinkAddress(cursor, at: value + 1, count: length - 1, into: &out)
    }

    /// Option 82 (RFC 3046): one line per sub-option, circuit, remote and subscriber IDs as
    /// text, others as hex lines; a sub-option longer than the option ends the list. Returns
    /// the byte a lone trailing sub-option header byte leaves over.
    private func appendAgentInformation(_ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int {
        var offset = value
        var left = length
        while left >= 2 {
            let code = try cursor.u8(offset)
            let size = Int(try cursor.u8(offset + 1))
            offset += 2
            left -= 2
            out.append("\n\t      ")
            switch code {
            case 1: out.append("Circuit-ID")
            case 2: out.append("Remote-ID")
            case 6: out.append("Subscriber-ID")
            default: out.append("Unknown")
            }
            out.append(" SubOption ")
            out.appendDecimal(code)
            out.append(", length ")
            out.appendDecimal(size)
            if size > left {
                out.append(": length goes past end of option")
                return 0
            }
            out.append(": ")
            switch code {
            case 1, 2, 6: try Self.appendEscaped(cursor, at: offset, count: size, into: &out)
            default: Self.appendUnknownData(cursor, at: offset, length: size, indent: "\n\t\t", into: &out)
            }
            offset += size
            left -= size
        }
        return left
    }

    /// Options 121 and 249 (RFC 3442): `(PREFIX/WIDTH:ROUTER)` per route, `(default:ROUTER)`
    /// for width 0, comma-separated; a bad width or a short route ends the list with an error.
    private func appendClasslessStaticRoutes(_ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard length >= 5 else {
            out.append("[ERROR: length < 5 bytes]")
            return
        }
        var offset = value
        var left = length
        while left > 0 {
            if offset > value { out.append(",") }
            let width = Int(try cursor.u8(offset))
            offset += 1
            left -= 1
            if width > 32 {
                out.append("[ERROR: Mask width (")
                out.appendDecimal(width)
                out.append(") > 32]")
                return
            }
            let significant = (width + 7) / 8
            if left < significant + 4 {
                out.append("[ERROR: Remaining length (")
                out.appendDecimal(left)
                out.append(") < ")
                out.appendDecimal(significant + 4)
                out.append(" bytes]")
                return
            }
            out.append("(")
            if width == 0 {
                out.append("default")
            } else {
                for index in 0..<significant {
                    if index > 0 { out.append(".") }
                    out.appendDecimal(try cursor.u8(offset))
                    offset += 1
                }
                for _ in significant..<4 { out.append(".0") }
                out.append("/")
                out.appendDecimal(width)
            }
            out.append(":")
            try appendIPv4Address(cursor, at: offset, into: &out)
            out.append(")")
            offset += 4
            left -= significant + 4
        }
    }

    /// Option 77 (RFC 3004): `instance#N: "text", length L` per instance; an empty or
    /// overlong instance ends the list with an error.
    private func appendUserClass(_ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard length >= 2 else {
            out.append("[ERROR: length < 2 bytes]")
            return
        }
        var offset = value
        var left = length
        var instance = 1
        while left > 0 {
            let size = Int(try cursor.u8(offset))
            offset += 1
            left -= 1
            out.append("\n\t      instance#")
            out.appendDecimal(instance)
            out.append(": ")
            if size == 0 {
                out.append("[ERROR: suboption length must be non-zero]")
                return
            }
            if left < size {
                out.append("[ERROR: invalid option]")
                return
            }
            try appendBOOTPCharacters(cursor, at: offset, count: size, into: &out)
            out.append(", length ")
            out.appendDecimal(size)
            instance += 1
            offset += size
            left -= size
        }
    }
}
