/// LLDP (tcpdump's `lldp_print`, ethertype 0x88cc): `LLDP, length N` and the system name;
/// `-v` one block per TLV (chassis and port IDs, TTL, descriptions, capabilities, management
/// addresses, the organisation-specific TLVs in PacketPrinter+LLDPOrganizations.swift), `-vv` a
/// hex dump of every TLV. A TLV running past the capture or the frame prints ` [|lldp]`.
extension PacketPrinter {
    private static let lldpTLVNames = NameTable([
        (0, "End"), (1, "Chassis ID"), (2, "Port ID"), (3, "Time to Live"), (4, "Port Description"),
        (5, "System Name"), (6, "System Description"), (7, "System Capabilities"), (8, "Management Address"),
        (127, "Organization specific"),
    ])

    private static let chassisSubtypeNames = NameTable([
        (1, "Chassis component"), (2, "Interface alias"), (3, "Port component"), (4, "MAC address"),
        (5, "Network address"), (6, "Interface name"), (7, "Local"),
    ])

    private static let portSubtypeNames = NameTable([
        (1, "Interface alias"), (2, "Port component"), (3, "MAC address"), (4, "Network Address"),
        (5, "Interface Name"), (6, "Agent circuit ID"), (7, "Local"),
    ])

    private static let capabilityNames = NameTable([
        (1 << 0, "Other"), (1 << 1, "Repeater"), (1 << 2, "Bridge"), (1 << 3, "WLAN AP"), (1 << 4, "Router"),
        (1 << 5, "Telephone"), (1 << 6, "Docsis"), (1 << 7, "Station Only"),
    ])

    private static let interfaceNumberingNames = NameTable([(2, "Interface Index"), (3, "System Port Number")])

    /// tcpdump's `af_values`: address family numbers.
    private static let addressFamilyNames = NameTable([
        (0, "Reserved"), (1, "IPv4"), (2, "IPv6"), (3, "NSAP"), (4, "HDLC"), (5, "BBN 1822"), (6, "802"),
        (7, "E.163"), (8, "E.164"), (9, "F.69"), (10, "X.121"), (11, "Novell IPX"), (12, "Appletalk"),
        (13, "Decnet IV"), (14, "Banyan Vines"), (15, "E.164 with NSAP subaddress"), (196, "Layer-2 VPN"), (25, "VPLS"),
    ])

