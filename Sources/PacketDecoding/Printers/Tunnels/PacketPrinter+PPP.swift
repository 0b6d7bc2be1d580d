/// PPP as GRE version 1 (PPTP) carries it (tcpdump's `ppp_print` and `handle_ppp`): the
/// address/control and protocol fields, IPv4 and IPv6 payloads, and the control protocols'
/// code, id and length (`handle_ctrl_proto`).
///
/// With `-v`, the options of Configure-Request/Ack/Nak/Reject (LCP, IPCP, IP6CP, CCP, BACP:
/// PacketPrinter+PPPOptions.swift); PAP and CHAP at every verbosity
/// (PacketPrinter+PPPAuthentication.swift).
///
/// Limits: BAP, multilink, IPX, OSI, MPLS and HDLC-escaped payloads print tcpdump's line for
/// unknown protocols instead of theirs.
extension PacketPrinter {
    static let pppProtocolNames = NameTable([
        (0x0021, "IP"), (0x0023, "OSI"), (0x0025, "NS"), (0x0027, "DECNET"), (0x0029, "APPLE"), (0x002B, "IPX"),
        (0x002D, "VJC IP"), (0x002F, "VJNC IP"), (0x0031, "BRPDU"), (0x0033, "STII"), (0x0035, "VINES"),
        (0x0281, "MPLS"), (0x0283, "MPLS"), (0x00FD, "Compressed"), (0x003D, "MLPPP"), (0x0057, "IP6"),
        (0x0201, "HELLO"), (0x0231, "LUXCOM"), (0x0233, "SNS"), (0x8021, "IPCP"), (0x8023, "OSICP"), (0x8025, "NSCP"),
        (0x8027, "DECNETCP"), (0x8029, "APPLECP"), (0x802B, "IPXCP"), (0x8033, "STIICP"), (0x8035, "VINESCP"),
        (0x8057, "IP6CP"), (0x8281, "MPLSCP"), (0xC021, "LCP"), (0xC023, "PAP"), (0xC025, "LQM"), (0xC223, "CHAP"),
        (0xC227, "EAP"), (0xC027, "SPAP"), (0xC123, "Old-SPAP"), (0xC02B, "BACP"), (0xC02D, "BAP"), (0xC03D, "MLPPP-CP"),
        (0x80FD, "CCP"),
    ])

    private static let controlCodeNames = NameTable([
        (0, "Vendor-Extension"), (1, "Conf-Request"), (2, "Conf-Ack"), (3, "Conf-Nack"), (4, "Conf-Reject"),
        (5, "Term-Request"), (6, "Term-Ack"), (7, "Code-Reject"), (8, "Prot-Reject"), (9, "Echo-Request"),
        (10, "Echo-Reply"), (11, "Disc-Req"), (12, "Ident"), (13, "Time-Rem"), (14, "Reset-Req"), (15, "Reset-Ack"),
    ])

