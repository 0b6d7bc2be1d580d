/// The RFC 1048 vendor extensions (DHCP options) of a BOOTP message, as tcpdump 4.99.3's
/// `rfc1048_print` prints them with `-v`: one option a line,
/// `NAME (TAG), length N: VALUE`, the value in the format tcpdump's option table gives the tag.
extension PacketPrinter {
    /// How tcpdump prints an option's value (the first character of its `tag2str` entries).
    enum BOOTPValueFormat {
        /// `i`: IPv4 addresses, comma-separated.
        case addresses
        /// `p`: address pairs `(a.b.c.d:e.f.g.h)`.
        case addressPairs
        /// `l`: unsigned 32-bit numbers.
        case unsigned32
        /// `L`: signed 32-bit numbers.
        case signed32
        /// `s`: unsigned 16-bit numbers.
        case unsigned16
        /// `b` (and tcpdump's default): decimal bytes joined by `.`.
        case bytes
        /// `a`: the bytes as escaped text in quotes.
        case text
        /// `B`: booleans `Y`, `N` or `N?`.
        case booleans
        /// `$`: the tags with their own code.
        case special
        /// `?`: a tag tcpdump does not name (`Unknown`); the format follows the length.
        case unknown
    }

    /// tcpdump's `tag2str` entry for `tag`: the name it prints and the value format. PAD, END
    /// and DHCP-Message have tcpdump's blank format, which prints like ``BOOTPValueFormat/bytes``.
    static func bootpOption(_ tag: UInt8) -> (name: StaticString, format: BOOTPValueFormat) {
        switch tag {
        case 0: ("PAD", .bytes)
        case 1: ("Subnet-Mask", .addresses)
        case 2: ("Time-Zone", .signed32)
        case 3: ("Default-Gateway", .addresses)
        case 4: ("Time-Server", .addresses)
        case 5: ("IEN-Name-Server", .addresses)
        case 6: ("Domain-Name-Server", .addresses)
        case 7: ("LOG", .addresses)
        case 8: ("CS", .addresses)
        case 9: ("LPR-Server", .addresses)
        case 10: ("IM", .addresses)
        case 11: ("RL", .addresses)
        case 12: ("Hostname", .text)
        case 13: ("BS", .unsigned16)
        case 14: ("DP", .text)
        case 15: ("Domain-Name", .text)
        case 16: ("SS", .addresses)
        case 17: ("RP", .text)
        case 18: ("EP", .text)
        case 19: ("IPF", .booleans)
        case 20: ("SRT", .booleans)
        case 21: ("PF", .addressPairs)
        case 22: ("RSZ", .unsigned16)
        case 23: ("TTL", .bytes)
        case 24: ("MTU-Timeout", .unsigned32)
        case 25: ("MTU-Table", .unsigned16)
        case 26: ("MTU", .unsigned16)
        case 27: ("LSN", .booleans)
        case 28: ("BR", .addresses)
        case 29: ("MD", .booleans)
        case 30: ("MS", .booleans)
        case 31: ("Router-Discovery", .booleans)
        case 32: ("RSA", .addresses)
        case 33: ("Static-Route", .addressPairs)
        case 34: ("UT", .booleans)
        case 35: ("AT", .unsigned32)
        case 36: ("IE", .booleans)
        case 37: ("TT", .bytes)
        case 38: ("KI", .unsigned32)
        case 39: ("KG", .booleans)
        case 40: ("YD", .text)
        case 41: ("YS", .addresses)
        case 42: ("NTP", .addresses)
        case 43: ("Vendor-Option", .bytes)
        case 44: ("Netbios-Name-Server", .addresses)
        case 45: ("WDD", .addresses)
        case 46: ("Netbios-Node", .special)
        case 47: ("Netbios-Scope", .text)
        case 48: ("XFS", .addresses)
        case 49: ("XDM", .addresses)
        case 50: ("Requested-IP", .addresses)
        case 51: ("Lease-Time", .unsigned32)
        case 52: ("OO", .special)
        case 53: ("DHCP-Message", .bytes)
        case 54: ("Server-ID", .addresses)
        case 55: ("Parameter-Request", .bytes)
        case 56: ("MSG", .text)
        case 57: ("MSZ", .unsigned16)
        case 58: ("RN", .unsigned32)
        case 59: ("RB", .unsigned32)
        case 60: ("Vendor-Class", .text)
        case 61: ("Client-ID", .special)
        case 64: ("N+D", .unsigned16)
        case 65: ("N+S", .addresses)
        case 66: ("TFTP", .text)
        case 67: ("BF", .text)
        case 68: ("MH", .addresses)
        case 69: ("SMTP", .addresses)
        case 70: ("POP3", .addresses)
        case 71: ("NNTP", .addresses)
        case 72: ("WWW", .addresses)
        case 73: ("FG", .addresses)
        case 74: ("IRC", .addresses)
        case 75: ("STS", .addresses)
        case 76: ("STDA", .addresses)
        case 77: ("User-Class", .special)
        case 78: ("SLP-DA", .bytes)
        case 79: ("SLP-SCOPE", .bytes)
        case 80: ("SLP-NA", .text)
        case 81: ("FQDN", .special)
        case 82: ("Agent-Information", .special)
        case 83: ("ARMT", .bytes)
        case 88: ("TZSTR", .text)
        case 89: ("FQDNS", .bytes)
        case 90: ("AUTH", .bytes)
        case 91: ("Last-Transaction-Time", .signed32)
        case 92: ("Associated-IP", .addresses)
        case 93: ("ARCH", .unsigned16)
        case 94: ("NDI", .bytes)
        case 95: ("LDAP", .text)
        case 97: ("GUID", .bytes)
        case 98: ("UAP", .text)
        case 100: ("POSIX-TZ", .text)
        case 101: ("TZ-Name", .text)
        case 112: ("NI", .addresses)
        case 113: ("NITAG", .text)
        case 114: ("URL", .text)
        case 116: ("NOAUTO", .booleans)
        case 117: ("NSSEARCH", .unsigned16)
        case 118: ("SUBNET", .addresses)
        case 121: ("Classless-Static-Route", .special)
        case 150: ("TFTP-Server-Address", .addresses)
        case 161: ("MUD-URL", .text)
        case 249: ("Classless-Static-Route-Microsoft", .special)
        case 255: ("END", .bytes)
        default: ("Unknown", .unknown)
        }
    }

