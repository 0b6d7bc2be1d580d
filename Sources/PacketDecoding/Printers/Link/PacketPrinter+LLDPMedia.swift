/// The ANSI/TIA-1057 (LLDP-MED) and DCBX organisation-specific LLDP TLVs (tcpdump's
/// `lldp_private_tia_print` and `lldp_private_dcbx_print`), `-v` only. Each returns tcpdump's
/// `hexdump` verdict: true when the TLV should also be dumped in hex.
extension PacketPrinter {
    private static let tiaSubtypeNames = NameTable([
        (1, "LLDP-MED Capabilities"), (2, "Network policy"), (3, "Location identification"),
        (4, "Extended power-via-MDI"), (5, "Inventory - hardware revision"), (6, "Inventory - firmware revision"),
        (7, "Inventory - software revision"), (8, "Inventory - serial number"), (9, "Inventory - manufacturer name"),
        (10, "Inventory - model name"), (11, "Inventory - asset ID"),
    ])

    private static let tiaCapabilityNames = NameTable([
        (1 << 0, "LLDP-MED capabilities"), (1 << 1, "network policy"), (1 << 2, "location identification"),
        (1 << 3, "extended power via MDI-PSE"), (1 << 4, "extended power via MDI-PD"), (1 << 5, "Inventory"),
    ])

    private static let tiaDeviceTypeNames = NameTable([
        (1, "endpoint class 1"), (2, "endpoint class 2"), (3, "endpoint class 3"), (4, "network connectivity"),
    ])

    private static let tiaApplicationNames = NameTable([
        (1, "voice"), (2, "voice signaling"), (3, "guest voice"), (4, "guest voice signaling"), (5, "softphone voice"),
        (6, "video conferencing"), (7, "streaming video"), (8, "video signaling"),
    ])

    private static let tiaPolicyFlagNames = NameTable([(1 << 7, "Unknown"), (1 << 6, "Tagged"), (1 << 5, "reserved")])

    private static let tiaLocationFormatNames = NameTable([
        (1, "coordinate-based LCI"), (2, "civic address LCI"), (3, "ECS ELIN"),
    ])

    private static let tiaAltitudeNames = NameTable([(1, "meters"), (2, "floors")])

    private static let tiaDatumNames = NameTable([
        (1, "World Geodesic System 1984"), (2, "North American Datum 1983 (NAVD88)"), (3, "North American Datum 1983 (MLLW)"),
    ])

    private static let tiaCivicTypeNames = NameTable([
        (1, "national subdivisions (state,canton,region,province,prefecture)"), (2, "county, parish, gun, district"),
        (3, "city, township, shi"), (4, "city division, borough, city district, ward chou"), (5, "neighborhood, block"),
        (6, "street"),
    ])

    private static let tiaCivicWhatNames = NameTable([
        (0, "location of DHCP server"), (1, "location of the network element believed to be closest to the client"),
        (2, "location of the client"),
    ])

    private static let tiaPowerSourceNames = NameTable([
        (1, "PSE - primary power source"), (2, "local - backup power source"), (3, "PSE+local - reserved"),
    ])

    private static let tiaPowerPriorityNames = NameTable([(1, "critical"), (2, "high"), (3, "low")])

    private static let tiaInventoryNames = NameTable([
        (5, "Hardware revision"), (6, "Firmware revision"), (7, "Software revision"), (8, "Serial number"),
        (9, "Manufacturer name"), (10, "Model name"), (11, "Asset ID"),
    ])

    private static let dcbxSubtypeNames = NameTable([
        (1, "DCB Capability Exchange Protocol Rev 1"), (2, "DCB Capability Exchange Protocol Rev 1.01"),
    ])

