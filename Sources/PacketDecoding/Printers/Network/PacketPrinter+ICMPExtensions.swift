/// ICMP multi-part extensions (RFC 4884, tcpdump's end of `icmp_print`), printed with `-v` after
/// the returned datagram of a destination unreachable, time exceeded or parameter problem
/// message longer than 136 bytes.
extension PacketPrinter {
    /// `\n\tICMP Multi-Part extension v2, checksum 0x…, length N` and each object:
    /// `\n\t  MPLS Stack Entry Object (1), Class-Type: 1, length 8` with its label stack entry, or
    /// the object's bytes in hex. A zero length field with a wrong extension checksum means
    /// there is no extension (nothing is printed); a header not captured prints ` [|icmp]`.
    /// The remaining length is unsigned as in tcpdump, so a message only a few bytes past 136
    /// reads objects up to the end of the capture.
    func appendICMPExtensions(_ cursor: ByteCursor, at icmp: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard cursor.has(icmp, 141) else {
            out.append(" [|icmp]")
            return
        }
        let extensionStart = icmp + 136
        let extensionLength = length - 136
        if try cursor.u8(icmp + 5) == 0 && cursor.has(extensionStart, extensionLength) {
            if InternetChecksum.result(cursor, at: extensionStart, count: extensionLength) != 0 { return }
        }
        let version = try cursor.u8(extensionStart) >> 4
        out.append("\n\tICMP Multi-Part extension v")
        out.appendDecimal(version)
        guard version == 2 else {
            out.append(" packet not supported")
            return
        }
        if cursor.has(extensionStart, extensionLength) {
            let result = InternetChecksum.result(cursor, at: extensionStart, count: extensionLength)
            out.append(", checksum 0x")
            out.appendHex(UInt64(try cursor.u16(extensionStart + 2)), minimumDigits: 4)
            out.append(result != 0 ? " (incorrect), length " : " (correct), length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: extensionLength))
        }
        var remaining = UInt32(truncatingIfNeeded: extensionLength) &- 4
        var object = extensionStart + 4
        while remaining > 4 {
            guard cursor.has(object, 4) else {
                out.append(" [|icmp]")
                return
            }
            var objectLength = UInt32(try cursor.u16(object))
            let objectClass = try cursor.u8(object + 2)
            let classType = try cursor.u8(object + 3)
            object += 4
            out.append("\n\t  ")
            switch objectClass {
            case 1: out.append("MPLS Stack Entry")
            case 2: out.append("Interface Identification")
            default: out.append("unknown")
            }
            out.append(" Object (")
            out.appendDecimal(objectClass)
            out.append("), Class-Type: ")
            out.appendDecimal(classType)
            out.append(", length ")
            out.appendDecimal(objectLength)
            remaining &-= 4
            if objectClass == 0 || objectLength < 4 { return }
            objectLength -= 4
            if objectClass == 1 && classType == 1 {
                let entry = try cursor.u32(object)
                out.append("\n\t    label ")
                out.appendDecimal(entry >> 12)
                out.append(", tc ")
                out.appendDecimal((entry >> 9) & 0x7)
                if entry & 0x100 != 0 { out.append(", [S]") }
                out.append(", ttl ")
                out.appendDecimal(entry & 0xFF)
            } else {
                Self.appendUnknownData(cursor, at: object, length: Int(objectLength), indent: "\n\t    ", into: &out)
            }
            if remaining < objectLength { break }
            remaining -= objectLength
            object += Int(objectLength)
        }
    }
}
