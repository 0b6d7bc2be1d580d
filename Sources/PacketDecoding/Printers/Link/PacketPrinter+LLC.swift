/// IEEE 802.2 LLC and SNAP (tcpdump's `llc_print` and `snap_print`): the LLC header of 802.3
/// frames, the payloads it hands on (STP, IP, SNAP → ethertypes, bridged Ethernet, PVST, CDP,
/// DTP, UDLD), and the `Unnumbered`/`Supervisory`/`Information` lines for the rest.
///
/// Not decoded (tcpdump has printers sockctl lacks): IPX (SAP 0xe0 and raw 802.3 IPX), OSI
/// (SAP 0xfe), Cisco's VTP, bridged Token Ring and FDDI; those frames print the generic LLC or
/// SNAP line and the raw bytes.
extension PacketPrinter {
    private static let sapNames = NameTable([
        (0x00, "Null"), (0xFF, "Global"), (0x02, "802.1B I"), (0x03, "802.1B G"), (0x06, "IP"),
        (0x04, "SNA"), (0x0E, "ProWay NM"), (0x42, "STP"), (0x4E, "RS511"), (0x7E, "ISO8208"),
        (0x8E, "ProWay"), (0xAA, "SNAP"), (0xE0, "IPX"), (0xF0, "NetBeui"), (0xFE, "OSI"),
    ])

    private static let commandNames = NameTable([
        (0x03, "ui"), (0xE3, "test"), (0xAF, "xid"), (0x63, "ua"), (0x43, "disc"), (0x0F, "dm"),
        (0x6F, "sabme"), (0x87, "frmr"),
    ])

    private static let flagNames = NameTable([
        (0x00, "Command"), (0x01, "Response"), (0x10, "Poll"), (0x11, "Final"), (0x100, "Poll"), (0x101, "Final"),
    ])

    private static let supervisoryNames = NameTable([(0, "Receiver Ready"), (1, "Receiver not Ready"), (2, "Reject")])

    private static let ciscoProtocolNames = NameTable([
        (0x2000, "CDP"), (0x2003, "VTP"), (0x2004, "DTP"), (0x0111, "UDLD"), (0x010B, "PVST"), (0x010C, "VLAN Bridge"),
    ])

    private static let bridgedNames = NameTable([
        (0x0001, "Ethernet + FCS"), (0x0007, "Ethernet w/o FCS"), (0x0002, "802.4 + FCS"), (0x0008, "802.4 w/o FCS"),
        (0x0003, "Token Ring + FCS"), (0x0009, "Token Ring w/o FCS"), (0x0004, "FDDI + FCS"), (0x000A, "FDDI w/o FCS"),
        (0x0005, "802.6 + FCS"), (0x000B, "802.6 w/o FCS"), (0x000E, "BPDU"),
    ])

    /// tcpdump's `oui_values`: organisation names.
    static let organizationNames = NameTable([
        (0x000000, "Ethernet"), (0x00000C, "Cisco"), (0x00005E, "IANA"), (0x000081, "Nortel Networks SONMP"),
        (0x0000F8, "Cisco bridged"), (0x0080C2, "Ethernet bridged"), (0x00A03E, "ATM Forum"),
        (0x00E02F, "DOCSIS Spanning Tree"), (0x080007, "Appletalk"), (0x009069, "Juniper"), (0x080009, "Hewlett-Packard"),
        (0x0080C2, "IEEE 802.1 Private"), (0x00120F, "IEEE 802.3 Private"), (0x0012BB, "ANSI/TIA"), (0x001B21, "DCBX"),
        (0x002320, "Nicira Networks"), (0x5C16C7, "Big Switch Networks"), (0xB0D2F5, "Vello Systems"), (0x002481, "HP"),
        (0x0004EA, "HP-Labs"), (0x748771, "Infoblox Inc"), (0xA42305, "Open Networking Lab"), (0x00049F, "Freescale"),
        (0x0015AD, "Netronome"), (0x001018, "Broadcom"), (0x00E004, "PMC-Sierra"), (0xD0F0DB, "Ericsson"),
    ])

