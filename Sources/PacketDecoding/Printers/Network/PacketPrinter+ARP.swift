/// The ARP printer (tcpdump's `arp_print`): `ARP, Request who-has A tell B, length 28` and the
/// other operations, its generic line for the rest; with `-v` the hardware and protocol types
/// are named and the addresses decoded whatever they are. ATM ARP has its own layout.
extension PacketPrinter {
    /// tcpdump's `arp_print`: `ARP, Request who-has A tell B, length 28` and the other
    /// operations; a header cut by the capture leaves through the longjmp path (` [|arp]`, and
    /// `-X` dumps from byte 0). ATM ARP (hardware type 19) has its own layout.
    mutating func printARP(_ cursor: inout ByteCursor, at arp: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "arp"
        try cursor.check(arp, 8)
        let hardware = try cursor.u16(arp)
        let protocolType = try cursor.u16(arp + 2)
        let operation = try cursor.u16(arp + 6)
        if hardware == 19 {
            try printATMARP(cursor, at: arp, length: length, into: &out)
            return
        }
        let hardwareLength = Int(try cursor.u8(arp + 4))
        let protocolLength = Int(try cursor.u8(arp + 5))
        let senderHardware = arp + 8
        let senderProtocol = senderHardware + hardwareLength
        let targetHardware = senderProtocol + protocolLength
        let targetProtocol = targetHardware + hardwareLength
        try cursor.check(targetProtocol, protocolLength)
        if !options.linkHeader { out.append("ARP, ") }
        let verbose = options.verbosity > 0
        let isIPv4 = Self.isIPv4ARP(protocolType)
        if !isIPv4 || protocolLength != 4 || hardwareLength == 0 || verbose {
            Self.appendARPHardware(hardware, into: &out)
            out.append(" (len ")
            out.appendDecimal(hardwareLength)
            out.append("), ")
            Self.appendARPProtocol(protocolType, into: &out)
            out.append(" (len ")
            out.appendDecimal(protocolLength)
            out.append(")")
            guard verbose else {
                out.append(", length ")
                out.appendDecimal(UInt32(truncatingIfNeeded: length))
                return
            }
            out.append(", ")
        }
        Self.appendARPOperation(operation, into: &out)
        out.append(" ")
        func protocolAddress(_ offset: Int, _ printer: PacketPrinter, _ out: inout [UInt8]) throws(PacketDecodingError) {
            try printer.appendARPProtocolAddress(cursor, at: offset, isIPv4: isIPv4, length: protocolLength, wrongLength: "<wrong len>", into: &out)
        }
        /// A hardware address of this packet's length (`<empty>` for none).
        func hardwareAddress(_ offset: Int, _ out: inout [UInt8]) throws(PacketDecodingError) {
            if hardwareLength == 0 {
                out.append("<empty>")
                return
            }
            try Self.appendLinkAddress(cursor, at: offset, count: hardwareLength, into: &out)
        }
        switch operation {
        case 1:
            out.append("who-has ")
            try protocolAddress(targetProtocol, self, &out)
            if try Self.isNonZero(cursor, at: targetHardware, count: hardwareLength) {
                out.append(" (")
                try hardwareAddress(targetHardware, &out)
                out.append(")")
            }
            out.append(" tell ")
            try protocolAddress(senderProtocol, self, &out)
        case 2:
            try protocolAddress(senderProtocol, self, &out)
            out.append(" is-at ")
            try hardwareAddress(senderHardware, &out)
        case 3, 8:
            out.append("who-is ")
            try hardwareAddress(targetHardware, &out)
            out.append(" tell ")
            try hardwareAddress(senderHardware, &out)
        case 4:
            try hardwareAddress(targetHardware, &out)
            out.append(" at ")
            try protocolAddress(targetProtocol, self, &out)
        case 9:
            try hardwareAddress(senderHardware, &out)
            out.append(" at ")
            try protocolAddress(senderProtocol, self, &out)
        default:
            Self.appendUnconditionalDefaultDump(cursor, from: arp, into: &out)
            return
        }
        out.append(", length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
    }

    /// ATM ARP (RFC 2225): type/length bytes for the ATM number and subaddress instead of one
    /// hardware length.
    private func printATMARP(_ cursor: ByteCursor, at arp: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try cursor.check(arp, 12)
        let hardware = try cursor.u16(arp)
        let protocolType = try cursor.u16(arp + 2)
        let operation = try cursor.u16(arp + 6)
        let senderNumberLength = Int(try cursor.u8(arp + 4) & 0x3F)
        let senderSubaddressLength = Int(try cursor.u8(arp + 5) & 0x3F)
        let senderProtocolLength = Int(try cursor.u8(arp + 8))
        let targetNumberLength = Int(try cursor.u8(arp + 9) & 0x3F)
        let targetSubaddressLength = Int(try cursor.u8(arp + 10) & 0x3F)
        let targetProtocolLength = Int(try cursor.u8(arp + 11))
        let senderNumber = arp + 12
        let senderSubaddress = senderNumber + senderNumberLength
        let senderProtocol = senderSubaddress + senderSubaddressLength
        let targetNumber = senderProtocol + senderProtocolLength
        let targetSubaddress = targetNumber + targetNumberLength
        let targetProtocol = targetSubaddress + targetSubaddressLength
        try cursor.check(targetProtocol, targetProtocolLength)
        if !options.linkHeader { out.append("ARP, ") }
        let verbose = options.verbosity > 0
        let isIPv4 = Self.isIPv4ARP(protocolType)
        if !isIPv4 || senderProtocolLength != 4 || targetProtocolLength != 4 || verbose {
            Self.appendARPHardware(hardware, into: &out)
            out.append(", ")
            Self.appendARPProtocol(protocolType, into: &out)
            out.append(" (len ")
            out.appendDecimal(senderProtocolLength)
            out.append("/")
            out.appendDecimal(targetProtocolLength)
            out.append(")")
            guard verbose else {
                out.append(", length ")
                out.appendDecimal(UInt32(truncatingIfNeeded: length))
                return
            }
            out.append(", ")
        }
        Self.appendARPOperation(operation, into: &out)
        out.append(" ")
        func protocolAddress(_ offset: Int, sender: Bool, _ printer: PacketPrinter, _ out: inout [UInt8]) throws(PacketDecodingError) {
            try printer.appendARPProtocolAddress(cursor, at: offset, isIPv4: isIPv4, length: sender ? senderProtocolLength : targetProtocolLength,
                                                 wrongLength: sender ? "<wrong splen>" : "<wrong tplen>", into: &out)
        }
        /// `NUMBER[,SUBADDRESS]`, or `<No address>`.
        func atmAddress(_ number: Int, _ numberLength: Int, _ subaddress: Int, _ subaddressLength: Int, _ out: inout [UInt8]) throws(PacketDecodingError) {
            guard numberLength != 0 else {
                out.append("<No address>")
                return
            }
            try Self.appendLinkAddress(cursor, at: number, count: numberLength, into: &out)
            if subaddressLength != 0 {
                out.append(",")
                try Self.appendLinkAddress(cursor, at: subaddress, count: subaddressLength, into: &out)
            }
        }
        switch operation {
        case 1:
            out.append("who-has ")
            try protocolAddress(targetProtocol, sender: false, self, &out)
            if targetNumberLength != 0 {
                out.append(" (")
                try atmAddress(targetNumber, targetNumberLength, targetSubaddress, targetSubaddressLength, &out)
                out.append(")")
            }
            out.append(" tell ")
            try protocolAddress(senderProtocol, sender: true, self, &out)
        case 2:
            try protocolAddress(senderProtocol, sender: true, self, &out)
            out.append(" is-at ")
            try atmAddress(senderNumber, senderNumberLength, senderSubaddress, senderSubaddressLength, &out)
        case 8:
            out.append("who-is ")
            try atmAddress(targetNumber, targetNumberLength, targetSubaddress, targetSubaddressLength, &out)
            out.append(" tell ")
            try atmAddress(senderNumber, senderNumberLength, senderSubaddress, senderSubaddressLength, &out)
        case 9:
            try atmAddress(senderNumber, senderNumberLength, senderSubaddress, senderSubaddressLength, &out)
            out.append("at ")
            try protocolAddress(senderProtocol, sender: true, self, &out)
        case 10:
            out.append("for ")
            try protocolAddress(senderProtocol, sender: true, self, &out)
        default:
            Self.appendUnconditionalDefaultDump(cursor, from: arp, into: &out)
            return
        }
        out.append(", length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
    }

    /// tcpdump's `spaddr_print_ip`, `tpaddr_print_ip` and ATM ARP's `atmarp_spaddr_print` and
    /// `atmarp_tpaddr_print`: the IPv4 address at `offset`, `<wrong proto type>` when the
    /// protocol is not IPv4, `wrongLength` when the address is not 4 bytes long.
    private func appendARPProtocolAddress(
        _ cursor: ByteCursor, at offset: Int, isIPv4: Bool, length: Int, wrongLength: StaticString, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        if !isIPv4 {
            out.append("<wrong proto type>")
        } else if length != 4 {
            out.append(wrongLength)
        } else {
            try appendIPv4Address(cursor, at: offset, into: &out)
        }
    }

    /// IPv4 and the trailer-encapsulation type are the protocols whose addresses ARP prints.
    private static func isIPv4ARP(_ protocolType: UInt16) -> Bool {
        protocolType == 0x0800 || protocolType == 0x1000
    }

    private static func appendARPHardware(_ hardware: UInt16, into out: inout [UInt8]) {
        switch hardware {
        case 1: out.append("Ethernet")
        case 6: out.append("TokenRing")
        case 7: out.append("ArcNet")
        case 15: out.append("FrameRelay")
        case 19: out.append("ATM")
        case 23: out.append("Strip")
        case 24: out.append("IEEE 1394")
        case 32: out.append("InfiniBand")
        default:
            out.append("Unknown Hardware (")
            out.appendDecimal(hardware)
            out.append(")")
        }
    }

    private static func appendARPProtocol(_ protocolType: UInt16, into out: inout [UInt8]) {
        if let name = knownEthertypeName(protocolType) {
            out.append(name)
        } else {
            out.append("Unknown Protocol (0x")
            out.appendHex(UInt64(protocolType), minimumDigits: 4)
            out.append(")")
        }
    }

    private static func appendARPOperation(_ operation: UInt16, into out: inout [UInt8]) {
        switch operation {
        case 1: out.append("Request")
        case 2: out.append("Reply")
        case 3: out.append("Reverse Request")
        case 4: out.append("Reverse Reply")
        case 8: out.append("Inverse Request")
        case 9: out.append("Inverse Reply")
        case 10: out.append("NACK Reply")
        default:
            out.append("Unknown (")
            out.appendDecimal(operation)
            out.append(")")
        }
    }

    private static func isNonZero(_ cursor: ByteCursor, at offset: Int, count: Int) throws(PacketDecodingError) -> Bool {
        for index in 0..<count {
            if try cursor.u8(offset + index) != 0 { return true }
        }
        return false
    }
}
