/// Spanning-tree BPDUs (tcpdump's `stp_print`): 802.1D configuration and topology-change
/// BPDUs, 802.1w RSTP, 802.1s MSTP with its MSTIs and 802.1aq SPB, `-v` adding the timers,
/// root and MST configuration. A BPDU shorter than its version needs prints ` (invalid)`; a
/// read past the capture ends in ` [|stp]`.
extension PacketPrinter {
    private static let stpVersionNames = NameTable([(0, "802.1d"), (2, "802.1w"), (3, "802.1s"), (4, "802.1aq")])

    private static let bpduTypeNames = NameTable([(0x00, "Config"), (0x02, "Rapid STP"), (0x80, "Topology Change")])

    private static let bpduFlagNames = NameTable([
        (0x01, "Topology change"), (0x02, "Proposal"), (0x10, "Learn"), (0x20, "Forward"), (0x40, "Agreement"),
        (0x80, "Topology change ACK"),
    ])

    private static let portRoleNames: [StaticString] = ["Unknown", "Alternate", "Root", "Designated"]

    /// tcpdump's `stp_print` for the BPDU at `p`, `length` bytes long.
    mutating func printSTP(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "stp"
        let invalid: StaticString = " (invalid)"
        guard length >= 4 else {
            out.append(invalid)
            return
        }
        if try cursor.u16(p) != 0 {
            out.append("unknown STP version, length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            return
        }
        let version = try cursor.u8(p + 2)
        out.append("STP ")
        if let name = Self.stpVersionNames.name(UInt32(version)) {
            out.append(name)
        } else {
            out.append("Unknown STP protocol (0x")
            out.appendHex(UInt64(version), minimumDigits: 2)
            out.append(")")
            return
        }
        let type = try cursor.u8(p + 3)
        out.append(", ")
        if let name = Self.bpduTypeNames.name(UInt32(type)) {
            out.append(name)
        } else {
            out.append("Unknown BPDU Type (0x")
            out.appendHex(UInt64(type), minimumDigits: 2)
            out.append(")")
        }
        switch type {
        case 0x00:
            guard length >= 35 else { return out.append(invalid) }
            try appendConfigBPDU(cursor, at: p, length: length, into: &out)
        case 0x02 where version == 2:
            guard length >= 36 else { return out.append(invalid) }
            try appendConfigBPDU(cursor, at: p, length: length, into: &out)
        case 0x02 where version == 3 || version == 4:
            guard length >= 102, try cursor.u8(p + 35) == 0 else { return out.append(invalid) }
            let mstpLength = Int(try cursor.u16(p + 36)) + 2
            guard length >= 36 + mstpLength else { return out.append(invalid) }
            try appendMSTPBPDU(cursor, at: p, length: length, into: &out)
            if version == 4 {
                let spbLength = Int(try cursor.u16(p + 36 + mstpLength)) + 2
                guard length >= 36 + mstpLength + spbLength, spbLength >= 87 else { return out.append(invalid) }
                try appendSPBBPDU(cursor, at: p + 36 + mstpLength, into: &out)
            }
        default:
            break
        }
    }

    /// `pppp.aa:bb:cc:dd:ee:ff`: a bridge ID's priority and MAC address.
    private static func appendBridgeID(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try cursor.check(offset, 8)
        for index in 0..<8 {
            if index == 2 {
                out.append(".")
            } else if index > 2 {
                out.append(":")
            }
            out.appendHex(UInt64(cursor.bytes[offset + index]), minimumDigits: 2)
        }
    }

    /// A timer in 1/256 s as `%.2fs` prints it: rounded to hundredths, ties to even.
    private static func appendSeconds(_ value: UInt16, into out: inout [UInt8]) {
        let scaled = UInt32(value) * 25
        var hundredths = scaled / 64
        let remainder = scaled % 64
        if remainder > 32 || (remainder == 32 && hundredths % 2 == 1) { hundredths += 1 }
        out.appendDecimal(hundredths / 100)
        out.append(".")
        out.appendDecimal(UInt64(hundredths % 100), minimumDigits: 2)
        out.append("s")
    }

    /// `\n\tmessage-age 1.00s, max-age 20.00s, hello-time 2.00s, forwarding-delay 15.00s`.
    private static func appendTimers(_ cursor: ByteCursor, at p: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let messageAge = try cursor.u16(p + 27)
        let maxAge = try cursor.u16(p + 29)
        let hello = try cursor.u16(p + 31)
        let forwardDelay = try cursor.u16(p + 33)
        out.append("\n\tmessage-age ")
        appendSeconds(messageAge, into: &out)
        out.append(", max-age ")
        appendSeconds(maxAge, into: &out)
        out.append(", hello-time ")
        appendSeconds(hello, into: &out)
        out.append(", forwarding-delay ")
        appendSeconds(forwardDelay, into: &out)
    }

    /// tcpdump's `stp_print_config_bpdu`: flags, bridge and port; `-v` the timers and root.
    ///
    /// Like tcpdump's `ND_PRINT`, which reads all its arguments first, each piece of text is
    /// printed only once every field it shows was found captured.
    private func appendConfigBPDU(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let flags = try cursor.u8(p + 4)
        out.append(", Flags [")
        Self.bpduFlagNames.appendBits(UInt32(flags), none: "none", into: &out)
        out.append("]")
        try cursor.check(p + 17, 10)
        out.append(", bridge-id ")
        try Self.appendBridgeID(cursor, at: p + 17, into: &out)
        out.append(".")
        out.appendHex(UInt64(try cursor.u16(p + 25)), minimumDigits: 4)
        out.append(", length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
        guard options.verbosity > 0 else { return }
        try Self.appendTimers(cursor, at: p, into: &out)
        try cursor.check(p + 5, 12)
        out.append("\n\troot-id ")
        try Self.appendBridgeID(cursor, at: p + 5, into: &out)
        out.append(", root-pathcost ")
        out.appendDecimal(try cursor.u32(p + 13))
        if try cursor.u8(p + 2) == 2 {
            out.append(", port-role ")
            out.append(Self.portRoleNames[Int((flags & 0x0C) >> 2)])
        }
    }

    /// tcpdump's `stp_print_mstp_bpdu`: the CIST flags; `-v` the CIST, the MST configuration
    /// identifier and each MSTI.
    private func appendMSTPBPDU(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let flags = try cursor.u8(p + 4)
        out.append(", CIST Flags [")
        Self.bpduFlagNames.appendBits(UInt32(flags), none: "none", into: &out)
        out.append("], length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
        guard options.verbosity > 0 else { return }
        out.append("\n\tport-role ")
        out.append(Self.portRoleNames[Int((flags & 0x0C) >> 2)])
        out.append(", ")
        try cursor.check(p + 5, 12)
        out.append("CIST root-id ")
        try Self.appendBridgeID(cursor, at: p + 5, into: &out)
        out.append(", CIST ext-pathcost ")
        out.appendDecimal(try cursor.u32(p + 13))
        try cursor.check(p + 17, 8)
        out.append("\n\tCIST regional-root-id ")
        try Self.appendBridgeID(cursor, at: p + 17, into: &out)
        out.append(", ")
        let port = try cursor.u16(p + 25)
        out.append("CIST port-id ")
        out.appendHex(UInt64(port), minimumDigits: 4)
        out.append(",")
        try Self.appendTimers(cursor, at: p, into: &out)
        let v3Length = try cursor.u16(p + 36)
        out.append("\n\tv3len ")
        out.appendDecimal(v3Length)
        out.append(", MCID Name ")
        try Self.appendNullPaddedText(cursor, at: p + 39, count: 32, into: &out)
        try cursor.check(p + 71, 18)
        out.append(", rev ")
        out.appendDecimal(try cursor.u16(p + 71))
        out.append(",\n\t\tdigest ")
        try appendHexWords(cursor, at: p + 73, count: 4, into: &out)
        out.append(", ")
        let internalCost = try cursor.u32(p + 89)
        out.append("CIST int-root-pathcost ")
        out.appendDecimal(internalCost)
        out.append(",")
        try cursor.check(p + 93, 8)
        out.append("\n\tCIST bridge-id ")
        try Self.appendBridgeID(cursor, at: p + 93, into: &out)
        out.append(", ")
        let hops = try cursor.u8(p + 101)
        out.append("CIST remaining-hops ")
        out.appendDecimal(hops)
        guard v3Length > 64 else { return }
        var left = Int(v3Length) - 64
        var offset = p + 102
        while left >= 16 {
            let msti = try cursor.u16(offset + 1) & 0x0FFF
            let mstiFlags = try cursor.u8(offset)
            out.append("\n\tMSTI ")
            out.appendDecimal(msti)
            out.append(", Flags [")
            Self.bpduFlagNames.appendBits(UInt32(mstiFlags), none: "none", into: &out)
            out.append("], port-role ")
            out.append(Self.portRoleNames[Int((mstiFlags & 0x0C) >> 2)])
            try cursor.check(offset + 1, 12)
            out.append("\n\t\tMSTI regional-root-id ")
            try Self.appendBridgeID(cursor, at: offset + 1, into: &out)
            out.append(", pathcost ")
            out.appendDecimal(try cursor.u32(offset + 9))
            try cursor.check(offset + 13, 3)
            out.append("\n\t\tMSTI bridge-prio ")
            out.appendDecimal(try cursor.u8(offset + 13) >> 4)
            out.append(", port-prio ")
            out.appendDecimal(try cursor.u8(offset + 14) >> 4)
            out.append(", hops ")
            out.appendDecimal(try cursor.u8(offset + 15))
            left -= 16
            offset += 16
        }
    }

    /// tcpdump's `stp_print_spb_bpdu` (`-v` only): the auxiliary MCID and the agreement.
    private func appendSPBBPDU(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard options.verbosity > 0 else { return }
        let v4Length = try cursor.u16(offset)
        out.append("\n\tv4len ")
        out.appendDecimal(v4Length)
        out.append(", AUXMCID Name ")
        try Self.appendNullPaddedText(cursor, at: offset + 3, count: 32, into: &out)
        try cursor.check(offset + 35, 18)
        out.append(", Rev ")
        out.appendDecimal(try cursor.u16(offset + 35))
        out.append(",\n\t\tdigest ")
        try appendHexWords(cursor, at: offset + 37, count: 4, into: &out)
        try cursor.check(offset + 53, 34)
        let agreement = try cursor.u8(offset + 53)
        let format = try cursor.u8(offset + 55)
        let convention = try cursor.u8(offset + 56)
        out.append("\n\tAgreement num ")
        out.appendDecimal(agreement >> 6)
        out.append(", Discarded Agreement num ")
        out.appendDecimal((agreement >> 4) & 0x3)
        out.append(", Agreement valid-flag ")
        out.appendDecimal((agreement >> 3) & 0x1)
        out.append(",\n\tRestricted role-flag: ")
        out.appendDecimal((agreement >> 2) & 0x1)
        out.append(", Format id ")
        out.appendDecimal(format >> 4)
        out.append(" cap ")
        out.appendDecimal(format)
        out.append(", Convention id ")
        out.appendDecimal(convention >> 4)
        out.append(" cap ")
        out.appendDecimal(convention)
        out.append(",\n\tEdge count ")
        out.appendDecimal(try cursor.u16(offset + 57))
        out.append(", Agreement digest ")
        try appendHexWords(cursor, at: offset + 67, count: 5, into: &out)
    }

    /// `count` big-endian 32-bit words as `%08x` each, without separators.
    func appendHexWords(_ cursor: ByteCursor, at offset: Int, count: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        for index in 0..<count {
            out.appendHex(UInt64(try cursor.u32(offset + index * 4)), minimumDigits: 8)
        }
    }
}
