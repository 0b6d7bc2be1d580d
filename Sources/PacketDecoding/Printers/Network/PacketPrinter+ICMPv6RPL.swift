/// RPL control messages (RFC 6550) in ICMPv6 type 155 (tcpdump's `rpl_print`): the code's name,
/// with `-v` the DIO, DAO or DAO-ACK fields, with `-vv` their options.
extension PacketPrinter {
    /// `, (CLR)NAME` (`, (SEC) [worktodo]` for a secured message) and, with `-v`, the object
    /// that follows the ICMPv6 header's first 4 bytes.
    func appendRPL(_ cursor: ByteCursor, at icmp: Int, code: UInt8, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        if code & 0x80 != 0 {
            out.append(", (SEC) [worktodo]")
            return
        }
        out.append(", (CLR)")
        let verbose = options.verbosity > 0
        let body = icmp + 4
        let bodyLength = UInt32(truncatingIfNeeded: length) &- 4
        switch code & 0x7F {
        case 0:
            out.append("DODAG Information Solicitation")
        case 1:
            out.append("DODAG Information Object")
            if verbose { try appendRPLInformationObject(cursor, at: body, length: bodyLength, into: &out) }
        case 2:
            out.append("Destination Advertisement Object")
            if verbose { try appendRPLAdvertisementObject(cursor, at: body, length: bodyLength, into: &out) }
        case 3:
            out.append("Destination Advertisement Object Ack")
            if verbose { try appendRPLAdvertisementAck(cursor, at: body, length: bodyLength, into: &out) }
        default:
            out.append("RPL message, unknown code ")
            out.appendDecimal(code)
        }
    }

    /// DIO: ` [dagid:ADDRESS,seq:N,instance:N,rank:N,[grounded,]mop:NAME,prf:N]`.
    private func appendRPLInformationObject(_ cursor: ByteCursor, at dio: Int, length: UInt32, into out: inout [UInt8]) throws(PacketDecodingError) {
        if length < 24 {
            out.append(" [length ")
            out.appendDecimal(length)
            out.append(" < 24] (invalid)")
            return
        }
        var dagid: [UInt8] = []
        try appendIPv6Address(cursor, at: dio + 8, into: &dagid)
        let sequence = try cursor.u8(dio + 5)
        let instance = try cursor.u8(dio)
        let rank = try cursor.u16(dio + 2)
        let modeAndPreference = try cursor.u8(dio + 4)
        out.append(" [dagid:")
        out.append(contentsOf: dagid)
        out.append(",seq:")
        out.appendDecimal(sequence)
        out.append(",instance:")
        out.appendDecimal(instance)
        out.append(",rank:")
        out.appendDecimal(rank)
        out.append(",")
        if modeAndPreference & 0x80 != 0 { out.append("grounded,") }
        out.append("mop:")
        let mode = (modeAndPreference & 0x38) >> 3
        switch mode {
        case 0: out.append("nonstoring")
        case 1: out.append("storing")
        case 2: out.append("nonstoring-multicast")
        case 3: out.append("storing-multicast")
        default:
            out.append("mop")
            out.appendDecimal(mode)
        }
        out.append(",prf:")
        out.appendDecimal(modeAndPreference & 0x07)
        out.append("]")
        if options.verbosity > 1 { try appendRPLOptions(cursor, at: dio + 24, length: length - 24, into: &out) }
    }

