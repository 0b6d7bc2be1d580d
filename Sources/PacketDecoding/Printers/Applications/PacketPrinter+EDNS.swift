/// EDNS(0) options inside an OPT record's data (tcpdump 4.99.3's `eopt_print` and
/// `print_eopt_ecs`): `[ECS 192.0.2.0/24/0,COOKIE 0102030405060708]`.
extension PacketPrinter {
    /// tcpdump's `eopt_print`: the option at `position` as its name (`Opt<n>` when unknown)
    /// and, when it has data, a space and the data as the option's kind is shown. Returns the
    /// position after the option, or nil (nothing more printed) when its code, length or data
    /// are not all captured.
    static func appendEDNSOption(_ cursor: ByteCursor, at position: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        guard cursor.has(position, 2) else { return nil }
        let code = try cursor.u16(position)
        if let name = ednsOptionName(code) {
            out.append(name)
        } else {
            out.append("Opt")
            out.appendDecimal(code)
        }
        guard cursor.has(position + 2, 2) else { return nil }
        let length = Int(try cursor.u16(position + 2))
        let data = position + 4
        guard cursor.has(data, length) else { return nil }
        guard length > 0 else { return data }
        out.append(" ")
        switch code {
        case 8:
            try appendClientSubnet(cursor, at: data, length: length, into: &out)
        case 10:
            if length < 8 || (length > 8 && length < 16) || length > 40 {
                out.append(" (invalid)")
            } else {
                try Self.appendHexBytes(cursor, at: data, count: 8, into: &out)
                if length > 8 {
                    out.append(" ")
                    try Self.appendHexBytes(cursor, at: data + 8, count: length - 8, into: &out)
                }
            }
        case 11:
            if length != 2 {
                out.append(" (invalid)")
            } else {
                // tcpdump prints the 100 ms units divided by 10.0 with "%0.1f": exact here.
                let units = try cursor.u16(data)
                out.appendDecimal(units / 10)
                out.append(".")
                out.appendDecimal(units % 10)
                out.append(" sec")
            }
        case 9:
            if length != 4 {
                out.append(" (invalid)")
            } else {
                out.appendDecimal(try cursor.u32(data))
                out.append(" sec")
            }
        case 12:
            out.append("(")
            out.appendDecimal(length)
            out.append(")")
        case 14:
            if length % 2 != 0 {
                out.append(" (invalid)")
            } else {
                var index = 0
                while index < length {
                    if index > 0 { out.append(" ") }
                    out.appendDecimal(try cursor.u16(data + index))
                    index += 2
                }
            }
        case 5, 6, 7:
            for index in 0..<length {
                if index > 0 { out.append(" ") }
                let algorithm = try cursor.u8(data + index)
                let name: StaticString? = switch code {
                case 5: dnssecAlgorithmName(algorithm)
                case 6: dsDigestName(algorithm)
                default: algorithm == 1 ? "SHA-1" : nil
                }
                if let name {
                    out.append(name)
                } else {
                    out.append("Alg_")
                    out.appendDecimal(algorithm)
                }
            }
        case 13:
            _ = try appendDNSName(cursor, at: data, base: data + length, into: &out)
        default:
            try Self.appendHexBytes(cursor, at: data, count: length, into: &out)
        }
        return data + length
    }

    /// tcpdump's `print_eopt_ecs`: family, source and scope prefix lengths, then the address
    /// bytes, as `address/source/scope` with the address padded with zeros; ` (invalid)` for a
    /// family other than 1 or 2, too many address bytes, or prefix lengths that do not fit.
    private static func appendClientSubnet(_ cursor: ByteCursor, at data: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard length >= 4 else {
            out.append(" (invalid)")
            return
        }
        let family = try cursor.u16(data)
        let source = Int(try cursor.u8(data + 2))
        let scope = Int(try cursor.u8(data + 3))
        let addressBits: Int
        switch family {
        case 1: addressBits = 32
        case 2: addressBits = 128
        default:
            out.append(" (invalid)")
            return
        }
        let addressBytes = length - 4
        if addressBytes > addressBits / 8 || source > addressBits || scope > addressBits || (source + 7) / 8 != addressBytes {
            out.append(" (invalid)")
            return
        }
        if family == 1 {
            for index in 0..<4 {
                if index > 0 { out.append(".") }
                out.appendDecimal(index < addressBytes ? try cursor.u8(data + 4 + index) : 0)
            }
        } else {
            var high: UInt64 = 0
            var low: UInt64 = 0
            for index in 0..<8 {
                high = high << 8 | UInt64(index < addressBytes ? try cursor.u8(data + 4 + index) : 0)
                low = low << 8 | UInt64(index + 8 < addressBytes ? try cursor.u8(data + 12 + index) : 0)
            }
            out.appendIPv6(high: high, low: low)
        }
        out.append("/")
        out.appendDecimal(source)
        out.append("/")
        out.appendDecimal(scope)
    }

    /// tcpdump's `edns_opt2str`.
    private static func ednsOptionName(_ code: UInt16) -> StaticString? {
        switch code {
        case 1: "LLQ"
        case 2: "UL"
        case 3: "NSID"
        case 5: "DAU"
        case 6: "DHU"
        case 7: "N3U"
        case 8: "ECS"
        case 9: "EXPIRE"
        case 10: "COOKIE"
        case 11: "KEEPALIVE"
        case 12: "PADDING"
        case 13: "CHAIN"
        case 14: "KEY-TAG"
        case 16: "CLIENT-TAG"
        case 17: "SERVER-TAG"
        default: nil
        }
    }

    /// tcpdump's `dau_alg2str` (DNSSEC algorithm numbers).
    private static func dnssecAlgorithmName(_ algorithm: UInt8) -> StaticString? {
        switch algorithm {
        case 0: "DELETE"
        case 1: "RSAMD5"
        case 2: "DH"
        case 3: "DS"
        case 5: "RSASHA1"
        case 6: "DSA-NSEC3-SHA1"
        case 7: "RSASHA1-NSEC3-SHA1"
        case 8: "RSASHA256"
        case 10: "RSASHA512"
        case 12: "ECC-GOST"
        case 13: "ECDSAP256SHA256"
        case 14: "ECDSAP384SHA384"
        case 15: "ED25519"
        case 16: "ED448"
        case 252: "INDIRECT"
        case 253: "PRIVATEDNS"
        case 254: "PRIVATEOID"
        default: nil
        }
    }

    /// tcpdump's `dhu_alg2str` (DS digest types).
    private static func dsDigestName(_ digest: UInt8) -> StaticString? {
        switch digest {
        case 1: "SHA-1"
        case 2: "SHA-256"
        case 3: "GOST_R_34.11-94"
        case 4: "SHA-384"
        default: nil
        }
    }
}