    /// tcpdump's `lldp_private_tia_print`: capabilities, network policy, location, power,
    /// inventory strings.
    func appendLLDPTIA(_ cursor: ByteCursor, at tlv: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard length >= 4 else { return false }
        let subtype = try cursor.u8(tlv + 3)
        appendLLDPSubtype(subtype, Self.tiaSubtypeNames, into: &out)
        switch subtype {
        case 1:
            guard length >= 7 else { return false }
            let capabilities = try cursor.u16(tlv + 4)
            out.append("\n\t    Media capabilities [")
            Self.tiaCapabilityNames.appendBits(UInt32(capabilities), none: "none", into: &out)
            out.append("] (0x")
            out.appendHex(UInt64(capabilities), minimumDigits: 4)
            let device = try cursor.u8(tlv + 6)
            out.append(")\n\t    Device type [")
            out.append(Self.tiaDeviceTypeNames.name(UInt32(device), or: "unknown"))
            out.append("] (0x")
            out.appendHex(UInt64(device), minimumDigits: 2)
            out.append(")")
        case 2:
            guard length >= 8 else { return false }
            let application = try cursor.u8(tlv + 4)
            out.append("\n\t    Application type [")
            out.append(Self.tiaApplicationNames.name(UInt32(application), or: "none"))
            out.append("] (0x")
            out.appendHex(UInt64(application), minimumDigits: 2)
            out.append(")")
            let flags = try cursor.u8(tlv + 5)
            out.append(", Flags [")
            Self.tiaPolicyFlagNames.appendBits(UInt32(flags), none: "none", into: &out)
            out.append("]")
            let vlanField = try cursor.u16(tlv + 5)
            out.append("\n\t    Vlan id ")
            out.appendDecimal((vlanField & 0x1FFE) >> 1)
            let priorityField = try cursor.u16(tlv + 6)
            out.append(", L2 priority ")
            out.appendDecimal((priorityField & 0x01FF) >> 6)
            out.append(", DSCP value ")
            out.appendDecimal(priorityField & 0x003F)
        case 3:
            guard length >= 5 else { return false }
            return try appendLLDPLocation(cursor, at: tlv, length: length, into: &out)
        case 4:
            guard length >= 7 else { return false }
            let field = try cursor.u8(tlv + 4)
            out.append("\n\t    Power type [")
            out.append(field & 0x03 != 0 ? "PD device" : "PSE device")
            out.append("], Power source [")
            out.append(Self.tiaPowerSourceNames.name(UInt32((field & 0x30) >> 4), or: "none"))
            out.append("]\n\t    Power priority [")
            out.append(Self.tiaPowerPriorityNames.name(UInt32(field & 0x0F), or: "none"))
            out.append("] (0x")
            out.appendHex(UInt64(field & 0x0F), minimumDigits: 2)
            out.append(")")
            let power = try cursor.u16(tlv + 5)
            if power < 1024 {
                out.append(", Power ")
                out.appendDecimal(power / 10)
                out.append(".")
                out.appendDecimal(power % 10)
                out.append(" Watts")
            } else {
                out.append(", Power ")
                out.appendDecimal(power)
                out.append(" (Reserved)")
            }
        case 5...11:
            out.append("\n\t  ")
            out.append(Self.tiaInventoryNames.name(UInt32(subtype), or: "unknown"))
            out.append(" ")
            try Self.appendNullPaddedText(cursor, at: tlv + 4, count: length - 4, into: &out)
        default:
            return true
        }
        return false
    }

