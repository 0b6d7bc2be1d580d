/// The DHCPv6 option values tcpdump 4.99.3 decodes (`dhcp6opt_print`) and its names for
/// messages, options and status codes.
extension PacketPrinter {
    /// What ``appendDHCPv6OptionValue(_:_:at:length:into:)`` leaves the option walk to do.
    enum DHCPv6OptionOutcome {
        /// The value and the closing `)` are printed.
        case printed
        /// tcpdump's explicit truncation check failed inside the value: the list ends with
        /// ` [|dhcp6]`.
        case truncated
        /// The fixed part is printed; sub-options follow from this offset to the option's end,
        /// then `)`.
        case suboptions(Int)
        /// A relay-message option: the message it carries is printed nested.
        case relayedMessage
    }

    /// Message types 1 to 15.
    private static let messageTypeNames: [StaticString] = [
        "solicit", "advertise", "request", "confirm", "renew", "rebind", "reply", "release", "decline",
        "reconfigure", "inf-req", "relay-fwd", "relay-reply", "leasequery", "leasequery-reply",
    ]

    /// Status codes 0 to 10.
    private static let statusCodeNames: [StaticString] = [
        "Success", "UnspecFail", "NoAddrsAvail", "NoBinding", "NotOnLink", "UseMulticast", "NoPrefixAvail",
        "UnknownQueryType", "MalformedQuery", "NotConfigured", "NotAllowed",
    ]

    /// tcpdump's `dh6_msgtype_str`, `msgtype-N` for the others.
    static func appendDHCPv6MessageType(_ type: UInt8, into out: inout [UInt8]) {
        if type >= 1 && Int(type) <= messageTypeNames.count {
            out.append(messageTypeNames[Int(type) - 1])
        } else {
            out.append("msgtype-")
            out.appendDecimal(type)
        }
    }

    /// tcpdump's `dh6opt_str`, `opt_N` for the others.
    static func appendDHCPv6OptionName(_ type: UInt16, into out: inout [UInt8]) {
        let name: StaticString
        switch type {
        case 1: name = "client-ID"
        case 2: name = "server-ID"
        case 3: name = "IA_NA"
        case 4: name = "IA_TA"
        case 5: name = "IA_ADDR"
        case 6: name = "option-request"
        case 7: name = "preference"
        case 8: name = "elapsed-time"
        case 9: name = "relay-message"
        case 11: name = "authentication"
        case 12: name = "server-unicast"
        case 13: name = "status-code"
        case 14: name = "rapid-commit"
        case 15: name = "user-class"
        case 16: name = "vendor-class"
        case 17: name = "vendor-specific-info"
        case 18: name = "interface-ID"
        case 19: name = "reconfigure-message"
        case 20: name = "reconfigure-accept"
        case 21: name = "SIP-servers-domain"
        case 22: name = "SIP-servers-address"
        case 23: name = "DNS-server"
        case 24: name = "DNS-search-list"
        case 25: name = "IA_PD"
        case 26: name = "IA_PD-prefix"
        case 27: name = "NIS-server"
        case 28: name = "NIS+-server"
        case 29: name = "NIS-domain-name"
        case 30: name = "NIS+-domain-name"
        case 31: name = "SNTP-servers"
        case 32: name = "lifetime"
        case 33: name = "BCMCS-domain-name"
        case 34: name = "BCMCS-server"
        case 36: name = "Geoconf-Civic"
        case 37: name = "Remote-ID"
        case 38: name = "Subscriber-ID"
        case 39: name = "Client-FQDN"
        case 40: name = "PANA-agent"
        case 41: name = "POSIX-timezone"
        case 42: name = "POSIX-tz-database"
        case 43: name = "Echo-request-option"
        case 44: name = "Lease-query"
        case 45: name = "LQ-client-data"
        case 46: name = "Clt-time"
        case 47: name = "LQ-relay-data"
        case 48: name = "LQ-client-link"
        case 56: name = "NTP-server"
        case 64: name = "AFTR-Name"
        case 112: name = "MUD-URL"
        default:
            out.append("opt_")
            out.appendDecimal(type)
            return
        }
        out.append(name)
    }

    /// tcpdump's `dhcp6stcode`: the status code's name, `codeN`, or `INVALID code` above 255.
    private static func appendDHCPv6StatusCode(_ code: UInt16, into out: inout [UInt8]) {
        if Int(code) < statusCodeNames.count {
            out.append(statusCodeNames[Int(code)])
        } else if code > 255 {
            out.append("INVALID code")
        } else {
            out.append("code")
            out.appendDecimal(code)
        }
    }