    /// tcpdump's `dhcp_msg_values`: the DHCP message type of option 53.
    static func appendDHCPMessageType(_ type: UInt8, into out: inout [UInt8]) {
        switch type {
        case 1: out.append("Discover")
        case 2: out.append("Offer")
        case 3: out.append("Request")
        case 4: out.append("Decline")
        case 5: out.append("ACK")
        case 6: out.append("NACK")
        case 7: out.append("Release")
        case 8: out.append("Inform")
        case 10: out.append("LeaseQuery")
        case 11: out.append("LeaseUnassigned")
        case 12: out.append("LeaseUnknown")
        case 13: out.append("LeaseActive")
        default:
            out.append("Unknown (")
            out.appendDecimal(type)
            out.append(")")
        }
    }

    /// tcpdump's `rfc1048_print`: the magic cookie, then every option up to END or the end of
    /// the captured datagram (the UDP length is not a limit, as in tcpdump). PAD and END are
    /// skipped silently below `-vvv`; with `-vvv` END does not stop the walk and a run of PADs
    /// prints once with `, occurs N`. An option longer than the capture prints ` [|bootp]` and
    /// ends the walk; bytes a format leaves over print `trailing data length N`.
    func appendRFC1048Options(_ cursor: ByteCursor, at vendor: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.append("\n\t  Vendor-rfc1048 Extensions\n\t    Magic Cookie 0x")
        out.appendHex(UInt64(try cursor.u32(vendor)), minimumDigits: 8)
        let allOptions = options.verbosity > 2
        var offset = vendor + 4
        while cursor.has(offset, 1) {
            let tag = try cursor.u8(offset)
            offset += 1
            if tag == 0 && !allOptions { continue }
            if tag == 255 && !allOptions { return }
            let (name, format) = Self.bootpOption(tag)
            var length = 0
            if tag != 0 && tag != 255 {
                length = Int(try cursor.u8(offset))
                offset += 1
            }
            out.append("\n\t    ")
            out.append(name)
            out.append(" (")
            out.appendDecimal(tag)
            out.append("), length ")
            out.appendDecimal(length)
            if length > 0 { out.append(": ") }
            if tag == 0 {
                var count = 1
                while cursor.has(offset, 1), try cursor.u8(offset) == 0 {
                    offset += 1
                    count += 1
                }
                if count > 1 {
                    out.append(", occurs ")
                    out.appendDecimal(count)
                }
            }
            guard cursor.has(offset, length) else {
                out.append(" [|bootp]")
                return
            }
            if tag == 53 && length == 1 {
                Self.appendDHCPMessageType(try cursor.u8(offset), into: &out)
                offset += 1
                continue
            }
            if tag == 55 {
                for index in 0..<length {
                    let requested = try cursor.u8(offset + index)
                    out.append(index % 4 == 0 ? "\n\t      " : ", ")
                    out.append(Self.bootpOption(requested).name)
                    out.append(" (")
                    out.appendDecimal(requested)
                    out.append(")")
                }
                offset += length
                continue
            }
            let value = offset
            offset += length
            let left = format == .special
                ? try appendSpecialBOOTPOption(tag, cursor, at: value, length: length, into: &out)
                : try appendBOOTPValue(format, cursor, at: value, length: length, into: &out)
            if left > 0 {
                out.append("\n\t  trailing data length ")
                out.appendDecimal(left)
            }
        }
    }