    /// tcpdump's `lldp_print` for the LLDPDU at `p`, `length` bytes long (the Ethernet payload,
    /// padding included).
    mutating func printLLDP(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "lldp"
        let verbose = options.verbosity > 0
        out.append("LLDP, length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
        var offset = p
        var left = length
        while left >= 2 {
            guard cursor.has(offset, 2) else { return out.append(" [|lldp]") }
            let header = try cursor.u16(offset)
            let type = Int(header >> 9)
            let tlvLength = Int(header & 0x1FF)
            left -= 2
            offset += 2
            if verbose {
                out.append("\n\t")
                out.append(Self.lldpTLVNames.name(UInt32(type), or: "Unknown"))
                out.append(" TLV (")
                out.appendDecimal(type)
                out.append("), length ")
                out.appendDecimal(tlvLength)
            }
            if type == 0 || tlvLength == 0 { break }
            guard cursor.has(offset, tlvLength), left >= tlvLength else { return out.append(" [|lldp]") }
            var hexdump = false
            switch type {
            case 1, 2:
                guard verbose else { break }
                guard tlvLength >= 2 else { return out.append(" [|lldp]") }
                let subtype = try cursor.u8(offset)
                let names = type == 1 ? Self.chassisSubtypeNames : Self.portSubtypeNames
                out.append("\n\t  Subtype ")
                out.append(names.name(UInt32(subtype), or: "Unknown"))
                out.append(" (")
                out.appendDecimal(subtype)
                out.append("): ")
                switch (type, subtype) {
                case (1, 4), (2, 3):
                    guard tlvLength >= 7 else { return out.append(" [|lldp]") }
                    appendMAC(cursor, at: offset + 1, into: &out)
                case (1, 1), (1, 2), (1, 3), (1, 6), (1, 7), (2, 1), (2, 2), (2, 5), (2, 6), (2, 7):
                    try Self.appendNullPaddedText(cursor, at: offset + 1, count: tlvLength - 1, into: &out)
                case (1, 5), (2, 4):
                    guard try appendLLDPNetworkAddress(cursor, at: offset + 1, length: tlvLength - 1, into: &out) else {
                        return out.append(" [|lldp]")
                    }
                default:
                    hexdump = true
                }
            case 3:
                guard verbose else { break }
                guard tlvLength >= 2 else { return out.append(" [|lldp]") }
                out.append(": TTL ")
                out.appendDecimal(try cursor.u16(offset))
                out.append("s")
            case 4:
                guard verbose else { break }
                out.append(": ")
                try Self.appendNullPaddedText(cursor, at: offset, count: tlvLength, into: &out)
            case 5:
                out.append(": ")
                try Self.appendNullPaddedText(cursor, at: offset, count: tlvLength, into: &out)
            case 6:
                guard verbose else { break }
                out.append("\n\t  ")
                try Self.appendNullPaddedText(cursor, at: offset, count: tlvLength, into: &out)
            case 7:
                guard verbose else { break }
                guard tlvLength >= 4 else { return out.append(" [|lldp]") }
                let capabilities = try cursor.u16(offset)
                let enabled = try cursor.u16(offset + 2)
                out.append("\n\t  System  Capabilities [")
                Self.capabilityNames.appendBits(UInt32(capabilities), none: "none", into: &out)
                out.append("] (0x")
                out.appendHex(UInt64(capabilities), minimumDigits: 4)
                out.append(")\n\t  Enabled Capabilities [")
                Self.capabilityNames.appendBits(UInt32(enabled), none: "none", into: &out)
                out.append("] (0x")
                out.appendHex(UInt64(enabled), minimumDigits: 4)
                out.append(")")
            case 8:
                guard verbose else { break }
                guard try appendLLDPManagementAddress(cursor, at: offset, length: tlvLength, into: &out) else {
                    return out.append(" [|lldp]")
                }
            case 127:
                guard verbose else { break }
                guard tlvLength >= 3 else { return out.append(" [|lldp]") }
                let organization = UInt32(try cursor.u8(offset)) << 16 | UInt32(try cursor.u16(offset + 1))
                out.append(": OUI ")
                out.append(Self.organizationNames.name(organization, or: "Unknown"))
                out.append(" (0x")
                out.appendHex(UInt64(organization), minimumDigits: 6)
                out.append(")")
                switch organization {
                case 0x0080C2: hexdump = try appendLLDP8021(cursor, at: offset, length: tlvLength, into: &out)
                case 0x00120F: hexdump = try appendLLDP8023(cursor, at: offset, length: tlvLength, into: &out)
                case 0x00005E: hexdump = try appendLLDPIANA(cursor, at: offset, length: tlvLength, into: &out)
                case 0x0012BB: hexdump = try appendLLDPTIA(cursor, at: offset, length: tlvLength, into: &out)
                case 0x001B21: hexdump = try appendLLDPDCBX(cursor, at: offset, length: tlvLength, into: &out)
                default: hexdump = true
                }
            default:
                hexdump = true
            }
            if options.verbosity > 1 || (verbose && hexdump) {
                Self.appendUnknownData(cursor, at: offset, length: tlvLength, indent: "\n\t  ", into: &out)
            }
            left -= tlvLength
            offset += tlvLength
        }
    }

    /// False when `length` bytes cannot hold a family number and the address it announces
    /// (tcpdump's `lldp_network_addr_print` returning NULL).
    private func lldpNetworkAddressFits(_ cursor: ByteCursor, at offset: Int, length: Int) throws(PacketDecodingError) -> Bool {
        guard length >= 1 else { return false }
        switch try cursor.u8(offset) {
        case 1: return length - 1 >= 4
        case 2: return length - 1 >= 16
        case 6: return length - 1 >= 6
        default: return true
        }
    }

    /// tcpdump's `lldp_network_addr_print`: `AFI IPv4 (1): 192.0.2.1`, or
    /// `AFI … (N), no AF printer !`; false when the address is shorter than its family needs.
    private func appendLLDPNetworkAddress(_ cursor: ByteCursor, at offset: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard try lldpNetworkAddressFits(cursor, at: offset, length: length) else { return false }
        let family = try cursor.u8(offset)
        out.append("AFI ")
        out.append(Self.addressFamilyNames.name(UInt32(family), or: "Unknown"))
        out.append(" (")
        out.appendDecimal(family)
        switch family {
        case 1:
            out.append("): ")
            try appendIPv4Address(cursor, at: offset + 1, into: &out)
        case 2:
            out.append("): ")
            try appendIPv6Address(cursor, at: offset + 1, into: &out)
        case 6:
            out.append("): ")
            appendMAC(cursor, at: offset + 1, into: &out)
        default:
            out.append("), no AF printer !")
        }
        return true
    }

    /// tcpdump's `lldp_mgmt_addr_tlv_print`: the address, the interface numbering and an
    /// optional OID; false when the TLV is too short for what it announces.
    private func appendLLDPManagementAddress(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard length >= 1 else { return false }
        let addressLength = Int(try cursor.u8(p))
        var offset = p + 1
        var left = length - 1
        guard left >= addressLength else { return false }
        guard try lldpNetworkAddressFits(cursor, at: offset, length: addressLength) else { return false }
        out.append("\n\t  Management Address length ")
        out.appendDecimal(addressLength)
        out.append(", ")
        _ = try appendLLDPNetworkAddress(cursor, at: offset, length: addressLength, into: &out)
        offset += addressLength
        left -= addressLength
        guard left >= 5 else { return false }
        let numbering = try cursor.u8(offset)
        let interface = try cursor.u32(offset + 1)
        out.append("\n\t  ")
        out.append(Self.interfaceNumberingNames.name(UInt32(numbering), or: "Unknown"))
        out.append(" Interface Numbering (")
        out.appendDecimal(numbering)
        out.append("): ")
        out.appendDecimal(interface)
        offset += 5
        left -= 5
        if left > 0 {
            let oidLength = Int(try cursor.u8(offset))
            guard left >= 1 + oidLength else { return false }
            if oidLength > 0 {
                out.append("\n\t  OID length ")
                out.appendDecimal(oidLength)
                try Self.appendNullPaddedText(cursor, at: offset + 1, count: oidLength, into: &out)
            }
        }
        return true
    }
}