    /// The value of one option (`length` bytes at `value`, all captured) as tcpdump prints it
    /// after the option's name, with its closing `)`; a length the option cannot have prints
    /// ` ?)`. Options tcpdump only names print just `)`.
    func appendDHCPv6OptionValue(
        _ type: UInt16, _ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> DHCPv6OptionOutcome {
        func invalid(_ out: inout [UInt8]) -> DHCPv6OptionOutcome {
            out.append(" ?)")
            return .printed
        }
        switch type {
        case 1, 2:
            guard length >= 2 else { return invalid(&out) }
            try appendDUID(cursor, at: value, length: length, into: &out)
        case 5:
            guard length >= 24 else { return invalid(&out) }
            out.append(" ")
            try appendIPv6Address(cursor, at: value, into: &out)
            try appendDHCPv6Lifetimes(cursor, at: value + 16, into: &out)
            return .suboptions(value + 24)
        case 6, 43:
            guard length % 2 == 0 else { return invalid(&out) }
            for index in stride(from: 0, to: length, by: 2) {
                out.append(" ")
                Self.appendDHCPv6OptionName(try cursor.u16(value + index), into: &out)
            }
            out.append(")")
        case 7:
            guard length == 1 else { return invalid(&out) }
            out.append(" ")
            out.appendDecimal(try cursor.u8(value))
            out.append(")")
        case 8:
            guard length == 2 else { return invalid(&out) }
            out.append(" ")
            out.appendDecimal(try cursor.u16(value))
            out.append(")")
        case 9:
            return .relayedMessage
        case 11:
            guard length >= 11 else { return invalid(&out) }
            try appendDHCPv6Authentication(cursor, at: value, length: length, into: &out)
        case 18, 38:
            out.append(" ")
            try appendDHCPv6HexPrefix(cursor, at: value, count: min(length, 10), into: &out)
        case 19:
            guard length == 1 else { return invalid(&out) }
            switch try cursor.u8(value) {
            case 5: out.append(" for renew)")
            case 11: out.append(" for inf-req)")
            case let other:
                out.append(" for ???(")
                out.appendHex(UInt64(other), minimumDigits: 2)
                out.append("))")
            }
        case 22, 23, 31, 27, 28, 34, 40, 48:
            guard length % 16 == 0 else { return invalid(&out) }
            for index in stride(from: 0, to: length, by: 16) {
                out.append(" ")
                try appendIPv6Address(cursor, at: value + index, into: &out)
            }
            out.append(")")
        case 21, 24:
            var name = value
            while name < value + length {
                out.append(" ")
                guard let after = try Self.appendDNSName(cursor, at: name, base: value + length, into: &out) else {
                    return .truncated
                }
                name = after
            }
            out.append(")")
        case 13:
            guard length >= 2 else { return invalid(&out) }
            out.append(" ")
            Self.appendDHCPv6StatusCode(try cursor.u16(value), into: &out)
            out.append(")")
        case 3, 25:
            guard length >= 12 else { return invalid(&out) }
            out.append(" IAID:")
            out.appendDecimal(try cursor.u32(value))
            out.append(" T1:")
            out.appendDecimal(try cursor.u32(value + 4))
            out.append(" T2:")
            out.appendDecimal(try cursor.u32(value + 8))
            return .suboptions(value + 12)
        case 4:
            guard length >= 4 else { return invalid(&out) }
            out.append(" IAID:")
            out.appendDecimal(try cursor.u32(value))
            return .suboptions(value + 4)
        case 26:
            guard length >= 25 else { return invalid(&out) }
            out.append(" ")
            try appendIPv6Address(cursor, at: value + 9, into: &out)
            out.append("/")
            out.appendDecimal(try cursor.u8(value + 8))
            try appendDHCPv6Lifetimes(cursor, at: value, into: &out)
            return .suboptions(value + 25)
        case 32, 46:
            guard length == 4 else { return invalid(&out) }
            out.append(" ")
            out.appendDecimal(try cursor.u32(value))
            out.append(")")
        case 37:
            guard length >= 4 else { return invalid(&out) }
            out.append(" ")
            out.appendDecimal(try cursor.u32(value))
            out.append(" ")
            try appendDHCPv6HexPrefix(cursor, at: value + 4, count: min(length, 14) - 4, into: &out)
        case 44:
            guard length >= 17 else { return invalid(&out) }
            switch try cursor.u8(value) {
            case 1: out.append(" by-address")
            case 2: out.append(" by-clientID")
            case let other:
                out.append(" type_")
                out.appendDecimal(other)
            }
            out.append(" ")
            try appendIPv6Address(cursor, at: value + 1, into: &out)
            return .suboptions(value + 17)
        case 45:
            return .suboptions(value)
        case 47:
            guard length >= 16 else { return invalid(&out) }
            out.append(" ")
            try appendIPv6Address(cursor, at: value, into: &out)
            out.append(" ")
            try appendDHCPv6HexPrefix(cursor, at: value + 16, count: min(length, 26) - 16, into: &out)
        case 56:
            guard length >= 4 else { return invalid(&out) }
            return try appendDHCPv6NTPServer(cursor, at: value, length: length, into: &out)
        case 64:
            guard length >= 3 else { return invalid(&out) }
            try appendDHCPv6AFTRName(cursor, at: value, length: length, into: &out)
        case 41, 42, 112:
            guard length >= 5 else { return invalid(&out) }
            out.append(" ")
            try Self.appendNullPaddedText(cursor, at: value, count: length, into: &out)
            out.append(")")
        default:
            out.append(")")
        }
        return .printed
    }

    /// ` pltime:P vltime:V` from the two 32-bit numbers at `offset`.
    private func appendDHCPv6Lifetimes(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.append(" pltime:")
        out.appendDecimal(try cursor.u32(offset))
        out.append(" vltime:")
        out.appendDecimal(try cursor.u32(offset + 4))
    }

    /// `count` bytes in hex without separators, then `...)` (interface, remote and
    /// subscriber IDs and relay data show at most their first 10 bytes).
    private func appendDHCPv6HexPrefix(_ cursor: ByteCursor, at offset: Int, count: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try Self.appendHexBytes(cursor, at: offset, count: count, into: &out)
        out.append("...)")
    }

    /// Client and server identifiers (DUIDs): link-layer address plus time, vendor, or
    /// link-layer address, with their closing `)`.
    private func appendDUID(_ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let kind = try cursor.u16(value)
        switch kind {
        case 1:
            guard length >= 8 else {
                out.append(" ?)")
                return
            }
            out.append(" hwaddr/time type ")
            out.appendDecimal(try cursor.u16(value + 2))
            out.append(" time ")
            out.appendDecimal(try cursor.u32(value + 4))
            out.append(" ")
            try Self.appendHexBytes(cursor, at: value + 8, count: length - 8, into: &out)
        case 2:
            guard length >= 10 else {
                out.append(" ?)")
                return
            }
            out.append(" vid ")
            try Self.appendHexBytes(cursor, at: value + 2, count: 8, into: &out)
        case 3:
            guard length >= 4 else {
                out.append(" ?)")
                return
            }
            out.append(" hwaddr type ")
            out.appendDecimal(try cursor.u16(value + 2))
            out.append(" ")
            try Self.appendHexBytes(cursor, at: value + 4, count: length - 4, into: &out)
        default:
            out.append(" type ")
            out.appendDecimal(kind)
        }
        out.append(")")
    }

    /// The authentication option (RFC 3315): protocol, algorithm, replay detection method and
    /// value, then the delayed-authentication realm, key ID and HMAC-MD5, or the reconfigure
    /// key; ` ??` where the rest does not fit the protocol. Closes with `)`.
    private func appendDHCPv6Authentication(_ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let proto = try cursor.u8(value)
        switch proto {
        case 2: out.append(" proto: delayed")
        case 3: out.append(" proto: reconfigure")
        default:
            out.append(" proto: ")
            out.appendDecimal(proto)
        }
        let algorithm = try cursor.u8(value + 1)
        if algorithm == 1 {
            out.append(", alg: HMAC-MD5")
        } else {
            out.append(", alg: ")
            out.appendDecimal(algorithm)
        }
        let method = try cursor.u8(value + 2)
        if method == 0 {
            out.append(", RDM: mono")
        } else {
            out.append(", RDM: ")
            out.appendDecimal(method)
        }
        out.append(", RD:")
        for index in 0..<4 {
            out.append(" ")
            out.appendHex(UInt64(try cursor.u16(value + 3 + 2 * index)), minimumDigits: 4)
        }
        var offset = value + 11
        let information = length - 11
        switch proto {
        case 2:
            guard information != 0 else { break }
            guard information >= 20 else {
                out.append(" ??")
                break
            }
            let realm = information - 20
            if realm > 0 { out.append(", realm: ") }
            try Self.appendHexBytes(cursor, at: offset, count: realm, into: &out)
            offset += realm
            out.append(", key ID: ")
            out.appendHex(UInt64(try cursor.u32(offset)), minimumDigits: 8)
            out.append(", HMAC-MD5:")
            try appendDHCPv6Words(cursor, at: offset + 4, into: &out)
        case 3:
            guard information == 17 else {
                out.append(" ??")
                break
            }
            switch try cursor.u8(offset) {
            case 1: out.append(" reconfig-key")
            case 2: out.append(" type: HMAC-MD5")
            default: out.append(" type: ??")
            }
            out.append(" value:")
            try appendDHCPv6Words(cursor, at: offset + 1, into: &out)
        default:
            out.append(" ??")
        }
        out.append(")")
    }

    /// Four 32-bit words at `offset`, each as ` %08x`.
    private func appendDHCPv6Words(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        for index in 0..<4 {
            out.append(" ")
            out.appendHex(UInt64(try cursor.u32(offset + 4 * index)), minimumDigits: 8)
        }
    }
}
