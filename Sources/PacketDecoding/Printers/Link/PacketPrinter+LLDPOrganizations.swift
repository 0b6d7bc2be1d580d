/// The IEEE 802.1, IEEE 802.3 and IANA organisation-specific LLDP TLVs (tcpdump's
/// `lldp_private_8021_print`, `lldp_private_8023_print`, `lldp_private_iana_print`), `-v` only.
/// Each returns tcpdump's `hexdump` verdict: true when the TLV should also be dumped in hex.
extension PacketPrinter {
    private static let ieee8021SubtypeNames = NameTable([
        (1, "Port VLAN Id"), (2, "Port and Protocol VLAN ID"), (3, "VLAN name"), (4, "Protocol Identity"),
        (7, "Link aggregation"), (8, "Congestion Notification"), (9, "ETS Configuration"), (10, "ETS Recommendation"),
        (11, "Priority Flow Control Configuration"), (12, "Application Priority"), (13, "EVB"), (14, "CDCP"),
    ])

    private static let protocolVLANFlagNames = NameTable([(1 << 1, "supported"), (1 << 2, "enabled")])

    private static let aggregationNames = NameTable([(1 << 0, "supported"), (1 << 1, "enabled")])

    private static let evbModeNames: [StaticString] = ["Not Supported", "EVB Bridge", "EVB Station", "Reserved for future Standardization"]

    private static let ieee8023SubtypeNames = NameTable([
        (1, "MAC/PHY configuration/status"), (2, "Power via MDI"), (3, "Link aggregation"), (4, "Max frame size"),
    ])

    private static let mauTypeNames: [StaticString] = [
        "Unknown", "AUI", "10BASE_5", "FOIRL", "10BASE2", "10BASET duplex mode unknown", "10BASEFP", "10BASEFB",
        "10BASEFL duplex mode unknown", "10BROAD36", "10BASET hdx", "10BASET fdx", "10BASEFL hdx", "10BASEFL fdx",
        "100BASET4", "100BASETX hdx", "100BASETX fdx", "100BASEFX hdx", "100BASEFX fdx", "100BASET2 hdx",
        "100BASET2 fdx", "1000BASEX hdx", "1000BASEX fdx", "1000BASELX hdx", "1000BASELX fdx", "1000BASESX hdx",
        "1000BASESX fdx", "1000BASECX hdx", "1000BASECX fdx", "1000BASET hdx", "1000BASET fdx", "10GBASEX",
        "10GBASELX4", "10GBASER", "10GBASEER", "10GBASELR", "10GBASESR", "10GBASEW", "10GBASEEW", "10GBASELW",
        "10GBASESW",
    ]

    private static let autonegotiationNames = NameTable([(1 << 0, "supported"), (1 << 1, "enabled")])

    private static let pmdCapabilityNames = NameTable([
        (1 << 14, "10BASE-T hdx"), (1 << 13, "10BASE-T fdx"), (1 << 12, "100BASE-T4"), (1 << 11, "100BASE-TX hdx"),
        (1 << 10, "100BASE-TX fdx"), (1 << 9, "100BASE-T2 hdx"), (1 << 8, "100BASE-T2 fdx"), (1 << 7, "Pause for fdx links"),
        (1 << 6, "Asym PAUSE for fdx"), (1 << 5, "Sym PAUSE for fdx"), (1 << 4, "Asym and Sym PAUSE for fdx"),
        (1 << 3, "1000BASE-{X LX SX CX} hdx"), (1 << 2, "1000BASE-{X LX SX CX} fdx"), (1 << 1, "1000BASE-T hdx"),
        (1 << 0, "1000BASE-T fdx"),
    ])

    private static let mdiNames = NameTable([
        (1 << 0, "PSE"), (1 << 1, "supported"), (1 << 2, "enabled"), (1 << 3, "can be controlled"),
    ])

    private static let mdiPowerPairNames = NameTable([(1, "signal"), (2, "spare")])

    private static let ianaSubtypeNames = NameTable([(1, "MUD-URL")])

    private static let mdiPowerClassNames = NameTable([(1, "class0"), (2, "class1"), (3, "class2"), (4, "class3"), (5, "class4")])

    /// `\n\t  NAME Subtype (N)` for the subtype byte at `tlv + 3` (`unknown` for a subtype
    /// `names` lacks), the first line of every organisation-specific TLV tcpdump decodes.
    func appendLLDPSubtype(_ subtype: UInt8, _ names: NameTable, into out: inout [UInt8]) {
        out.append("\n\t  ")
        out.append(names.name(UInt32(subtype), or: "unknown"))
        out.append(" Subtype (")
        out.appendDecimal(subtype)
        out.append(")")
    }

