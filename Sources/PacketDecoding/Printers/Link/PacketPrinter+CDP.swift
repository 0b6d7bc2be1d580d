/// Cisco Discovery Protocol (tcpdump's `cdp_print`, SNAP OUI 0x00000c PID 0x2000): version,
/// TTL and device ID, every other TLV in hex; `-v` names and decodes each TLV (addresses,
/// capabilities, version string, prefixes, VLAN, duplex, power, MTU …). Lengths that do not fit
/// end the text with ` (invalid)`; reads past the capture with ` [|cdp]`.
extension PacketPrinter {
    /// One TLV type: its name, whether tcpdump decodes its value, and the value lengths it
    /// accepts (0: no limit).
    private struct CDPField {
        let name: StaticString?
        let decoded: Bool
        let minimum: Int
        let maximum: Int
    }

    private static let cdpFields: [CDPField] = [
        CDPField(name: nil, decoded: false, minimum: 0, maximum: 0),
        CDPField(name: "Device-ID", decoded: true, minimum: 0, maximum: 0),
        CDPField(name: "Address", decoded: true, minimum: 0, maximum: 0),
        CDPField(name: "Port-ID", decoded: true, minimum: 0, maximum: 0),
        CDPField(name: "Capability", decoded: true, minimum: 4, maximum: 4),
        CDPField(name: "Version String", decoded: true, minimum: 0, maximum: 0),
        CDPField(name: "Platform", decoded: true, minimum: 0, maximum: 0),
        CDPField(name: "Prefixes", decoded: true, minimum: 0, maximum: 0),
        CDPField(name: "Protocol-Hello option", decoded: false, minimum: 0, maximum: 0),
        CDPField(name: "VTP Management Domain", decoded: true, minimum: 0, maximum: 0),
        CDPField(name: "Native VLAN ID", decoded: true, minimum: 2, maximum: 2),
        CDPField(name: "Duplex", decoded: true, minimum: 1, maximum: 1),
        CDPField(name: nil, decoded: false, minimum: 0, maximum: 0),
        CDPField(name: nil, decoded: false, minimum: 0, maximum: 0),
        CDPField(name: "ATA-186 VoIP VLAN assignment", decoded: true, minimum: 3, maximum: 3),
        CDPField(name: "ATA-186 VoIP VLAN request", decoded: true, minimum: 2, maximum: 3),
        CDPField(name: "power consumption", decoded: true, minimum: 1, maximum: 3),
        CDPField(name: "MTU", decoded: true, minimum: 4, maximum: 4),
        CDPField(name: "AVVID trust bitmap", decoded: true, minimum: 1, maximum: 1),
        CDPField(name: "AVVID untrusted ports CoS", decoded: true, minimum: 1, maximum: 1),
        CDPField(name: "System Name", decoded: true, minimum: 0, maximum: 0),
        CDPField(name: "System Object ID (not decoded)", decoded: false, minimum: 0, maximum: 0),
        CDPField(name: "Management Addresses", decoded: true, minimum: 4, maximum: 0),
        CDPField(name: "Physical Location", decoded: true, minimum: 1, maximum: 0),
    ]

    /// The LLC/SNAP header that announces an IPv6 address.
    private static let cdpIPv6Protocol: [UInt8] = [0xAA, 0xAA, 0x03, 0x00, 0x00, 0x00, 0x86, 0xDD]

    private static let cdpCapabilityNames = NameTable([
        (0x01, "Router"), (0x02, "Transparent Bridge"), (0x04, "Source Route Bridge"), (0x08, "L2 Switch"),
        (0x10, "L3 capable"), (0x20, "IGMP snooping"), (0x40, "L1 capable"),
    ])