    /// DAO: ` [dagid:ADDRESS,seq:N,instance:N[,acK][,Dagid],FLAGS]` (`<elided>` without the D
    /// flag); ` [|icmp6]` when its 20 bytes are not captured.
    private func appendRPLAdvertisementObject(_ cursor: ByteCursor, at dao: Int, length: UInt32, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard cursor.has(dao, 20) else {
            out.append(" [|icmp6]")
            return
        }
        guard length >= 4 else {
            out.append(" [|length too short]")
            return
        }
        var rest = length - 4
        let flags = try cursor.u8(dao + 1)
        var dagid: [UInt8] = Array("<elided>".utf8)
        if flags & 0x40 != 0 {
            guard rest >= 16 else {
                out.append(" [|length too short]")
                return
            }
            dagid = []
            try appendIPv6Address(cursor, at: dao + 4, into: &dagid)
            rest -= 16
        }
        out.append(" [dagid:")
        out.append(contentsOf: dagid)
        out.append(",seq:")
        out.appendDecimal(try cursor.u8(dao + 3))
        out.append(",instance:")
        out.appendDecimal(try cursor.u8(dao))
        if flags & 0x80 != 0 { out.append(",acK") }
        if flags & 0x40 != 0 { out.append(",Dagid") }
        out.append(",")
        out.appendHex(UInt64(flags), minimumDigits: 2)
        out.append("]")
        if options.verbosity > 1 {
            try appendRPLOptions(cursor, at: dao + Int(length - rest), length: rest, into: &out)
        }
    }

    /// DAO-ACK: ` [dagid:ADDRESS,seq:N,instance:N,status:N]`.
    private func appendRPLAdvertisementAck(_ cursor: ByteCursor, at ack: Int, length: UInt32, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard cursor.has(ack, 4) else {
            out.append(" [|icmp6]")
            return
        }
        guard length >= 4 else {
            out.append(" [|dao-length too short]")
            return
        }
        var rest = length - 4
        var dagid: [UInt8] = Array("<elided>".utf8)
        if try cursor.u8(ack + 1) & 0x80 != 0 {
            guard cursor.has(ack + 4, 16) else {
                out.append(" [|icmp6]")
                return
            }
            guard rest >= 16 else {
                out.append(" [|dao-length too short]")
                return
            }
            dagid = []
            try appendIPv6Address(cursor, at: ack + 4, into: &dagid)
            rest -= 16
        }
        out.append(" [dagid:")
        out.append(contentsOf: dagid)
        out.append(",seq:")
        out.appendDecimal(try cursor.u8(ack + 2))
        out.append(",instance:")
        out.appendDecimal(try cursor.u8(ack))
        out.append(",status:")
        out.appendDecimal(try cursor.u8(ack + 3))
        out.append("]")
        if options.verbosity > 1 {
            try appendRPLOptions(cursor, at: ack + Int(length - rest), length: rest, into: &out)
        }
    }

    /// tcpdump's `rpl_printopts` (`-vv`): ` opt:pad1`, ` opt:NAME len:N ` and, with `-vvv`, the
    /// option's bytes in hex; ` [|icmp6]` for an option longer than what is left or captured.
    private func appendRPLOptions(_ cursor: ByteCursor, at start: Int, length: UInt32, into out: inout [UInt8]) throws(PacketDecodingError) {
        var offset = start
        var remaining = length
        while remaining != 0 {
            let type = try cursor.u8(offset)
            let optionLength: UInt32
            if type == 0 {
                optionLength = 1
                out.append(" opt:pad1")
            } else {
                guard remaining >= 2 else {
                    out.append(" [|icmp6]")
                    return
                }
                optionLength = UInt32(try cursor.u8(offset + 1)) + 2
                out.append(" opt:")
                switch type {
                case 1: out.append("padN")
                case 2: out.append("metrics")
                case 3: out.append("routinginfo")
                case 4: out.append("config")
                case 5: out.append("rpltarget")
                case 6: out.append("transitinfo")
                case 8: out.append("destprefix")
                case 9: out.append("rpltargetdesc")
                default:
                    out.append("subopt:")
                    out.appendDecimal(type)
                }
                out.append(" len:")
                out.appendDecimal(optionLength)
                out.append(" ")
                guard cursor.has(offset, Int(optionLength)), remaining >= optionLength else {
                    out.append(" [|icmp6]")
                    return
                }
                if options.verbosity > 2 {
                    Self.appendUnknownData(cursor, at: offset + 2, length: Int(optionLength) - 2, indent: " ", into: &out)
                }
            }
            offset += Int(optionLength)
            remaining -= optionLength
        }
    }
}