    /// `%-Nd`: `value` left-justified in `width` columns.
    func appendLeftJustified(_ value: UInt32, width: Int, into out: inout [UInt8]) {
        let start = out.count
        out.appendDecimal(value)
        var pad = width - (out.count - start)
        while pad > 0 {
            out.append(" ")
            pad -= 1
        }
    }

    /// The eight bits of `bits`, lowest first, each as `%-2d ` under a priority header.
    private func appendPriorityBits(_ bits: UInt8, into out: inout [UInt8]) {
        out.append("\n\t     Priority : 0  1  2  3  4  5  6  7")
        out.append("\n\t     Value    : ")
        for bit in 0..<8 {
            appendLeftJustified(UInt32((bits >> UInt8(bit)) & 1), width: 2, into: &out)
            out.append(" ")
        }
    }

    /// One ETS table: a title, a header line, and eight `%-3d` values, the `index`th given by
    /// `value` (the caller has checked the bytes it reads were captured).
    private func appendETSTable(
        title: StaticString, header: StaticString, label: StaticString, into out: inout [UInt8], value: (Int) -> UInt8
    ) {
        out.append(title)
        out.append(header)
        out.append(label)
        for index in 0..<8 {
            if index > 0 { out.append(" ") }
            appendLeftJustified(UInt32(value(index)), width: 3, into: &out)
        }
    }

    /// The three ETS tables: priority assignment at `offset` (two 4-bit values a byte),
    /// bandwidth at +4, TSA at +12.
    private func appendETSTables(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try cursor.check(offset, 20)
        let bytes = cursor.bytes
        appendETSTable(title: "\n\t    Priority Assignment Table", header: "\n\t     Priority : 0   1   2   3   4   5   6   7",
                       label: "\n\t     Value    : ", into: &out) { index in
            let byte = bytes[offset + index / 2]
            return index % 2 == 0 ? byte >> 4 : byte & 0x0F
        }
        appendETSTable(title: "\n\t    TC Bandwidth Table", header: "\n\t     TC%   : 0   1   2   3   4   5   6   7",
                       label: "\n\t     Value : ", into: &out) { bytes[offset + 4 + $0] }
        appendETSTable(title: "\n\t    TSA Assignment Table", header: "\n\t     Traffic Class: 0   1   2   3   4   5   6   7",
                       label: "\n\t     Value        : ", into: &out) { bytes[offset + 12 + $0] }
    }