    /// tcpdump's `cdp_print` for the CDP message at `p`, `length` bytes long.
    mutating func printCDP(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "cdp"
        let verbose = options.verbosity > 0
        var offset = p
        var left = length
        func invalid(_ out: inout [UInt8]) throws(PacketDecodingError) {
            out.append(" (invalid)")
            try cursor.check(offset, left)
        }
        guard length >= 4 else {
            out.append(" (packet length ")
            out.appendDecimal(length)
            out.append(" < 4)")
            return try invalid(&out)
        }
        let version = try cursor.u8(p)
        let ttl = try cursor.u8(p + 1)
        out.append("CDPv")
        out.appendDecimal(version)
        out.append(", ttl: ")
        out.appendDecimal(ttl)
        out.append("s")
        let checksum = try cursor.u16(p + 2)
        if verbose {
            out.append(", checksum: 0x")
            out.appendHex(UInt64(checksum), minimumDigits: 4)
            out.append(" (unverified), length ")
            out.appendDecimal(length)
        }
        offset += 4
        left -= 4
        while left > 0 {
            guard left >= 4 else {
                out.append(" (remaining packet length ")
                out.appendDecimal(left)
                out.append(" < 4)")
                return try invalid(&out)
            }
            let type = Int(try cursor.u16(offset))
            var valueLength = Int(try cursor.u16(offset + 2))
            let field = type < Self.cdpFields.count ? Self.cdpFields[type] : nil
            let name = field?.name ?? "unknown field type"
            guard valueLength >= 4 else {
                if verbose {
                    out.append("\n\t")
                    out.append(name)
                    out.append(" (0x")
                    out.appendHex(UInt64(type), minimumDigits: 2)
                    out.append("), TLV length: ")
                    out.appendDecimal(valueLength)
                    out.append(valueLength == 1 ? " byte (too short)" : " bytes (too short)")
                } else {
                    out.append(", ")
                    out.append(name)
                    out.append(" TLV length ")
                    out.appendDecimal(valueLength)
                    out.append(" too short")
                }
                return try invalid(&out)
            }
            guard valueLength <= left else {
                out.append(" (TLV length ")
                out.appendDecimal(valueLength)
                out.append(" > ")
                out.appendDecimal(left)
                out.append(")")
                return try invalid(&out)
            }
            offset += 4
            left -= 4
            valueLength -= 4
            if !verbose && type == 1 {
                out.append(", Device-ID ")
            } else if verbose {
                out.append("\n\t")
                out.append(name)
                out.append(" (0x")
                out.appendHex(UInt64(type), minimumDigits: 2)
                out.append("), value length: ")
                out.appendDecimal(valueLength)
                out.append(valueLength == 1 ? " byte: " : " bytes: ")
            }
            var covered = false
            if let field {
                if (field.minimum > 0 && valueLength < field.minimum) || (field.maximum > 0 && valueLength > field.maximum) {
                    out.append(" (malformed TLV)")
                } else if verbose || type == 1 {
                    if field.decoded {
                        try appendCDPValue(cursor, type: type, at: offset, length: valueLength, into: &out)
                    } else {
                        try cursor.check(offset, valueLength)
                    }
                    covered = true
                }
            }
            if !covered {
                try cursor.check(offset, valueLength)
                Self.appendUnknownData(cursor, at: offset, length: valueLength, indent: "\n\t  ", into: &out)
            }
            offset += valueLength
            left -= valueLength
        }
        if !verbose {
            out.append(", length ")
            out.appendDecimal(length)
        }
    }

    /// One decoded TLV value (tcpdump's per-type `cdp_print_*` functions).
    private func appendCDPValue(_ cursor: ByteCursor, type: Int, at offset: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        switch type {
        case 1, 3, 6, 9, 0x14:
            out.append("'")
            try Self.appendEscaped(cursor, at: offset, count: length, into: &out)
            out.append("'")
        case 2, 0x16:
            try appendCDPAddresses(cursor, at: offset, length: length, into: &out)
        case 4:
            let value = try cursor.u32(offset)
            out.append("(0x")
            out.appendHex(UInt64(value), minimumDigits: 8)
            out.append("): ")
            Self.cdpCapabilityNames.appendBits(value, none: "none", into: &out)
        case 5:
            out.append("\n\t  ")
            for index in 0..<length {
                let byte = try cursor.u8(offset + index)
                if byte == 0x0A {
                    out.append("\n\t  ")
                } else {
                    out.appendEscapedCharacter(byte)
                }
            }
        case 7:
            guard length % 5 == 0 else {
                out.append(" [length ")
                out.appendDecimal(length)
                out.append(" is not a multiple of 5]")
                return try cursor.check(offset, length)
            }
            out.append(" IPv4 Prefixes (")
            out.appendDecimal(length / 5)
            out.append("):")
            var prefix = offset
            while prefix < offset + length {
                try cursor.check(prefix, 5)
                out.append(" ")
                try appendIPv4Address(cursor, at: prefix, into: &out)
                out.append("/")
                out.appendDecimal(try cursor.u8(prefix + 4))
                prefix += 5
            }
        case 0x0A:
            out.appendDecimal(try cursor.u16(offset))
        case 0x0B:
            out.append(try cursor.u8(offset) != 0 ? "full" : "half")
        case 0x0E, 0x0F:
            if length == 2 {
                let value = try cursor.u16(offset)
                out.append("unknown 0x")
                out.appendHex(UInt64(value), minimumDigits: 4)
            } else {
                let application = try cursor.u8(offset)
                let vlan = try cursor.u16(offset + 1)
                out.append("app ")
                out.appendDecimal(application)
                out.append(", vlan ")
                out.appendDecimal(vlan)
            }
        case 0x10:
            var value: UInt32 = 0
            for index in 0..<length { value = value << 8 | UInt32(try cursor.u8(offset + index)) }
            Self.appendMilliunits(value, into: &out)
            out.append("W")
        case 0x11:
            out.appendDecimal(try cursor.u32(offset))
            out.append(" bytes")
        case 0x12, 0x13:
            let value = try cursor.u8(offset)
            out.append("0x")
            out.appendHex(UInt64(value), minimumDigits: 2)
        case 0x17:
            let value = try cursor.u8(offset)
            out.append("0x")
            out.appendHex(UInt64(value), minimumDigits: 2)
            if length > 1 {
                out.append("/")
                try Self.appendEscaped(cursor, at: offset + 1, count: length - 1, into: &out)
            }
        default:
            break
        }
    }