    /// An option value in one of the table's plain formats (the bytes are captured); returns
    /// the bytes the format leaves over (a 32-bit format over 6 bytes leaves 2).
    private func appendBOOTPValue(
        _ format: BOOTPValueFormat, _ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Int {
        var format = format
        if format == .unknown {
            format = length & 1 != 0 ? .bytes : length & 2 != 0 ? .unsigned16 : .unsigned32
        }
        var offset = value
        var left = length
        switch format {
        case .text:
            try appendBOOTPCharacters(cursor, at: offset, count: left, into: &out)
            return 0
        case .addresses, .unsigned32, .signed32:
            while left >= 4 {
                if offset > value { out.append(",") }
                if format == .addresses {
                    try appendIPv4Address(cursor, at: offset, into: &out)
                } else {
                    let number = try cursor.u32(offset)
                    if format == .signed32 && number >= 0x8000_0000 {
                        out.append("-")
                        out.appendDecimal(0 &- number)
                    } else {
                        out.appendDecimal(number)
                    }
                }
                offset += 4
                left -= 4
            }
        case .addressPairs:
            while left >= 8 {
                out.append(offset > value ? ",(" : "(")
                try appendIPv4Address(cursor, at: offset, into: &out)
                out.append(":")
                try appendIPv4Address(cursor, at: offset + 4, into: &out)
                out.append(")")
                offset += 8
                left -= 8
            }
        case .unsigned16:
            while left >= 2 {
                if offset > value { out.append(",") }
                out.appendDecimal(try cursor.u16(offset))
                offset += 2
                left -= 2
            }
        case .booleans:
            while left > 0 {
                if offset > value { out.append(",") }
                switch try cursor.u8(offset) {
                case 0: out.append("N")
                case 1: out.append("Y")
                case let other:
                    out.appendDecimal(other)
                    out.append("?")
                }
                offset += 1
                left -= 1
            }
        case .bytes, .special, .unknown:
            while left > 0 {
                if offset > value { out.append(".") }
                out.appendDecimal(try cursor.u8(offset))
                offset += 1
                left -= 1
            }
        }
        return left
    }

    /// `"TEXT"`: `count` captured bytes escaped as tcpdump's `nd_printn` does.
    func appendBOOTPCharacters(_ cursor: ByteCursor, at offset: Int, count: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.append("\"")
        try Self.appendEscaped(cursor, at: offset, count: count, into: &out)
        out.append("\"")
    }
}