    /// tcpdump's `lldp_private_8021_print` for the TLV value at `tlv` (OUI included).
    func appendLLDP8021(_ cursor: ByteCursor, at tlv: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard length >= 4 else { return false }
        let subtype = try cursor.u8(tlv + 3)
        appendLLDPSubtype(subtype, Self.ieee8021SubtypeNames, into: &out)
        switch subtype {
        case 1:
            guard length >= 6 else { return false }
            out.append("\n\t    port vlan id (PVID): ")
            out.appendDecimal(try cursor.u16(tlv + 4))
        case 2:
            guard length >= 7 else { return false }
            let vlan = try cursor.u16(tlv + 5)
            let flags = try cursor.u8(tlv + 4)
            out.append("\n\t    port and protocol vlan id (PPVID): ")
            out.appendDecimal(vlan)
            out.append(", flags [")
            Self.protocolVLANFlagNames.appendBits(UInt32(flags), none: "none", into: &out)
            out.append("] (0x")
            out.appendHex(UInt64(flags), minimumDigits: 2)
            out.append(")")
        case 3:
            guard length >= 6 else { return false }
            out.append("\n\t    vlan id (VID): ")
            out.appendDecimal(try cursor.u16(tlv + 4))
            guard length >= 7 else { return false }
            let nameLength = Int(try cursor.u8(tlv + 6))
            guard length >= 7 + nameLength else { return false }
            out.append("\n\t    vlan name: ")
            try Self.appendNullPaddedText(cursor, at: tlv + 7, count: nameLength, into: &out)
        case 4:
            guard length >= 5 else { return false }
            let identityLength = Int(try cursor.u8(tlv + 4))
            guard length >= 5 + identityLength else { return false }
            out.append("\n\t    protocol identity: ")
            try Self.appendNullPaddedText(cursor, at: tlv + 5, count: identityLength, into: &out)
        case 7:
            guard length >= 9 else { return false }
            try appendLLDPAggregation(cursor, at: tlv, into: &out)
        case 8:
            guard length >= 6 else { return false }
            out.append("\n\t    Pre-Priority CNPV Indicator")
            appendPriorityBits(try cursor.u8(tlv + 4), into: &out)
            out.append("\n\t    Pre-Priority Ready Indicator")
            appendPriorityBits(try cursor.u8(tlv + 5), into: &out)
        case 9:
            guard length >= 25 else { return false }
            let value = try cursor.u8(tlv + 4)
            out.append("\n\t    Willing:")
            out.appendDecimal(value >> 7)
            out.append(", CBS:")
            out.appendDecimal((value >> 6) & 0x02)
            out.append(", RES:")
            out.appendDecimal((value >> 3) & 0x07)
            out.append(", Max TCs:")
            out.appendDecimal(value & 0x07)
            try appendETSTables(cursor, at: tlv + 5, into: &out)
        case 10:
            guard length >= 25 else { return false }
            out.append("\n\t    RES: ")
            out.appendDecimal(try cursor.u8(tlv + 4))
            try appendETSTables(cursor, at: tlv + 5, into: &out)
        case 11:
            guard length >= 6 else { return false }
            let value = try cursor.u8(tlv + 4)
            out.append("\n\t    Willing: ")
            out.appendDecimal(value >> 7)
            out.append(", MBC: ")
            out.appendDecimal((value >> 6) & 0x01)
            out.append(", RES: ")
            out.appendDecimal((value >> 4) & 0x03)
            out.append(", PFC cap:")
            out.appendDecimal(value & 0x0F)
            out.append(" \n\t    PFC Enable")
            appendPriorityBits(try cursor.u8(tlv + 5), into: &out)
        case 12:
            guard length >= 5 else { return false }
            out.append("\n\t    RES: ")
            out.appendDecimal(try cursor.u8(tlv + 4))
            guard length > 5, (length - 5) % 3 == 0 else { return false }
            out.append("\n\t    Application Priority Table")
            var index = 0
            while index < length - 5 {
                let value = try cursor.u8(tlv + index + 5)
                let protocolID = try cursor.u16(tlv + index + 6)
                out.append("\n\t      Priority: ")
                out.appendDecimal(value >> 5)
                out.append(", RES: ")
                out.appendDecimal((value >> 3) & 0x03)
                out.append(", Sel: ")
                out.appendDecimal(value & 0x07)
                out.append(", Protocol ID: ")
                out.appendDecimal(protocolID)
                index += 3
            }
        case 13:
            guard length >= 9 else { return false }
            try appendLLDPEVB(cursor, at: tlv, into: &out)
        case 14:
            guard length >= 8 else { return false }
            let value = try cursor.u8(tlv + 4)
            out.append("\n\t    Role: ")
            out.appendDecimal(value >> 7)
            out.append(", RES: ")
            out.appendDecimal((value >> 4) & 0x07)
            out.append(", Scomp: ")
            out.appendDecimal((value >> 3) & 0x01)
            out.append(" ")
            out.append("ChnCap: ")
            out.appendDecimal(try cursor.u16(tlv + 6) & 0x0FFF)
            guard (length - 8) % 3 == 0 else { return false }
            var index = 0
            while index < length - 8 {
                let entry = UInt32(try cursor.u8(tlv + index + 8)) << 16 | UInt32(try cursor.u16(tlv + index + 9))
                out.append("\n\t    SCID: ")
                out.appendDecimal(entry >> 12)
                out.append(", SVID: ")
                out.appendDecimal(entry & 0x000FFF)
                index += 3
            }
        default:
            return true
        }
        return false
    }

    /// `aggregation status [supported], aggregation port ID N` (802.1 and 802.3 subtypes).
    private func appendLLDPAggregation(_ cursor: ByteCursor, at tlv: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let status = try cursor.u8(tlv + 4)
        let port = try cursor.u32(tlv + 5)
        out.append("\n\t    aggregation status [")
        Self.aggregationNames.appendBits(UInt32(status), none: "none", into: &out)
        out.append("], aggregation port ID ")
        out.appendDecimal(port)
    }

