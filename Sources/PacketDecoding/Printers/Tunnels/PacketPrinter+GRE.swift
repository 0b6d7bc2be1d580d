/// GRE (tcpdump's `gre_print`, IP protocol 47): version 0 with its checksum, offset, key,
/// sequence number and source routes, carrying IPv4, IPv6 or Ethernet (transparent bridging,
/// "gretap"); version 1 (PPTP, RFC 2637) with call ID, sequence and acknowledgement numbers,
/// carrying PPP. `-v` adds the flags and checksum and puts the payload on its own line; `-e`
/// names the protocol type.
///
/// Limits: payloads of other protocol types that tcpdump decodes (MPLS, IPX, AppleTalk, OSI)
/// print `gre-proto-0x…` instead.
extension PacketPrinter {
    private static let greFlagNames = NameTable([
        (0x8000, "checksum present"), (0x4000, "routing present"), (0x2000, "key present"),
        (0x1000, "sequence# present"), (0x0800, "source routing present"), (0x0080, "ack present"),
    ])

    /// tcpdump's `gre_print` for the GRE header at `gre`, `length` bytes long.
    mutating func printGRE(_ cursor: inout ByteCursor, at gre: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "gre"
        guard cursor.has(gre, 2), length >= 2 else { return out.append(" [|gre]") }
        let flags = try cursor.u16(gre)
        let version = flags & 0x0007
        out.append("GREv")
        out.appendDecimal(version)
        guard version <= 1 else { return out.append(" ERROR: unknown-version") }
        appendGREFlags(flags, into: &out)
        var fields = GREFields(offset: gre + 2, left: length - 2)
        guard let typeField = fields.take(2, cursor) else { return out.append(" [|gre]") }
        let type = try cursor.u16(typeField)
        if version == 0 {
            try printGREVersion0(&cursor, fields: fields, length: length, flags: flags, type: type, depth: ip.depth + 1, into: &out)
        } else {
            try printGREVersion1(&cursor, fields: fields, length: length, flags: flags, type: type, depth: ip.depth + 1, into: &out)
        }
    }

    /// Where the next GRE field starts and how many bytes of the packet are left from there
    /// (tcpdump's `bp` and `len` in `gre_print_0` and `gre_print_1`).
    private struct GREFields {
        var offset: Int
        var left: Int

        /// The offset of the next `count` bytes, which it steps over, when both the capture and
        /// the packet's length hold them (tcpdump's `ND_TCHECK` and `len < N` checks); nil
        /// where tcpdump prints ` [|gre]`.
        mutating func take(_ count: Int, _ cursor: ByteCursor) -> Int? {
            guard cursor.has(offset, count), left >= count else { return nil }
            defer {
                offset += count
                left -= count
            }
            return offset
        }
    }

    /// `, Flags [key present, …]` with `-v`.
    private func appendGREFlags(_ flags: UInt16, into out: inout [UInt8]) {
        guard options.verbosity > 0 else { return }
        out.append(", Flags [")
        Self.greFlagNames.appendBits(UInt32(flags), none: "none", into: &out)
        out.append("]")
    }