    /// The location identification subtype: coordinates, civic address elements or ELIN.
    private func appendLLDPLocation(_ cursor: ByteCursor, at tlv: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        let format = try cursor.u8(tlv + 4)
        out.append("\n\t    Location data format ")
        out.append(Self.tiaLocationFormatNames.name(UInt32(format), or: "unknown"))
        out.append(" (0x")
        out.appendHex(UInt64(format), minimumDigits: 2)
        out.append(")")
        func coordinate(_ offset: Int) throws(PacketDecodingError) -> UInt64 {
            UInt64(try cursor.u8(offset) & 0x3) << 32 | UInt64(try cursor.u32(offset + 1))
        }
        switch format {
        case 1:
            guard length >= 21 else { return false }
            let latitudeResolution = try cursor.u8(tlv + 5) >> 2
            let latitude = try coordinate(tlv + 5)
            out.append("\n\t    Latitude resolution ")
            out.appendDecimal(latitudeResolution)
            out.append(", latitude value ")
            out.appendDecimal(latitude)
            let longitudeResolution = try cursor.u8(tlv + 10) >> 2
            let longitude = try coordinate(tlv + 10)
            out.append("\n\t    Longitude resolution ")
            out.appendDecimal(longitudeResolution)
            out.append(", longitude value ")
            out.appendDecimal(longitude)
            let altitudeType = try cursor.u8(tlv + 15) >> 4
            out.append("\n\t    Altitude type ")
            out.append(Self.tiaAltitudeNames.name(UInt32(altitudeType), or: "unknown"))
            out.append(" (")
            out.appendDecimal(altitudeType)
            out.append(")")
            let altitudeResolution = (try cursor.u16(tlv + 15) >> 6) & 0x3F
            let altitude = try cursor.u32(tlv + 16) & 0x3FFF_FFFF
            out.append("\n\t    Altitude resolution ")
            out.appendDecimal(altitudeResolution)
            out.append(", altitude value 0x")
            out.appendHex(UInt64(altitude))
            let datum = try cursor.u8(tlv + 20)
            out.append("\n\t    Datum ")
            out.append(Self.tiaDatumNames.name(UInt32(datum), or: "unknown"))
            out.append(" (0x")
            out.appendHex(UInt64(datum), minimumDigits: 2)
            out.append(")")
        case 2:
            guard length >= 6 else { return false }
            var left = Int(try cursor.u8(tlv + 5))
            guard left >= 3, length >= 7 + left else { return false }
            let what = try cursor.u8(tlv + 6)
            out.append("\n\t    LCI length ")
            out.appendDecimal(left)
            out.append(", LCI what ")
            out.append(Self.tiaCivicWhatNames.name(UInt32(what), or: "unknown"))
            out.append(" (0x")
            out.appendHex(UInt64(what), minimumDigits: 2)
            out.append("), Country-code ")
            try Self.appendNullPaddedText(cursor, at: tlv + 7, count: 2, into: &out)
            left -= 3
            var offset = tlv + 9
            while left > 0 {
                guard left >= 2 else { return false }
                let type = try cursor.u8(offset)
                let elementLength = Int(try cursor.u8(offset + 1))
                offset += 2
                left -= 2
                out.append("\n\t      CA type '")
                out.append(Self.tiaCivicTypeNames.name(UInt32(type), or: "unknown"))
                out.append("' (")
                out.appendDecimal(type)
                out.append("), length ")
                out.appendDecimal(elementLength)
                out.append(": ")
                guard type != 0, elementLength != 0, left >= elementLength else { return false }
                try Self.appendNullPaddedText(cursor, at: offset, count: elementLength, into: &out)
                offset += elementLength
                left -= elementLength
            }
        case 3:
            out.append("\n\t    ECS ELIN id ")
            try Self.appendNullPaddedText(cursor, at: tlv + 5, count: length - 5, into: &out)
        default:
            out.append("\n\t    Location ID ")
            Self.appendUnknownData(cursor, at: tlv + 5, length: length - 5, indent: "\n\t      ", into: &out)
        }
        return false
    }

    /// `Oper_Version`, `Max_Version`, the info block and subtype that start every DCBX feature.
    private func appendDCBXFeatureHeader(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.append("\n\t      Oper_Version: ")
        out.appendDecimal(try cursor.u8(offset))
        out.append("\n\t      Max_Version: ")
        out.appendDecimal(try cursor.u8(offset + 1))
        let info = try cursor.u8(offset + 2)
        out.append("\n\t      Info block(0x")
        Self.appendUppercaseHexByte(info, into: &out)
        out.append("): Enable bit: ")
        out.appendDecimal(info >> 7)
        out.append(", Willing bit: ")
        out.appendDecimal((info >> 6) & 1)
        out.append(", Error Bit: ")
        out.appendDecimal((info >> 5) & 1)
        out.append("\n\t      SubType: ")
        out.appendDecimal(try cursor.u8(offset + 3))
    }

    /// `%02X`.
    private static func appendUppercaseHexByte(_ byte: UInt8, into out: inout [UInt8]) {
        let digits: StaticString = "0123456789ABCDEF"
        digits.withUTF8Buffer { table in
            out.append(table[Int(byte >> 4)])
            out.append(table[Int(byte & 0x0F)])
        }
    }

