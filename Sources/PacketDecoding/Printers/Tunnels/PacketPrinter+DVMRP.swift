/// DVMRP inside IGMP (tcpdump's `dvmrp_print`): the message type, probes (`-v`: generation ID,
/// `-vv` the neighbours), reports (`-vv`: routes and metrics), neighbour lists in both formats,
/// prunes and grafts. Lengths that do not fit end the text with ` (invalid)`.
extension PacketPrinter {
    private static let dvmrpTypeNames = NameTable([
        (1, "Probe"), (2, "Report"), (3, "Ask-neighbors(old)"), (4, "Neighbors(old)"), (5, "Ask-neighbors2"),
        (6, "Neighbors2"), (7, "Prune"), (8, "Graft"), (9, "Graft-ACK"),
    ])

    /// tcpdump's `dvmrp_print` for the IGMP message at `igmp` (`length` ≥ 8 bytes).
    mutating func printDVMRP(_ cursor: ByteCursor, at igmp: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "dvmrp"
        let type = try cursor.u8(igmp + 1)
        let body = igmp + 8
        let left = length - 8
        out.append(" ")
        if let name = Self.dvmrpTypeNames.name(UInt32(type)) {
            out.append(name)
        } else {
            out.append("[type ")
            out.appendDecimal(type)
            out.append("]")
        }
        switch type {
        case 1:
            if options.verbosity > 0 { try appendDVMRPProbe(cursor, at: body, length: left, into: &out) }
        case 2:
            if options.verbosity > 1 { try appendDVMRPReport(cursor, at: body, length: left, into: &out) }
        case 4:
            try appendDVMRPNeighbors(cursor, at: body, length: left, into: &out)
        case 6:
            let major = try cursor.u8(igmp + 7)
            let minor = try cursor.u8(igmp + 6)
            try appendDVMRPNeighbors2(cursor, at: body, length: left, major: major, minor: minor, into: &out)
        case 7, 8, 9:
            try cursor.check(body, 8)
            out.append(" src ")
            try appendIPv4Address(cursor, at: body, into: &out)
            out.append(" grp ")
            try appendIPv4Address(cursor, at: body + 4, into: &out)
            if type == 7 {
                out.append(" timer ")
                out.appendRelativeSeconds(try cursor.u32(body + 8))
            }
        default:
            break
        }
    }

    /// ` genid N` (`-vv`: on its own line, then each neighbour).
    private func appendDVMRPProbe(_ cursor: ByteCursor, at start: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard length >= 4 else {
            out.append(" [full length ")
            out.appendDecimal(length)
            out.append(" < 4] (invalid)")
            return
        }
        out.append(options.verbosity > 1 ? "\n\t" : " ")
        let generation = try cursor.u32(start)
        out.append("genid ")
        out.appendDecimal(generation)
        guard options.verbosity > 1 else { return }
        var offset = start + 4
        var left = length - 4
        while left > 0 {
            guard left >= 4 else {
                out.append("[remaining length ")
                out.appendDecimal(left)
                out.append(" < 4] (invalid)")
                return
            }
            try cursor.check(offset, 4)
            out.append("\n\tneighbor ")
            try appendIPv4Address(cursor, at: offset, into: &out)
            offset += 4
            left -= 4
        }
    }

