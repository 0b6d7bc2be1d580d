/// The configuration options of PPP's control protocols under `-v`, as tcpdump 4.99.3's
/// print-ppp.c prints them (`print_lcp_config_options`, `print_ipcp_config_options`,
/// `print_ip6cp_config_options`, `print_ccp_config_options`, `print_bacp_config_options`): one
/// `\n\t  NAME Option (0xNN), length N` line per option, its decoded value, and with `-vv` its
/// bytes. Each returns how far to advance, 0 to stop the list (tcpdump's own, sometimes odd,
/// choices kept: a bogus MRU goes on, a bogus Magic-Num stops), and is handed the whole
/// packet's option length as tcpdump hands it (not what is left of it).
extension PacketPrinter {
    private static let lcpOptionNames: [StaticString] = [
        "Vend-Ext", "MRU", "ACCM", "Auth-Prot", "Qual-Prot", "Magic-Num", "deprecated(6)", "PFC", "ACFC", "FCS-Alt",
        "SDP", "Num-Mode", "deprecated(12)", "Call-Back", "deprecated(14)", "deprecated(15)", "deprecated(16)", "MRRU",
        "12-Bit seq #", "End-Disc", "Proprietary", "DCE-Id", "MP+", "Link-Disc", "LCP-Auth-Opt", "COBS", "Prefix-elision",
        "Multilink-header-Form", "I18N", "SDL-over-SONET/SDH", "PPP-Muxing",
    ]
    private static let ipcpOptionNames = NameTable([
        (1, "IP-Addrs"), (2, "IP-Comp"), (3, "IP-Addr"), (4, "Home-Addr"), (129, "Pri-DNS"), (130, "Pri-NBNS"), (131, "Sec-DNS"), (132, "Sec-NBNS"),
    ])
    private static let ccpOptionNames = NameTable([
        (0, "OUI"), (1, "Pred-1"), (2, "Pred-2"), (3, "Puddle"), (16, "HP-PPC"), (17, "Stac-LZS"), (18, "MPPC"), (19, "Gand-FZA"),
        (20, "V.42bis"), (21, "BSD-Comp"), (23, "LZS-DCP"), (24, "MVRCA"), (25, "DEC"), (26, "Deflate"), (255, "Reserved"),
    ])
    private static let callbackNames = NameTable([(0, "UserAuth"), (1, "DialString"), (2, "LocalID"), (3, "E.164"), (4, "X.500"), (6, "CBCP")])
    private static let authenticationAlgorithmNames = NameTable([(5, "MD5"), (128, "MS-CHAPv1"), (129, "MS-CHAPv2")])

    /// The options of a Configure-Request/Ack/Nak/Reject (`handle_ctrl_proto`'s loop): `tlen`
    /// bytes at `p`, of a packet whose encoded length is `encoded`.
    func printPPPOptions(_ cursor: ByteCursor, proto: UInt16, at p: Int, encoded: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var left = encoded - 4
        var offset = p
        repeat {
            let advance: Int
            switch proto {
            case 0xC021: advance = try printLCPOption(cursor, at: offset, length: encoded, into: &out)
            case 0x8021: advance = try printIPCPOption(cursor, at: offset, length: encoded, into: &out)
            case 0x8057: advance = try printSimpleOption(cursor, at: offset, length: encoded, kind: .ip6cp, into: &out)
            case 0x80FD: advance = try printCCPOption(cursor, at: offset, length: encoded, into: &out)
            case 0xC02B: advance = try printSimpleOption(cursor, at: offset, length: encoded, kind: .bacp, into: &out)
            default: return
            }
            if advance == 0 { return }
            if left < advance {
                out.append(" [remaining options length ")
                out.appendDecimal(left)
                out.append(" < ")
                out.appendDecimal(advance)
                out.append("] (invalid)")
                return
            }
            left -= advance
            offset += advance
        } while left != 0
    }

    /// An option's type and length when both are captured and fit (`nil`: stop, having
    /// printed `[|NAME]` when they are not captured).
    private func optionHeader(_ cursor: ByteCursor, at p: Int, length: Int, truncation: StaticString, into out: inout [UInt8]) throws(PacketDecodingError) -> (option: UInt8, length: Int)? {
        guard length >= 2 else { return nil }
        guard cursor.has(p, 2) else {
            out.append(truncation)
            return nil
        }
        let option = try cursor.u8(p)
        let optionLength = Int(try cursor.u8(p + 1))
        guard length >= optionLength else { return nil }
        return (option, optionLength)
    }