    /// tcpdump's `lldp_private_dcbx_print` (DCBX 1.01): control, priority groups, priority
    /// flow control and application sub-TLVs. A sub-TLV too short or cut ends the walk quietly.
    func appendLLDPDCBX(_ cursor: ByteCursor, at tlv: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard length >= 4 else { return false }
        let subtype = try cursor.u8(tlv + 3)
        appendLLDPSubtype(subtype, Self.dcbxSubtypeNames, into: &out)
        if subtype == 1 { return true }
        var offset = tlv + 4
        var left = length - 4
        var hexdump = false
        while left >= 2 {
            guard cursor.has(offset, 2) else { return hexdump }
            let header = try cursor.u16(offset)
            let type = Int(header >> 9)
            let subLength = Int(header & 0x1FF)
            hexdump = false
            left -= 2
            offset += 2
            if type == 0 || subLength == 0 { break }
            guard cursor.has(offset, subLength), left >= subLength else { return hexdump }
            switch type {
            case 1:
                guard subLength >= 10 else { return hexdump }
                out.append("\n\t    Control - Protocol Control (type 0x1, length ")
                out.appendDecimal(subLength)
                out.append(")\n\t      Oper_Version: ")
                out.appendDecimal(try cursor.u8(offset))
                out.append("\n\t      Max_Version: ")
                out.appendDecimal(try cursor.u8(offset + 1))
                out.append("\n\t      Sequence Number: ")
                out.appendDecimal(try cursor.u32(offset + 2))
                out.append("\n\t      Acknowledgement Number: ")
                out.appendDecimal(try cursor.u32(offset + 6))
            case 2:
                guard subLength >= 17 else { return hexdump }
                out.append("\n\t    Feature - Priority Group (type 0x2, length ")
                out.appendDecimal(subLength)
                out.append(")")
                try appendDCBXFeatureHeader(cursor, at: offset, into: &out)
                out.append("\n\t      Priority Allocation")
                let groups = try cursor.u32(offset + 4)
                for index in 0..<8 {
                    out.append("\n\t          PgId_")
                    out.appendDecimal(index)
                    out.append(": ")
                    out.appendDecimal((groups >> UInt32(28 - 4 * index)) & 0xF)
                }
                out.append("\n\t      Priority Group Allocation")
                for index in 0..<8 {
                    let percentage = try cursor.u8(offset + 8 + index)
                    out.append("\n\t          Pg percentage[")
                    out.appendDecimal(index)
                    out.append("]: ")
                    out.appendDecimal(percentage)
                }
                out.append("\n\t      NumTCsSupported: ")
                out.appendDecimal(try cursor.u8(offset + 16))
            case 3:
                guard subLength >= 6 else { return hexdump }
                out.append("\n\t    Feature - Priority Flow Control (type 0x3, length ")
                out.appendDecimal(subLength)
                out.append(")")
                try appendDCBXFeatureHeader(cursor, at: offset, into: &out)
                let config = try cursor.u8(offset + 4)
                out.append("\n\t      PFC Config (0x")
                Self.appendUppercaseHexByte(config, into: &out)
                out.append(")")
                for bit in 0..<8 {
                    out.append("\n\t          Priority Bit ")
                    out.appendDecimal(bit)
                    out.append(config & (1 << UInt8(bit)) != 0 ? ": Enabled" : ": Disabled")
                }
                out.append("\n\t      NumTCPFCSupported: ")
                out.appendDecimal(try cursor.u8(offset + 5))
            case 4:
                guard subLength >= 4 else { return hexdump }
                out.append("\n\t    Feature - Application (type 0x4, length ")
                out.appendDecimal(subLength)
                out.append(")")
                try appendDCBXFeatureHeader(cursor, at: offset, into: &out)
                var entries = subLength - 4
                var entry = offset + 4
                while entries >= 6 {
                    let protocolID = try cursor.u16(entry)
                    out.append("\n\t      Application Value\n\t          Application Protocol ID: 0x")
                    out.appendHex(UInt64(protocolID), minimumDigits: 4)
                    let value = UInt32(try cursor.u8(entry + 2)) << 16 | UInt32(try cursor.u16(entry + 3))
                    out.append("\n\t          SF (0x")
                    out.appendHex(UInt64(value >> 22))
                    out.append(value >> 22 != 0 ? ") Application Protocol ID is Socket Number" : ") Application Protocol ID is L2 EtherType")
                    out.append("\n\t          OUI: 0x")
                    out.appendHex(UInt64(value & 0x3F_FFFF), minimumDigits: 6)
                    out.append("\n\t          User Priority Map: 0x")
                    out.appendHex(UInt64(try cursor.u8(entry + 5)), minimumDigits: 2)
                    entries -= 6
                    entry += 6
                }
            default:
                hexdump = true
            }
            if options.verbosity > 1 || (options.verbosity > 0 && hexdump) {
                Self.appendUnknownData(cursor, at: offset, length: subLength, indent: "\n\t    ", into: &out)
            }
            left -= subLength
            offset += subLength
        }
        return hexdump
    }
}