    /// `\n\tMask A.B.C.D` and each `\n\t  ORIGIN metric N` of a route report.
    private func appendDVMRPReport(_ cursor: ByteCursor, at start: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        func appendDotted(_ value: UInt32, _ out: inout [UInt8]) {
            for shift in stride(from: 24, through: 0, by: -8) {
                out.appendDecimal(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
                if shift > 0 { out.append(".") }
            }
        }
        var offset = start
        var left = length
        while left > 0 {
            guard left >= 3 else {
                Self.appendDVMRPShortLength(left, minimum: 3, into: &out)
                return
            }
            let first = try cursor.u8(offset), second = try cursor.u8(offset + 1), third = try cursor.u8(offset + 2)
            let mask = 0xFF00_0000 | UInt32(first) << 16 | UInt32(second) << 8 | UInt32(third)
            let width = third != 0 ? 4 : second != 0 ? 3 : first != 0 ? 2 : 1
            out.append("\n\tMask ")
            appendDotted(mask, &out)
            offset += 3
            left -= 3
            var done = false
            while !done {
                guard left >= width + 1 else {
                    out.append("\n\t  [Truncated Report] (invalid)")
                    return
                }
                var origin: UInt32 = 0
                for index in 0..<4 {
                    origin = origin << 8 | (index < width ? UInt32(try cursor.u8(offset + index)) : 0)
                }
                let metric = try cursor.u8(offset + width)
                offset += width + 1
                done = metric & 0x80 != 0
                out.append("\n\t  ")
                appendDotted(origin, &out)
                out.append(" metric ")
                out.appendDecimal(metric & 0x7F)
                left -= width + 1
            }
        }
    }

    /// ` [length N < MINIMUM] (invalid)`: the bytes left cannot hold the next item.
    private static func appendDVMRPShortLength(_ left: Int, minimum: Int, into out: inout [UInt8]) {
        out.append(" [length ")
        out.appendDecimal(left)
        out.append(" < ")
        out.appendDecimal(minimum)
        out.append("] (invalid)")
    }

    /// The old neighbour list: ` [LOCAL -> NEIGHBOR, (metric/threshold)]` per neighbour.
    private func appendDVMRPNeighbors(_ cursor: ByteCursor, at start: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var offset = start
        var left = length
        while left > 0 {
            guard left >= 7 else {
                Self.appendDVMRPShortLength(left, minimum: 7, into: &out)
                return
            }
            let local = offset
            let metric = try cursor.u8(offset + 4)
            let threshold = try cursor.u8(offset + 5)
            var count = Int(try cursor.u8(offset + 6))
            offset += 7
            left -= 7
            while count > 0 {
                count -= 1
                guard left >= 4 else {
                    Self.appendDVMRPShortLength(left, minimum: 4, into: &out)
                    return
                }
                try cursor.check(local, 4)
                out.append(" [")
                try appendIPv4Address(cursor, at: local, into: &out)
                out.append(" ->")
                try cursor.check(offset, 4)
                out.append(" ")
                try appendIPv4Address(cursor, at: offset, into: &out)
                out.append(", (")
                out.appendDecimal(metric)
                out.append("/")
                out.appendDecimal(threshold)
                out.append(")]")
                offset += 4
                left -= 4
            }
        }
    }

    /// The version-2 neighbour list: ` (v MAJOR.MINOR):` and ` [LOCAL -> NEIGHBOR (m/t/flags)]`.
    private func appendDVMRPNeighbors2(
        _ cursor: ByteCursor, at start: Int, length: Int, major: UInt8, minor: UInt8, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        out.append(" (v ")
        out.appendDecimal(major)
        out.append(".")
        out.appendDecimal(minor)
        out.append("):")
        var offset = start
        var left = length
        while left > 0 {
            guard left >= 8 else {
                Self.appendDVMRPShortLength(left, minimum: 8, into: &out)
                return
            }
            let local = offset
            let metric = try cursor.u8(offset + 4)
            let threshold = try cursor.u8(offset + 5)
            let flags = try cursor.u8(offset + 6)
            var count = Int(try cursor.u8(offset + 7))
            offset += 8
            left -= 8
            while true {
                count -= 1
                guard count >= 0, left > 0 else { break }
                guard left >= 4 else {
                    Self.appendDVMRPShortLength(left, minimum: 4, into: &out)
                    return
                }
                try cursor.check(local, 4)
                out.append(" [")
                try appendIPv4Address(cursor, at: local, into: &out)
                out.append(" -> ")
                try cursor.check(offset, 4)
                try appendIPv4Address(cursor, at: offset, into: &out)
                out.append(" (")
                out.appendDecimal(metric)
                out.append("/")
                out.appendDecimal(threshold)
                if flags & 0x01 != 0 { out.append("/tunnel") }
                if flags & 0x02 != 0 { out.append("/srcrt") }
                if flags & 0x40 != 0 { out.append("/querier") }
                if flags & 0x20 != 0 { out.append("/disabled") }
                if flags & 0x10 != 0 { out.append("/down") }
                out.append(")]")
                offset += 4
                left -= 4
            }
            if count != -1 {
                out.append(" [invalid ncount] (invalid)")
                return
            }
        }
    }
}