    /// `value / 1000.0` as `%1.2f` prints it: the double nearest to the quotient, rounded to
    /// hundredths (a quotient ending in 5 rounds the way its binary neighbour lies, ties to even).
    private static func appendMilliunits(_ value: UInt32, into out: inout [UInt8]) {
        var hundredths = value / 10
        let rest = value % 10
        if rest > 5 {
            hundredths += 1
        } else if rest == 5 {
            let quotient = Double(value) / 1000
            let error = (-Double(value)).addingProduct(quotient, 1000)
            if error > 0 || (error == 0 && hundredths % 2 == 1) { hundredths += 1 }
        }
        out.appendDecimal(hundredths / 100)
        out.append(".")
        out.appendDecimal(UInt64(hundredths % 100), minimumDigits: 2)
    }

    /// tcpdump's `cdp_print_addr`: `IPv4 (1) 192.0.2.1`, `IPv6 (1) 2001:db8::1`, or the
    /// protocol and address bytes of other families, after the address count.
    private func appendCDPAddresses(_ cursor: ByteCursor, at start: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var offset = start
        var left = length
        guard left >= 4 else {
            out.append(" (not enough space for num)")
            return try cursor.check(offset, left)
        }
        var count = try cursor.u32(offset)
        offset += 4
        left -= 4
        while count > 0 {
            guard left >= 2 else {
                out.append(" (not enough space for PT+PL)")
                return try cursor.check(offset, left)
            }
            let protocolType = try cursor.u8(offset)
            var protocolLength = Int(try cursor.u8(offset + 1))
            offset += 2
            left -= 2
            guard left >= protocolLength + 2 else {
                out.append(" (not enough space for P+AL)")
                return try cursor.check(offset, left)
            }
            var addressLength = Int(try cursor.u16(offset + protocolLength))
            // The address length was read after the protocol, so the protocol bytes are captured.
            let firstProtocolByte = try cursor.u8(offset)
            let isIPv4 = protocolType == 1 && protocolLength == 1 && firstProtocolByte == 0xCC && addressLength == 4
            var isIPv6 = protocolType == 2 && protocolLength == 8 && addressLength == 16
            if isIPv6 {
                for index in 0..<8 where cursor.bytes[offset + index] != Self.cdpIPv6Protocol[index] { isIPv6 = false }
            }
            if isIPv4 || isIPv6 {
                offset += protocolLength + 2
                left -= protocolLength + 2
                guard left >= addressLength else {
                    out.append(" (not enough space for A)")
                    return try cursor.check(offset, left)
                }
                try cursor.check(offset, addressLength)
                out.append(isIPv4 ? "IPv4 (" : "IPv6 (")
                out.appendDecimal(count)
                out.append(") ")
                if isIPv4 {
                    try appendIPv4Address(cursor, at: offset, into: &out)
                } else {
                    try appendIPv6Address(cursor, at: offset, into: &out)
                }
                offset += addressLength
                left -= addressLength
            } else {
                out.append("pt=0x")
                out.appendHex(UInt64(protocolType), minimumDigits: 2)
                out.append(", pl=")
                out.appendDecimal(protocolLength)
                out.append(", pb=")
                while protocolLength != 0 {
                    let byte = try cursor.u8(offset)
                    out.append(" ")
                    out.appendHex(UInt64(byte), minimumDigits: 2)
                    offset += 1
                    left -= 1
                    protocolLength -= 1
                }
                out.append(", al=")
                out.appendDecimal(addressLength)
                out.append(", a=")
                offset += 2
                left -= 2
                guard left >= addressLength else {
                    out.append(" (not enough space for A)")
                    return try cursor.check(offset, left)
                }
                while addressLength != 0 {
                    let byte = try cursor.u8(offset)
                    out.append(" ")
                    out.appendHex(UInt64(byte), minimumDigits: 2)
                    offset += 1
                    left -= 1
                    addressLength -= 1
                }
            }
            count -= 1
            if count > 0 { out.append(" ") }
        }
        if left > 0 {
            out.append(" (")
            out.appendDecimal(left)
            out.append(" bytes of stray data)")
        }
    }
}
