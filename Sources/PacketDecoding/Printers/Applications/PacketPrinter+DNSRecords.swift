/// DNS resource records (tcpdump 4.99.3's `ns_rprint`) and the type and class names.
extension PacketPrinter {
    /// tcpdump's `ns_rprint`: one resource record at `start` — with `-v` its owner name, then
    /// the class when it is not IN (`(Cache flush)` for mDNS), the TTL with `-vvv`, the type
    /// and the data of the types tcpdump decodes (A, AAAA, A6, NS, CNAME, PTR, DNAME, MX, TXT,
    /// SRV, URI, OPT with its EDNS options, UNSPECA, SOA and TSIG with `-v`).
    ///
    /// Returns the position after the record's data (from its length field, wherever the
    /// printing stopped), the captured end when the fixed fields are not all captured, or nil
    /// when the caller is to print ` [|domain]`.
    func appendResourceRecord(_ cursor: ByteCursor, at start: Int, base: Int, multicast: Bool, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        let verbosity = options.verbosity
        var position: Int
        if verbosity > 0 {
            out.append(" ")
            guard let next = try Self.appendDNSName(cursor, at: start, base: base, into: &out) else { return nil }
            position = next
        } else {
            guard let next = Self.skipDNSName(cursor, at: start) else { return cursor.end }
            position = next
        }
        guard cursor.has(position, 10) else { return cursor.end }
        let type = try cursor.u16(position)
        let rawClass = try cursor.u16(position + 2)
        let recordClass = multicast ? rawClass & 0x7FFF : rawClass
        if recordClass != 1 && type != 41 {
            out.append(" ")
            Self.appendDNSClass(recordClass, into: &out)
        }
        if multicast && rawClass & 0x8000 != 0 { out.append(" (Cache flush)") }
        var optionFlags: UInt16 = 0
        if type == 41 {
            optionFlags = try cursor.u16(position + 6)
        } else if verbosity > 2 {
            out.append(" [")
            out.appendRelativeSeconds(try cursor.u32(position + 4))
            out.append("]")
        }
        let dataLength = Int(try cursor.u16(position + 8))
        position += 10
        let end = position + dataLength
        out.append(" ")
        Self.appendDNSType(type, into: &out)
        if end > cursor.end { return nil }

        switch type {
        case 1:
            guard cursor.has(position, 4) else { return nil }
            out.append(" ")
            try appendIPv4Address(cursor, at: position, into: &out)
        case 2, 5, 12, 39:
            out.append(" ")
            guard try Self.appendDNSName(cursor, at: position, base: base, into: &out) != nil else { return nil }
        case 6:
            guard verbosity > 0 else { break }
            out.append(" ")
            guard let mailbox = try Self.appendDNSName(cursor, at: position, base: base, into: &out) else { return nil }
            out.append(" ")
            guard let numbers = try Self.appendDNSName(cursor, at: mailbox, base: base, into: &out) else { return nil }
            guard cursor.has(numbers, 20) else { return nil }
            for index in 0..<5 {
                out.append(" ")
                out.appendDecimal(try cursor.u32(numbers + 4 * index))
            }
        case 15:
            out.append(" ")
            guard cursor.has(position, 2) else { return nil }
            guard try Self.appendDNSName(cursor, at: position + 2, base: base, into: &out) != nil else { return nil }
            out.append(" ")
            out.appendDecimal(try cursor.u16(position))
        case 16:
            while position < end {
                out.append(" \"")
                guard let next = Self.appendDNSCharacterString(cursor, at: position, into: &out) else { return nil }
                position = next
                out.append("\"")
            }
        case 33:
            out.append(" ")
            guard cursor.has(position, 6) else { return nil }
            guard try Self.appendDNSName(cursor, at: position + 6, base: base, into: &out) != nil else { return nil }
            out.append(":")
            out.appendDecimal(try cursor.u16(position + 4))
            out.append(" ")
            out.appendDecimal(try cursor.u16(position))
            out.append(" ")
            out.appendDecimal(try cursor.u16(position + 2))
        case 28:
            guard cursor.has(position, 16) else { return nil }
            out.append(" ")
            try appendIPv6Address(cursor, at: position, into: &out)
        case 38:
            return try appendA6Data(cursor, at: position, base: base, end: end, into: &out)
        case 256:
            guard cursor.has(position, dataLength) else { return nil }
            // Both read before anything is printed (one printf): a cut weight prints neither.
            let priority = try cursor.u16(position)
            let weight = try cursor.u16(position + 2)
            out.append(" ")
            out.appendDecimal(priority)
            out.append(" ")
            out.appendDecimal(weight)
            out.append(" ")
            // tcpdump passes `len - 4` as an unsigned count: under 4 it prints to the captured end.
            let count = Int(UInt32(truncatingIfNeeded: dataLength - 4))
            guard Self.appendEscapedInCapture(cursor, at: position + 4, count: count, into: &out) else { return nil }
        case 41:
            out.append(" UDPsize=")
            out.appendDecimal(recordClass)
            if optionFlags & 0x8000 != 0 { out.append(" DO") }
            if position < end {
                out.append(" [")
                while position < end {
                    guard let next = try Self.appendEDNSOption(cursor, at: position, into: &out) else { return nil }
                    position = next
                    if position < end { out.append(",") }
                }
                out.append("]")
            }
        case 104:
            guard cursor.has(position, dataLength) else { return nil }
            guard Self.appendEscapedInCapture(cursor, at: position, count: dataLength, into: &out) else { return nil }
        case 250:
            guard verbosity > 0 else { break }
            return try appendTSIGData(cursor, at: position, base: base, end: end, into: &out)
        default:
            break
        }
        return end
    }