    /// The 802.1Qbg EVB TLV: bridge and station status, retries, mode, timers.
    private func appendLLDPEVB(_ cursor: ByteCursor, at tlv: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.append("\n\t    EVB Bridge Status")
        var value = try cursor.u8(tlv + 4)
        out.append("\n\t      RES: ")
        out.appendDecimal(value >> 3)
        out.append(", BGID: ")
        out.appendDecimal((value >> 2) & 0x01)
        out.append(", RRCAP: ")
        out.appendDecimal((value >> 1) & 0x01)
        out.append(", RRCTR: ")
        out.appendDecimal(value & 0x01)
        out.append("\n\t    EVB Station Status")
        value = try cursor.u8(tlv + 5)
        out.append("\n\t      RES: ")
        out.appendDecimal(value >> 4)
        out.append(", SGID: ")
        out.appendDecimal((value >> 3) & 0x01)
        out.append(", RRREQ: ")
        out.appendDecimal((value >> 2) & 0x01)
        out.append(",RRSTAT: ")
        out.appendDecimal(value & 0x03)
        value = try cursor.u8(tlv + 6)
        out.append("\n\t    R: ")
        out.appendDecimal(value >> 5)
        out.append(", RTE: ")
        out.appendDecimal(value & 0x1F)
        out.append(", ")
        value = try cursor.u8(tlv + 7)
        out.append("EVB Mode: ")
        out.append(Self.evbModeNames[Int(value >> 6)])
        out.append(" [")
        out.appendDecimal(value >> 6)
        out.append("]\n\t    ROL: ")
        out.appendDecimal((value >> 5) & 0x01)
        out.append(", RWD: ")
        out.appendDecimal(value & 0x1F)
        out.append(", ")
        value = try cursor.u8(tlv + 8)
        out.append("RES: ")
        out.appendDecimal(value >> 6)
        out.append(", ROL: ")
        out.appendDecimal((value >> 5) & 0x01)
        out.append(", RKA: ")
        out.appendDecimal(value & 0x1F)
    }

    /// tcpdump's `lldp_private_8023_print`: MAC/PHY, power via MDI, aggregation, frame size.
    func appendLLDP8023(_ cursor: ByteCursor, at tlv: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard length >= 4 else { return false }
        let subtype = try cursor.u8(tlv + 3)
        appendLLDPSubtype(subtype, Self.ieee8023SubtypeNames, into: &out)
        switch subtype {
        case 1:
            guard length >= 9 else { return false }
            let autonegotiation = try cursor.u8(tlv + 4)
            out.append("\n\t    autonegotiation [")
            Self.autonegotiationNames.appendBits(UInt32(autonegotiation), none: "none", into: &out)
            out.append("] (0x")
            out.appendHex(UInt64(autonegotiation), minimumDigits: 2)
            let pmd = try cursor.u16(tlv + 5)
            out.append(")\n\t    PMD autoneg capability [")
            Self.pmdCapabilityNames.appendBits(UInt32(pmd), none: "unknown", into: &out)
            out.append("] (0x")
            out.appendHex(UInt64(pmd), minimumDigits: 4)
            let mau = try cursor.u16(tlv + 7)
            out.append(")\n\t    MAU type ")
            out.append(Int(mau) < Self.mauTypeNames.count ? Self.mauTypeNames[Int(mau)] : "unknown")
            out.append(" (0x")
            out.appendHex(UInt64(mau), minimumDigits: 4)
            out.append(")")
        case 2:
            guard length >= 7 else { return false }
            let support = try cursor.u8(tlv + 4)
            let pair = try cursor.u8(tlv + 5)
            let powerClass = try cursor.u8(tlv + 6)
            out.append("\n\t    MDI power support [")
            Self.mdiNames.appendBits(UInt32(support), none: "none", into: &out)
            out.append("], power pair ")
            out.append(Self.mdiPowerPairNames.name(UInt32(pair), or: "unknown"))
            out.append(", power class ")
            out.append(Self.mdiPowerClassNames.name(UInt32(powerClass), or: "unknown"))
        case 3:
            guard length >= 9 else { return false }
            try appendLLDPAggregation(cursor, at: tlv, into: &out)
        case 4:
            guard length >= 6 else { return false }
            out.append("\n\t    MTU size ")
            out.appendDecimal(try cursor.u16(tlv + 4))
        default:
            return true
        }
        return false
    }

    /// tcpdump's `lldp_private_iana_print`: the MUD URL (RFC 8520).
    func appendLLDPIANA(_ cursor: ByteCursor, at tlv: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard length >= 8 else { return false }
        let subtype = try cursor.u8(tlv + 3)
        appendLLDPSubtype(subtype, Self.ianaSubtypeNames, into: &out)
        guard subtype == 1 else { return true }
        out.append("\n\t  MUD-URL=")
        try Self.appendEscaped(cursor, at: tlv + 4, count: length - 4, into: &out)
        return false
    }
}
