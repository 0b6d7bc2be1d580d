/// PPPoE as tcpdump 4.99.3 prints it (`pppoe_print`, ethertypes 0x8863/0x8864 and 3Com's
/// 0x3c12/0x3c13): discovery packets (PADI, PADO, PADR, PADS, PADT) with their tags, each as
/// text when most of its first 79 bytes are printable ASCII, else in hex; session packets with
/// the PPP frame inside through ``printPPP(_:at:length:depth:into:)`` (LCP, IPCP, IP6CP, IPv4,
/// IPv6 …).
extension PacketPrinter {
    private static let pppoeCodeNames = NameTable([(0x09, "PADI"), (0x07, "PADO"), (0x19, "PADR"), (0x65, "PADS"), (0xA7, "PADT"), (0x00, "")])

    private static let pppoeTagNames = NameTable([
        (0x0000, "EOL"), (0x0101, "Service-Name"), (0x0102, "AC-Name"), (0x0103, "Host-Uniq"), (0x0104, "AC-Cookie"),
        (0x0105, "Vendor-Specific"), (0x0110, "Relay-Session-ID"), (0x0120, "PPP-Max-Payload"),
        (0x0201, "Service-Name-Error"), (0x0202, "AC-System-Error"), (0x0203, "Generic-Error"),
    ])

    static func isPPPoEType(_ type: UInt16) -> Bool {
        type == 0x8863 || type == 0x8864 || type == 0x3C12 || type == 0x3C13
    }

    /// tcpdump's `pppoe_print` for the PPPoE header at `p`; `length` is what the link layer
    /// left of the frame's original length.
    mutating func printPPPoE(_ cursor: inout ByteCursor, at p: Int, length: Int, depth: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "pppoe"
        guard length >= 6 else {
            out.append(" (length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            out.append(" < 6) (invalid)")
            return
        }
        let left = length - 6
        guard cursor.has(p, 6) else { throw PacketDecodingError.capturedBytesEnd }
        let first = try cursor.u8(p)
        let code = try cursor.u8(p + 1)
        let session = try cursor.u16(p + 2)
        var payloadLength = Int(try cursor.u16(p + 4))
        if first >> 4 != 1 {
            out.append(" [ver ")
            out.appendDecimal(first >> 4)
            out.append("]")
        }
        if first & 0x0F != 1 {
            out.append(" [type ")
            out.appendDecimal(first & 0x0F)
            out.append("]")
        }
        out.append("PPPoE ")
        if let name = Self.pppoeCodeNames.name(UInt32(code)) {
            out.append(name)
        } else {
            out.append("PAD-")
            out.appendHex(UInt64(code))
        }
        if code == 0x09 && payloadLength > 1484 - 6 {
            out.append(" [len ")
            out.appendDecimal(payloadLength)
            out.append("!]")
        }
        if payloadLength > left {
            out.append(" [len ")
            out.appendDecimal(payloadLength)
            out.append(" > ")
            out.appendDecimal(left)
            out.append("!]")
            payloadLength = left
        }
        if session != 0 {
            out.append(" [ses 0x")
            out.appendHex(UInt64(session))
            out.append("]")
        }
        let payload = p + 6
        guard code != 0 else {
            out.append(" ")
            return try printPPP(&cursor, at: payload, length: payloadLength, depth: depth, into: &out)
        }
        try printPPPoETags(cursor, at: payload, length: payloadLength, into: &out)
    }

    /// The discovery tags: `[Name "text"]`, `[Name 0xHEX]` or `[Name]` each, up to the EOL tag
    /// or the end of the payload (a tag header may run past it, as in tcpdump).
    private func printPPPoETags(_ cursor: ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var tagType: UInt16 = 0xFFFF
        var position = payload
        while tagType != 0 && position < payload + length {
            tagType = try cursor.u16(position)
            let tagLength = Int(try cursor.u16(position + 2))
            position += 4
            // tcpdump checks the whole value before printing any of the tag.
            if tagLength > 0 && !cursor.has(position, tagLength) { throw PacketDecodingError.capturedBytesEnd }
            out.append(" [")
            if let name = Self.pppoeTagNames.name(UInt32(tagType)) {
                out.append(name)
            } else {
                out.append("TAG-0x")
                out.appendHex(UInt64(tagType))
            }
            if tagLength > 0 {
                var text: [UInt8] = []
                var printable = 0
                var other = 0
                for index in 0..<min(tagLength, 79) {
                    let byte = try cursor.u8(position + index)
                    if byte >= 0x20 && byte <= 0x7E {
                        text.append(byte)
                        printable += 1
                    } else {
                        text.append(UInt8(ascii: "."))
                        other += 1
                    }
                }
                if printable > other {
                    out.append(" \"")
                    out.append(contentsOf: text)
                    out.append("\"")
                } else {
                    out.append(" 0x")
                    for index in 0..<tagLength {
                        let byte = try cursor.u8(position + index)
                        out.append(Self.upperHexDigits[Int(byte >> 4)])
                        out.append(Self.upperHexDigits[Int(byte & 0x0F)])
                    }
                }
            }
            out.append("]")
            position += tagLength
        }
    }

    private static let upperHexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