    /// The A6 record's data (RFC 2874): prefix length, the address suffix after the prefix's
    /// whole bytes (read unchecked, as tcpdump's `GET_CPY_BYTES`), and the prefix name when the
    /// prefix length is not 0; `N(bad plen)` for a prefix length over 128.
    private func appendA6Data(_ cursor: ByteCursor, at position: Int, base: Int, end: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        guard cursor.has(position, 1) else { return nil }
        let prefixBits = Int(cursor.bytes[position])
        let prefixBytes = (prefixBits & ~7) / 8
        if prefixBits > 128 {
            out.append(" ")
            out.appendDecimal(prefixBits)
            out.append("(bad plen)")
            return end
        }
        if prefixBits < 128 {
            try cursor.check(position + 1, 16 - prefixBytes)
            var high: UInt64 = 0
            var low: UInt64 = 0
            for index in 0..<16 {
                let byte = index < prefixBytes ? 0 : UInt64(cursor.bytes[position + 1 + index - prefixBytes])
                if index < 8 { high = high << 8 | byte } else { low = low << 8 | byte }
            }
            out.append(" ")
            out.appendDecimal(prefixBits)
            out.append(" ")
            out.appendIPv6(high: high, low: low)
        }
        if prefixBits > 0 {
            out.append(" ")
            guard try Self.appendDNSName(cursor, at: position + 1 + 16 - prefixBytes, base: base, into: &out) != nil else { return nil }
        }
        return end
    }

    /// The TSIG record's data with `-v`: algorithm name, then fudge, MAC length, original id,
    /// error and other-data length (the 48-bit time and the MAC are skipped).
    private func appendTSIGData(_ cursor: ByteCursor, at position: Int, base: Int, end: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        out.append(" ")
        guard var field = try Self.appendDNSName(cursor, at: position, base: base, into: &out) else { return nil }
        field += 6
        guard cursor.has(field, 2) else { return nil }
        out.append(" fudge=")
        out.appendDecimal(try cursor.u16(field))
        field += 2
        guard cursor.has(field, 2) else { return nil }
        let macLength = try cursor.u16(field)
        out.append(" maclen=")
        out.appendDecimal(macLength)
        field += 2 + Int(macLength)
        guard cursor.has(field, 2) else { return nil }
        out.append(" origid=")
        out.appendDecimal(try cursor.u16(field))
        field += 2
        guard cursor.has(field, 2) else { return nil }
        out.append(" error=")
        out.appendDecimal(try cursor.u16(field))
        field += 2
        guard cursor.has(field, 2) else { return nil }
        out.append(" otherlen=")
        out.appendDecimal(try cursor.u16(field))
        return end
    }

    /// tcpdump's `ns_class2str`, `(Class N)` for the others.
    static func appendDNSClass(_ value: UInt16, into out: inout [UInt8]) {
        switch value {
        case 1: out.append("IN")
        case 3: out.append("CHAOS")
        case 4: out.append("HS")
        case 255: out.append("ANY")
        default:
            out.append("(Class ")
            out.appendDecimal(value)
            out.append(")")
        }
    }

    /// tcpdump's `ns_type2str`, `Type<N>` for the others.
    static func appendDNSType(_ value: UInt16, into out: inout [UInt8]) {
        if let name = dnsTypeName(value) {
            out.append(name)
        } else {
            out.append("Type")
            out.appendDecimal(value)
        }
    }

    private static func dnsTypeName(_ value: UInt16) -> StaticString? {
        switch value {
        case 1: "A"
        case 2: "NS"
        case 3: "MD"
        case 4: "MF"
        case 5: "CNAME"
        case 6: "SOA"
        case 7: "MB"
        case 8: "MG"
        case 9: "MR"
        case 10: "NULL"
        case 11: "WKS"
        case 12: "PTR"
        case 13: "HINFO"
        case 14: "MINFO"
        case 15: "MX"
        case 16: "TXT"
        case 17: "RP"
        case 18: "AFSDB"
        case 19: "X25"
        case 20: "ISDN"
        case 21: "RT"
        case 22: "NSAP"
        case 23: "NSAP_PTR"
        case 24: "SIG"
        case 25: "KEY"
        case 26: "PX"
        case 27: "GPOS"
        case 28: "AAAA"
        case 29: "LOC"
        case 30: "NXT"
        case 31: "EID"
        case 32: "NIMLOC"
        case 33: "SRV"
        case 34: "ATMA"
        case 35: "NAPTR"
        case 36: "KX"
        case 37: "CERT"
        case 38: "A6"
        case 39: "DNAME"
        case 40: "SINK"
        case 41: "OPT"
        case 42: "APL"
        case 43: "DS"
        case 44: "SSHFP"
        case 45: "IPSECKEY"
        case 46: "RRSIG"
        case 47: "NSEC"
        case 48: "DNSKEY"
        case 99: "SPF"
        case 100: "UINFO"
        case 101: "UID"
        case 102: "GID"
        case 103: "UNSPEC"
        case 104: "UNSPECA"
        case 249: "TKEY"
        case 250: "TSIG"
        case 251: "IXFR"
        case 252: "AXFR"
        case 253: "MAILB"
        case 254: "MAILA"
        case 255: "ANY"
        case 256: "URI"
        default: nil
        }
    }
}