    /// `, proto IPv4 (0x0800)` with `-e`, then `, length N` and the separator before the payload.
    private func appendGRETrailer(_ type: UInt16, length: Int, separator: Bool, into out: inout [UInt8]) {
        if options.linkHeader {
            out.append(", proto ")
            Self.appendEthertypeName(type, unknown: "unknown", into: &out)
        }
        out.append(", length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
        if separator { out.append(options.verbosity > 0 ? "\n\t" : ": ") }
    }

    /// tcpdump's `gre_print_0` after the flags and protocol type: the optional fields from
    /// `fields`, then the payload.
    private mutating func printGREVersion0(
        _ cursor: inout ByteCursor, fields: GREFields, length: Int, flags: UInt16, type: UInt16, depth: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        var fields = fields
        func take(_ count: Int) -> Int? { fields.take(count, cursor) }
        if flags & 0xC000 != 0 {
            guard let sum = take(2) else { return out.append(" [|gre]") }
            if options.verbosity > 0 {
                out.append(", sum 0x")
                out.appendHex(UInt64(try cursor.u16(sum)))
            }
            guard let routingOffset = take(2) else { return out.append(" [|gre]") }
            out.append(", off 0x")
            out.appendHex(UInt64(try cursor.u16(routingOffset)))
        }
        if flags & 0x2000 != 0 {
            guard let key = take(4) else { return out.append(" [|gre]") }
            out.append(", key=0x")
            out.appendHex(UInt64(try cursor.u32(key)))
        }
        if flags & 0x1000 != 0 {
            guard let sequence = take(4) else { return out.append(" [|gre]") }
            out.append(", seq ")
            out.appendDecimal(try cursor.u32(sequence))
        }
        if flags & 0x4000 != 0 {
            while true {
                guard let entry = take(4) else { return out.append(" [|gre]") }
                let family = try cursor.u16(entry)
                let entryOffset = Int(try cursor.u8(entry + 2))
                let entryLength = Int(try cursor.u8(entry + 3))
                if family == 0 && entryLength == 0 { break }
                guard try appendGRESourceRoute(cursor, family: family, offset: entryOffset, length: entryLength,
                                               at: fields.offset, left: fields.left, into: &out),
                      fields.left >= entryLength else { return out.append(" [|gre]") }
                fields.offset += entryLength
                fields.left -= entryLength
            }
        }
        appendGRETrailer(type, length: length, separator: true, into: &out)
        switch type {
        case 0x0800: try printIPv4(&cursor, at: fields.offset, length: fields.left, depth: depth, into: &out)
        case 0x86DD: try printIPv6(&cursor, at: fields.offset, length: fields.left, depth: depth, into: &out)
        case 0x6558: try printEthernet(&cursor, at: fields.offset, length: fields.left, depth: depth, into: &out)
        default:
            out.append("gre-proto-0x")
            out.appendHex(UInt64(type))
        }
    }

    /// tcpdump's `gre_sre_print`: one source route entry, `, (rtaf=ip 192.0.2.1 *192.0.2.2)`;
    /// false when its addresses run past the capture or the packet.
    private func appendGRESourceRoute(
        _ cursor: ByteCursor, family: UInt16, offset: Int, length: Int, at start: Int, left: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Bool {
        let step: Int
        switch family {
        case 0x0800:
            out.append(", (rtaf=ip")
            step = 4
        case 0xFFFE:
            out.append(", (rtaf=asn")
            step = 2
        default:
            out.append(", (rtaf=0x")
            out.appendHex(UInt64(family))
            out.append(")")
            return true
        }
        var complete = true
        if offset % step != 0 {
            out.append(", badoffset=")
            out.appendDecimal(offset)
        } else if length % step != 0 {
            out.append(", badlength=")
            out.appendDecimal(length)
        } else if offset >= length {
            out.append(", badoff/len=")
            out.appendDecimal(offset)
            out.append("/")
            out.appendDecimal(length)
        } else {
            var position = 0
            while position < length {
                guard cursor.has(start + position, step), left - position >= step else {
                    complete = false
                    break
                }
                out.append(position == offset ? " *" : " ")
                if step == 4 {
                    try appendIPv4Address(cursor, at: start + position, into: &out)
                } else {
                    out.appendHex(UInt64(try cursor.u16(start + position)))
                }
                position += step
            }
        }
        out.append(")")
        return complete
    }

    /// tcpdump's `gre_print_1` (enhanced GRE of PPTP) after the flags and protocol type: no
    /// sequence number means no payload.
    private mutating func printGREVersion1(
        _ cursor: inout ByteCursor, fields: GREFields, length: Int, flags: UInt16, type: UInt16, depth: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        var fields = fields
        func take(_ count: Int) -> Int? { fields.take(count, cursor) }
        if flags & 0x2000 != 0 {
            guard let key = take(4) else { return out.append(" [|gre]") }
            out.append(", call ")
            out.appendDecimal(try cursor.u32(key) & 0xFFFF)
        }
        if flags & 0x1000 != 0 {
            guard let sequence = take(4) else { return out.append(" [|gre]") }
            out.append(", seq ")
            out.appendDecimal(try cursor.u32(sequence))
        }
        if flags & 0x0080 != 0 {
            guard let acknowledgement = take(4) else { return out.append(" [|gre]") }
            out.append(", ack ")
            out.appendDecimal(try cursor.u32(acknowledgement))
        }
        let hasPayload = flags & 0x1000 != 0
        if !hasPayload { out.append(", no-payload") }
        appendGRETrailer(type, length: length, separator: hasPayload, into: &out)
        guard hasPayload else { return }
        if type == 0x880B {
            try printPPP(&cursor, at: fields.offset, length: fields.left, depth: depth, into: &out)
        } else {
            out.append("gre-proto-0x")
            out.appendHex(UInt64(type))
        }
    }
}