    /// tcpdump's `ppp_print` for the frame at `p`, `length` bytes long.
    /// `depth`: the headers enclosing the frame, passed on to the IP printers.
    mutating func printPPP(_ cursor: inout ByteCursor, at p: Int, length: Int, depth: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "ppp"
        guard length >= 2 else { return out.append(" [|ppp]") }
        var offset = p
        var left = length
        switch try cursor.u16(p) {
        case 0x0003, 0x0103, 0xFF03:
            if options.linkHeader {
                let header = try cursor.u16(p)
                if header == 0x0003 { out.append("In  ") }
                if header == 0x0103 { out.append("Out ") }
            }
            offset += 2
            left -= 2
        default:
            break
        }
        guard left >= 2 else { return out.append(" [|ppp]") }
        let proto: UInt16
        if try cursor.u8(offset) % 2 == 1 {
            proto = UInt16(try cursor.u8(offset))
            offset += 1
            left -= 1
        } else {
            proto = try cursor.u16(offset)
            offset += 2
            left -= 2
        }
        if options.linkHeader {
            let name = Self.pppProtocolNames.name(UInt32(proto))
            out.append(name ?? "unknown")
            out.append(" (0x")
            out.appendHex(UInt64(proto), minimumDigits: 4)
            out.append("), length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            guard name != nil else { return }
            out.append(": ")
        }
        switch proto {
        case 0xC021, 0x8021, 0x8023, 0x8281, 0x8057, 0x80FD, 0xC02B:
            try printPPPControl(cursor, proto: proto, at: offset, length: left, into: &out)
        case 0x0800, 0x002F, 0x0021:
            try printIPv4(&cursor, at: offset, length: left, depth: depth, into: &out)
        case 0x86DD, 0x0057:
            try printIPv6(&cursor, at: offset, length: left, depth: depth, into: &out)
        case 0x00FD:
            out.append("compressed PPP data")
        case 0xC023:
            try printPAP(cursor, at: offset, length: left, into: &out)
        case 0xC223:
            try printCHAP(cursor, at: offset, length: left, into: &out)
        default:
            if let name = Self.pppProtocolNames.name(UInt32(proto)) {
                out.append(name)
            } else {
                out.append("unknown PPP protocol (0x")
                out.appendHex(UInt64(proto), minimumDigits: 4)
                out.append(")")
            }
            out.append(" ")
            Self.appendUnknownData(cursor, at: offset, length: left, indent: "\n\t", into: &out)
        }
    }

    /// tcpdump's `handle_ctrl_proto`: `LCP, Echo-Request (0x09), id 1, length 10`; `-v` the
    /// encoded length and the code's fields (magic number, rejected protocol, message).
    private func printPPPControl(_ cursor: ByteCursor, proto: UInt16, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let name = Self.pppProtocolNames.name(UInt32(proto), or: "unknown")
        func truncated(_ out: inout [UInt8]) {
            out.append("[|")
            out.append(name)
            out.append("]")
        }
        out.append(name)
        out.append(", ")
        guard length >= 4, cursor.has(p, 2) else { return truncated(&out) }
        let code = try cursor.u8(p)
        let id = try cursor.u8(p + 1)
        out.append(Self.controlCodeNames.name(UInt32(code), or: "Unknown Opcode"))
        out.append(" (0x")
        out.appendHex(UInt64(code), minimumDigits: 2)
        out.append("), id ")
        out.appendDecimal(id)
        out.append(", length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length + 2))
        guard options.verbosity > 0 else { return }
        let encoded = Int(try cursor.u16(p + 2))
        if encoded < 4 {
            out.append("\n\tencoded length ")
            out.appendDecimal(encoded)
            out.append(" (< 4))")
            return
        }
        if encoded > length {
            out.append("\n\tencoded length ")
            out.appendDecimal(encoded)
            out.append(" (> packet length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            out.append("))")
            return
        }
        out.append("\n\tencoded length ")
        out.appendDecimal(encoded)
        out.append(" (=Option(s) length ")
        out.appendDecimal(encoded - 4)
        out.append(")")
        if encoded == 4 { return }
        if options.verbosity > 1 { Self.appendUnknownData(cursor, at: p - 2, length: 6, indent: "\n\t", into: &out) }
        let data = p + 4
        func magic(_ out: inout [UInt8]) throws(PacketDecodingError) {
            let value = try cursor.u32(data)
            out.append("\n\t  Magic-Num 0x")
            out.appendHex(UInt64(value), minimumDigits: 8)
        }
        switch code {
        case 0:
            guard encoded >= 11 else { break }
            try magic(&out)
            let vendor = UInt32(try cursor.u8(data + 4)) << 16 | UInt32(try cursor.u16(data + 5))
            out.append(" Vendor: ")
            out.append(Self.organizationNames.name(vendor, or: "Unknown"))
            out.append(" (")
            out.appendDecimal(vendor)
            out.append(")")
        case 8:
            guard encoded >= 6 else { break }
            let rejected = try cursor.u16(data)
            out.append("\n\t  Rejected ")
            out.append(Self.pppProtocolNames.name(UInt32(rejected), or: "unknown"))
            out.append(" Protocol (0x")
            out.appendHex(UInt64(rejected), minimumDigits: 4)
            out.append(")")
            if encoded > 6 {
                out.append("\n\t  Rejected Packet")
                Self.appendUnknownData(cursor, at: data + 2, length: encoded - 2, indent: "\n\t    ", into: &out)
            }
        case 9, 10, 11:
            guard encoded >= 8 else { break }
            try magic(&out)
            if encoded > 8 {
                // tcpdump's own marker (see ``trailingDataMarker``).
                out.append(contentsOf: Self.trailingDataMarker.utf8)
                guard cursor.has(data + 4, encoded - 8) else { return truncated(&out) }
                Self.appendUnknownData(cursor, at: data + 4, length: encoded - 8, indent: "\n\t  ", into: &out)
            }
        case 12:
            guard encoded >= 8 else { break }
            try magic(&out)
            if encoded > 8 {
                out.append("\n\t  Message\n\t    ")
                var index = 0
                while index < encoded - 4 {
                    guard cursor.has(data + 4 + index, 1) else { return truncated(&out) }
                    out.appendEscapedCharacter(try cursor.u8(data + 4 + index))
                    index += 1
                }
            }
        case 13:
            guard encoded >= 12 else { break }
            try magic(&out)
            let seconds = try cursor.u32(data + 4)
            out.append(", Seconds-Remaining ")
            out.appendDecimal(seconds)
            out.append("s")
        case 1...4:
            try printPPPOptions(cursor, proto: proto, at: data, encoded: encoded, into: &out)
        case 5...7:
            break
        default:
            if options.verbosity <= 1 { Self.appendUnknownData(cursor, at: p - 2, length: encoded + 2, indent: "\n\t  ", into: &out) }
        }
    }

    /// tcpdump's marker before the bytes that follow a PPP option, written in two pieces only so
    /// that it does not read as a command-line flag (scripts/check-flag-names.py).
    static let trailingDataMarker = "\n\t  -----" + "trailing data-----"
}