    private func appendOptionLine(_ name: StaticString, _ option: UInt8, _ length: Int, into out: inout [UInt8]) {
        out.append("\n\t  ")
        out.append(name)
        out.append(" Option (0x")
        out.appendHex(UInt64(option), minimumDigits: 2)
        out.append("), length ")
        out.appendDecimal(length)
    }

    private func bogus(_ rule: StaticString, _ size: Int, into out: inout [UInt8]) {
        out.append(" (length bogus, should be ")
        out.append(rule)
        out.appendDecimal(size)
        out.append(")")
    }

    /// The option's value bytes: `-v` shows them for an option not decoded, `-vv` for every one.
    private func appendOptionBytes(_ cursor: ByteCursor, at p: Int, length: Int, decoded: Bool, into out: inout [UInt8]) {
        if !decoded && options.verbosity < 2 { Self.appendUnknownData(cursor, at: p + 2, length: length - 2, indent: "\n\t    ", into: &out) }
        if options.verbosity > 1 { Self.appendUnknownData(cursor, at: p + 2, length: length - 2, indent: "\n\t    ", into: &out) }
    }

    private func printLCPOption(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int {
        guard let (option, len) = try optionHeader(cursor, at: p, length: length, truncation: "[|lcp]", into: &out) else { return 0 }
        let known = Int(option) < Self.lcpOptionNames.count
        guard len >= 2 else {
            if known {
                appendOptionLine(Self.lcpOptionNames[Int(option)], option, len, into: &out)
                bogus(">= ", 2, into: &out)
            } else {
                out.append("\n\tunknown LCP option 0x")
                out.appendHex(UInt64(option), minimumDigits: 2)
            }
            return 0
        }
        guard known else {
            out.append("\n\tunknown LCP option 0x")
            out.appendHex(UInt64(option), minimumDigits: 2)
            return len
        }
        appendOptionLine(Self.lcpOptionNames[Int(option)], option, len, into: &out)
        var decoded = true
        switch option {
        case 0:
            guard len >= 6 else { bogus(">= ", 6, into: &out); return len }
            let vendor = UInt32(try cursor.u8(p + 2)) << 16 | UInt32(try cursor.u16(p + 3))
            out.append(": Vendor: ")
            out.append(Self.organizationNames.name(vendor, or: "Unknown"))
            out.append(" (")
            out.appendDecimal(vendor)
            out.append(")")
        case 1, 17:
            guard len == 4 else { bogus("= ", 4, into: &out); return option == 1 ? len : 0 }
            let value = try cursor.u16(p + 2)
            out.append(": ")
            out.appendDecimal(value)
        case 2:
            guard len == 6 else { bogus("= ", 6, into: &out); return len }
            let value = try cursor.u32(p + 2)
            out.append(": 0x")
            out.appendHex(UInt64(value), minimumDigits: 8)
        case 3:
            guard len >= 4 else { bogus(">= ", 4, into: &out); return len }
            let proto = try cursor.u16(p + 2)
            out.append(": ")
            out.append(Self.pppProtocolNames.name(UInt32(proto), or: "Unknown Auth Proto (0x04x)"))
            switch proto {
            case 0xC223:
                let algorithm = try cursor.u8(p + 4)
                out.append(", ")
                if let name = Self.authenticationAlgorithmNames.name(UInt32(algorithm)) { out.append(name) } else {
                    out.append("Unknown Auth Alg ")
                    out.appendDecimal(algorithm)
                }
            case 0xC023, 0xC227, 0xC027, 0xC123:
                break
            default:
                Self.appendUnknownData(cursor, at: p, length: len, indent: "\n\t", into: &out)
            }
        case 4:
            guard len >= 4 else { bogus(">= ", 4, into: &out); return 0 }
            out.append(try cursor.u16(p + 2) == 0xC025 ? ": LQR" : ": unknown")
        case 5:
            guard len == 6 else { bogus("= ", 6, into: &out); return 0 }
            let value = try cursor.u32(p + 2)
            out.append(": 0x")
            out.appendHex(UInt64(value), minimumDigits: 8)
        case 7, 8:
            break
        case 23:
            guard len == 4 else { bogus("= ", 4, into: &out); return 0 }
            let value = try cursor.u16(p + 2)
            out.append(": 0x")
            out.appendHex(UInt64(value), minimumDigits: 4)
        case 13:
            guard len >= 3 else { bogus(">= ", 3, into: &out); return 0 }
            out.append(": ")
            let operation = try cursor.u8(p + 2)
            out.append(": Callback Operation ")
            out.append(Self.callbackNames.name(UInt32(operation), or: "Unknown"))
            out.append(" (")
            out.appendDecimal(operation)
            out.append(")")
        case 19:
            guard len >= 3 else { bogus(">= ", 3, into: &out); return 0 }
            let endpointClass = try cursor.u8(p + 2)
            switch endpointClass {
            case 0: out.append(": Null")
            case 1: out.append(": Local")
            case 2:
                guard len == 7 else { bogus("= ", 7, into: &out); return 0 }
                try cursor.check(p + 3, 4)
                out.append(": IPv4 ")
                try appendIPv4Address(cursor, at: p + 3, into: &out)
            case 3:
                guard len == 9 else { bogus("= ", 9, into: &out); return 0 }
                try cursor.check(p + 3, 6)
                out.append(": MAC ")
                appendMAC(cursor, at: p + 3, into: &out)
            case 4: out.append(": Magic-Num-Block")
            case 5: out.append(": PSNDN")
            default:
                out.append(": Unknown class ")
                out.appendDecimal(endpointClass)
            }
        default:
            decoded = false
        }
        appendOptionBytes(cursor, at: p, length: len, decoded: decoded, into: &out)
        return len
    }

    private func printIPCPOption(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int {
        guard let (option, len) = try optionHeader(cursor, at: p, length: length, truncation: "[|ipcp]", into: &out) else { return 0 }
        appendOptionLine(Self.ipcpOptionNames.name(UInt32(option), or: "unknown"), option, len, into: &out)
        guard len >= 2 else {
            bogus(">= ", 2, into: &out)
            return 0
        }
        var decoded = true
        var bytesAt = p
        switch option {
        case 1:
            guard len == 10 else { bogus("= ", 10, into: &out); return len }
            try cursor.check(p + 2, 8)
            out.append(": src ")
            try appendIPv4Address(cursor, at: p + 2, into: &out)
            out.append(", dst ")
            try appendIPv4Address(cursor, at: p + 6, into: &out)
        case 2:
            guard len >= 4 else { bogus(">= ", 4, into: &out); return 0 }
            let compression = try cursor.u16(p + 2)
            out.append(": ")
            out.append(compression == 0x002D ? "VJ-Comp" : compression == 0x0061 ? "IP Header Compression" : "Unknown")
            out.append(" (0x")
            out.appendHex(UInt64(compression), minimumDigits: 2)
            out.append("):")
            guard compression == 0x0061 else { break }
            guard len >= 14 else { bogus(">= ", 14, into: &out); return 0 }
            guard cursor.has(p + 2, 14) else {
                out.append("[|ipcp]")
                return 0
            }
            out.append("\n\t    TCP Space ")
            out.appendDecimal(try cursor.u16(p + 4))
            out.append(", non-TCP Space ")
            out.appendDecimal(try cursor.u16(p + 6))
            out.append(", maxPeriod ")
            out.appendDecimal(try cursor.u16(p + 8))
            out.append(", maxTime ")
            out.appendDecimal(try cursor.u16(p + 10))
            out.append(", maxHdr ")
            out.appendDecimal(try cursor.u16(p + 12))
            guard len > 14 else { break }
            // tcpdump moves its pointer past the fixed part and each suboption, so -vv's bytes
            // start where the suboptions end (and run on into the next options).
            var total = len - 14
            var sub = p + 14
            out.append("\n\t      Suboptions, length ")
            out.appendDecimal(total)
            while total >= 2 {
                guard cursor.has(sub, 2) else {
                    out.append("[|ipcp]")
                    return 0
                }
                let suboption = try cursor.u8(sub)
                let subLength = Int(try cursor.u8(sub + 1))
                if suboption == 0 || subLength == 0 { break }
                out.append("\n\t\t")
                out.append(suboption == 1 ? "RTP-Compression" : suboption == 2 ? "Enhanced RTP-Compression" : "Unknown")
                out.append(" Suboption #")
                out.appendDecimal(suboption)
                out.append(", length ")
                out.appendDecimal(subLength)
                if total < subLength {
                    out.append(" [remaining suboptions length ")
                    out.appendDecimal(total)
                    out.append(" < ")
                    out.appendDecimal(subLength)
                    out.append("] (invalid)")
                    break
                }
                total -= subLength
                sub += subLength
            }
            // tcpdump's pointer moved with the suboptions too.
            bytesAt = sub
        case 3, 4, 129, 130, 131, 132:
            guard len == 6 else { bogus("= ", 6, into: &out); return 0 }
            try cursor.check(p + 2, 4)
            out.append(": ")
            try appendIPv4Address(cursor, at: p + 2, into: &out)
        default:
            decoded = false
        }
        appendOptionBytes(cursor, at: bytesAt, length: len, decoded: decoded, into: &out)
        return len
    }

    private func printCCPOption(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int {
        guard let (option, len) = try optionHeader(cursor, at: p, length: length, truncation: "[|ccp]", into: &out) else { return 0 }
        appendOptionLine(Self.ccpOptionNames.name(UInt32(option), or: "Unknown"), option, len, into: &out)
        guard len >= 2 else {
            bogus(">= ", 2, into: &out)
            return 0
        }
        var decoded = true
        switch option {
        case 21:
            guard len >= 3 else { bogus(">= ", 3, into: &out); return len }
            let byte = try cursor.u8(p + 2)
            out.append(": Version: ")
            out.appendDecimal(byte >> 5)
            out.append(", Dictionary Bits: ")
            out.appendDecimal(byte & 0x1F)
        case 24:
            guard len >= 4 else { bogus(">= ", 4, into: &out); return len }
            let byte = try cursor.u8(p + 2)
            let contexts = try cursor.u8(p + 3)
            out.append(": Features: ")
            out.appendDecimal((byte & 0xC0) >> 6)
            out.append(byte & 0x20 != 0 ? ", PxP: Enabled, History: " : ", PxP: Disabled, History: ")
            out.appendDecimal(byte & 0x1F)
            out.append(", #CTX-ID: ")
            out.appendDecimal(contexts)
        case 26:
            guard len >= 4 else { bogus(">= ", 4, into: &out); return len }
            let first = try cursor.u8(p + 2)
            let second = try cursor.u8(p + 3)
            out.append(": Window: ")
            out.appendDecimal((first & 0xF0) >> 4)
            out.append(first & 0x0F == 8 ? "K, Method: zlib (0x" : "K, Method: unknown (0x")
            out.appendHex(UInt64(first & 0x0F))
            out.append("), MBZ: ")
            out.appendDecimal((second & 0xFC) >> 2)
            out.append(", CHK: ")
            out.appendDecimal(second & 0x03)
        default:
            decoded = false
        }
        appendOptionBytes(cursor, at: p, length: len, decoded: decoded, into: &out)
        return len
    }

    enum SimpleControlProtocol { case ip6cp, bacp }

    /// IP6CP (Interface-ID) and BACP (Favored-Peer): one decoded option each.
    private func printSimpleOption(_ cursor: ByteCursor, at p: Int, length: Int, kind: SimpleControlProtocol, into out: inout [UInt8]) throws(PacketDecodingError) -> Int {
        guard let (option, len) = try optionHeader(cursor, at: p, length: length, truncation: kind == .ip6cp ? "[|ip6cp]" : "[|bacp]", into: &out) else { return 0 }
        let name: StaticString = option == 1 ? (kind == .ip6cp ? "Interface-ID" : "Favored-Peer") : (kind == .ip6cp ? "unknown" : "Unknown")
        appendOptionLine(name, option, len, into: &out)
        guard len >= 2 else {
            bogus(">= ", 2, into: &out)
            return 0
        }
        guard option == 1 else {
            appendOptionBytes(cursor, at: p, length: len, decoded: false, into: &out)
            return len
        }
        switch kind {
        case .ip6cp:
            guard len == 10 else { bogus("= ", 10, into: &out); return len }
            guard cursor.has(p + 2, 8) else {
                out.append("[|ip6cp]")
                return 0
            }
            out.append(": ")
            for index in 0..<4 {
                if index > 0 { out.append(":") }
                out.appendHex(UInt64(try cursor.u16(p + 2 + 2 * index)), minimumDigits: 4)
            }
        case .bacp:
            guard len == 6 else { bogus("= ", 6, into: &out); return len }
            let magic = try cursor.u32(p + 2)
            out.append(": Magic-Num 0x")
            out.appendHex(UInt64(magic), minimumDigits: 8)
        }
        appendOptionBytes(cursor, at: p, length: len, decoded: true, into: &out)
        return len
    }
}