    /// tcpdump's `llc_print` for the LLC header at `p` (`length` bytes on the wire from there).
    ///
    /// `macs`: the offset of the Ethernet header whose addresses the line names when `-e` has
    /// not printed them; nil for link types without addresses. Returns tcpdump's value: the
    /// header length, negative when no printer claimed the payload (the caller dumps it).
    /// `depth`: the headers enclosing the frame (see ``printEthernet(_:at:length:depth:into:)``).
    mutating func printLLC(
        _ cursor: inout ByteCursor, at p: Int, length: Int, macs: Int?, depth: Int = 0, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Int {
        protocolName = "llc"
        let caplen = cursor.available(from: p)
        func truncated(_ result: Int, _ out: inout [UInt8]) -> Int {
            out.append(" [|llc]")
            Self.appendUnconditionalDefaultDump(cursor, from: p, into: &out)
            return result
        }
        if caplen < 3 { return truncated(caplen, &out) }
        if length < 3 { return truncated(length, &out) }
        let dsapField = try cursor.u8(p)
        let ssapField = try cursor.u8(p + 1)
        var control = UInt16(try cursor.u8(p + 2))
        let unnumbered = control & 0x03 == 0x03
        var headerLength = 3
        if !unnumbered {
            if caplen < 4 { return truncated(caplen, &out) }
            if length < 4 { return truncated(length, &out) }
            control |= UInt16(try cursor.u8(p + 3)) << 8
            headerLength = 4
        }
        let dsap = dsapField & 0xFE
        let ssap = ssapField & 0xFE
        if options.linkHeader {
            out.append("LLC, dsap ")
            out.append(Self.sapNames.name(UInt32(dsap), or: "Unknown"))
            out.append(" (0x")
            out.appendHex(UInt64(dsap), minimumDigits: 2)
            out.append(dsapField & 1 == 0 ? ") Individual, ssap " : ") Group, ssap ")
            out.append(Self.sapNames.name(UInt32(ssap), or: "Unknown"))
            out.append(" (0x")
            out.appendHex(UInt64(ssap), minimumDigits: 2)
            out.append(ssapField & 1 == 0 ? ") Command, ctrl 0x" : ") Response, ctrl 0x")
            out.appendHex(UInt64(control), minimumDigits: unnumbered ? 2 : 4)
            out.append(": ")
        }
        let body = p + headerLength
        let bodyLength = length - headerLength
        if control == 0x03 && dsap == ssap {
            switch dsap {
            case 0xAA:
                let claimed = try printSNAP(&cursor, at: body, length: bodyLength, macs: macs, bridgePad: 2, depth: depth, into: &out)
                return claimed ? headerLength + 5 : -(headerLength + 5)
            case 0x42:
                try printSTP(cursor, at: body, length: bodyLength, into: &out)
                return headerLength
            case 0x06:
                try printIPv4(&cursor, at: body, length: bodyLength, depth: depth, into: &out)
                return headerLength
            default:
                break
            }
        }
        if !options.linkHeader { appendSAPs(cursor, dsap: dsap, ssap: ssap, macs: macs, into: &out) }
        let flagBits = UInt32(ssapField & 1)
        if unnumbered {
            out.append("Unnumbered, ")
            if let name = Self.commandNames.name(UInt32(control & 0xEF)) {
                out.append(name)
            } else {
                out.appendHex(UInt64(control & 0xEF), minimumDigits: 2)
            }
            out.append(", Flags [")
            out.append(Self.flagNames.name(flagBits | UInt32(control & 0x10), or: "?"))
            out.append("], length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            if control & 0xEF == 0xAF {
                // XID: the format identifier 0x81 announces two bytes worth printing.
                if bodyLength == 0 { return headerLength }
                let bodyCaplen = caplen - headerLength
                if bodyCaplen < 1 {
                    out.append(" [|llc]")
                    return headerLength
                }
                if try cursor.u8(body) == 0x81 {
                    if bodyCaplen < 3 || bodyLength < 3 {
                        out.append(" [|llc]")
                        Self.appendUnconditionalDefaultDump(cursor, from: body, into: &out)
                    } else {
                        out.append(": ")
                        out.appendHex(UInt64(try cursor.u8(body + 1)), minimumDigits: 2)
                        out.append(" ")
                        out.appendHex(UInt64(try cursor.u8(body + 2)), minimumDigits: 2)
                    }
                    return headerLength
                }
            }
        } else if control & 0x01 == 0x01 {
            out.append("Supervisory, ")
            out.append(Self.supervisoryNames.name(UInt32((control >> 2) & 0x03), or: "?"))
            out.append(", rcv seq ")
            out.appendDecimal((control >> 9) & 0x7F)
            out.append(", Flags [")
            out.append(Self.flagNames.name(flagBits | UInt32(control & 0x100), or: "?"))
            out.append("], length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            return headerLength
        } else {
            out.append("Information, send seq ")
            out.appendDecimal((control >> 1) & 0x7F)
            out.append(", rcv seq ")
            out.appendDecimal((control >> 9) & 0x7F)
            out.append(", Flags [")
            out.append(Self.flagNames.name(flagBits | UInt32(control & 0x100), or: "?"))
            out.append("], length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
        }
        return -headerLength
    }

    /// The SAPs without `-e`: `SRC > DST STP ` when both are the same SAP, else
    /// `SRC SSAP > DST DSAP ` (no addresses for link types without them).
    private func appendSAPs(_ cursor: ByteCursor, dsap: UInt8, ssap: UInt8, macs: Int?, into out: inout [UInt8]) {
        func appendSAP(_ sap: UInt8, unknown: StaticString, _ out: inout [UInt8]) {
            if let name = Self.sapNames.name(UInt32(sap)) {
                out.append(name)
            } else {
                out.append(unknown)
                out.appendHex(UInt64(sap), minimumDigits: 2)
            }
        }
        if ssap == dsap {
            if let macs {
                appendMAC(cursor, at: macs + 6, into: &out)
                out.append(" > ")
                appendMAC(cursor, at: macs, into: &out)
                out.append(" ")
            }
            appendSAP(dsap, unknown: "Unknown DSAP 0x", &out)
        } else if let macs {
            appendMAC(cursor, at: macs + 6, into: &out)
            out.append(" ")
            appendSAP(ssap, unknown: "Unknown SSAP 0x", &out)
            out.append(" > ")
            appendMAC(cursor, at: macs, into: &out)
            out.append(" ")
            appendSAP(dsap, unknown: "Unknown DSAP 0x", &out)
        } else {
            appendSAP(ssap, unknown: "Unknown SSAP 0x", &out)
            out.append(" > ")
            appendSAP(dsap, unknown: "Unknown DSAP 0x", &out)
        }
        out.append(" ")
    }

    /// tcpdump's `snap_print` for the SNAP header at `p`: true when a printer claimed the
    /// payload (or the header was cut: ` [|snap]`), false after the `SNAP, …: ` line of a
    /// protocol nobody decodes (the caller dumps it).
    mutating func printSNAP(
        _ cursor: inout ByteCursor, at p: Int, length: Int, macs: Int?, bridgePad: Int, depth: Int = 0, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Bool {
        protocolName = "snap"
        guard cursor.has(p, 5), length >= 5 else {
            out.append(" [|snap]")
            return true
        }
        let organization = UInt32(try cursor.u8(p)) << 16 | UInt32(try cursor.u16(p + 1))
        let pid = try cursor.u16(p + 3)
        let pidName = Self.protocolName(organization: organization, pid: pid)
        if options.linkHeader {
            out.append("oui ")
            out.append(Self.organizationNames.name(organization, or: "Unknown"))
            out.append(" (0x")
            out.appendHex(UInt64(organization), minimumDigits: 6)
            out.append(organization == 0 ? "), ethertype " : "), pid ")
            out.append(pidName)
            out.append(" (0x")
            out.appendHex(UInt64(pid), minimumDigits: 4)
            out.append("), length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length - 5))
            out.append(": ")
        }
        let body = p + 5
        let bodyLength = length - 5
        switch organization {
        case 0x000000, 0x0000F8:
            if try printEthertype(pid, &cursor, at: body, length: bodyLength, depth: depth, into: &out) { return true }
        case 0x00000C:
            switch pid {
            case 0x2000:
                try printCDP(cursor, at: body, length: bodyLength, into: &out)
                return true
            case 0x2004:
                try printDTP(cursor, at: body, length: bodyLength, into: &out)
                return true
            case 0x0111:
                try printUDLD(cursor, at: body, length: bodyLength, into: &out)
                return true
            default:
                break
            }
            if pid == 0x010B || pid == 0x010C {
                try printSTP(cursor, at: body, length: bodyLength, into: &out)
                return true
            }
        case 0x0080C2:
            switch pid {
            case 0x0001, 0x0007:
                guard cursor.has(body, bridgePad) else {
                    out.append(" [|snap]")
                    return true
                }
                try printEthernet(&cursor, at: body + bridgePad, length: bodyLength - bridgePad, depth: depth + 1, into: &out)
                return true
            case 0x000E:
                try printSTP(cursor, at: body, length: bodyLength, into: &out)
                return true
            default:
                break
            }
        default:
            break
        }
        if !options.linkHeader {
            if let macs {
                appendMAC(cursor, at: macs + 6, into: &out)
                out.append(" > ")
                appendMAC(cursor, at: macs, into: &out)
                out.append(" ")
            }
            if organization == 0 {
                out.append("SNAP, ethertype ")
            } else {
                out.append("SNAP, oui ")
                out.append(Self.organizationNames.name(organization, or: "Unknown"))
                out.append(" (0x")
                out.appendHex(UInt64(organization), minimumDigits: 6)
                out.append("), pid ")
            }
            out.append(pidName)
            out.append(" (0x")
            out.appendHex(UInt64(pid), minimumDigits: 4)
            out.append("), length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: bodyLength))
            out.append(": ")
        }
        return false
    }

    /// The protocol ID's name in the table tcpdump's `oui_to_struct_tok` picks for the
    /// organisation: ethertypes, Cisco's protocols, RFC 2684's bridged media; `Unknown`.
    private static func protocolName(organization: UInt32, pid: UInt16) -> StaticString {
        switch organization {
        case 0x000000, 0x0000F8, 0x080007: ethertypeName(pid)
        case 0x00000C: ciscoProtocolNames.name(UInt32(pid), or: "Unknown")
        case 0x0080C2: bridgedNames.name(UInt32(pid), or: "Unknown")
        default: "Unknown"
        }
    }
}
