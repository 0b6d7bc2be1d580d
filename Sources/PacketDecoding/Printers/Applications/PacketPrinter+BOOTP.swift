/// BOOTP and DHCPv4 (UDP ports 67 and 68) as tcpdump 4.99.3 prints them (`print-bootp.c`).
///
/// ```
/// BOOTP/DHCP, Request from 02:00:00:00:00:0a, length 300
/// ```
/// and with `-v` the fixed header fields and the vendor area, one field or option per line:
/// ```
/// BOOTP/DHCP, Request from 02:00:00:00:00:0a, length 300, xid 0x1234, Flags [none]
///       Client-Ethernet-Address 02:00:00:00:00:0a
///       Vendor-rfc1048 Extensions
///         Magic Cookie 0x63825363
///         DHCP-Message (53), length 1: Discover
/// ```
extension PacketPrinter {
    /// The BOOTP header's field offsets.
    private enum BOOTPField {
        static let op = 0, htype = 1, hlen = 2, hops = 3, xid = 4, secs = 8, flags = 10
        static let ciaddr = 12, yiaddr = 16, siaddr = 20, giaddr = 24, chaddr = 28
        static let sname = 44, file = 108, vendor = 236
    }

    /// tcpdump's `bootp_print`: `BOOTP/DHCP, Request from MAC, length N`; with `-v` the
    /// non-zero header fields, the server name and boot file, and the vendor area (RFC 1048
    /// options, the CMU layout, or `Vendor-#0x…`). A header cut before the fields `-v` shows
    /// prints ` [|bootp]` (tcpdump's explicit check); a field read past the capture throws.
    mutating func printBOOTP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "bootp"
        let op = try cursor.u8(payload + BOOTPField.op)
        out.append("BOOTP/DHCP, ")
        switch op {
        case 1: out.append("Request")
        case 2: out.append("Reply")
        default:
            out.append("unknown (0x")
            out.appendHex(UInt64(op), minimumDigits: 2)
            out.append(")")
        }
        let htype = try cursor.u8(payload + BOOTPField.htype)
        let hlen = try cursor.u8(payload + BOOTPField.hlen)
        let ethernet = htype == 1 && hlen == 6
        if ethernet && op == 1 {
            try appendBOOTPHardwareAddress(cursor, at: payload + BOOTPField.chaddr, label: " from ", into: &out)
        }
        out.append(", length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
        guard options.verbosity > 0 else { return }

        guard cursor.has(payload + BOOTPField.secs, 2) else {
            out.append(" [|bootp]")
            return
        }
        if htype != 1 {
            out.append(", htype ")
            out.appendDecimal(htype)
        }
        if !ethernet {
            out.append(", hlen ")
            out.appendDecimal(hlen)
        }
        let hops = try cursor.u8(payload + BOOTPField.hops)
        if hops != 0 {
            out.append(", hops ")
            out.appendDecimal(hops)
        }
        let xid = try cursor.u32(payload + BOOTPField.xid)
        if xid != 0 {
            out.append(", xid 0x")
            out.appendHex(UInt64(xid))
        }
        let secs = try cursor.u16(payload + BOOTPField.secs)
        if secs != 0 {
            out.append(", secs ")
            out.appendDecimal(secs)
        }
        let flags = try cursor.u16(payload + BOOTPField.flags)
        out.append(flags & 0x8000 != 0 ? ", Flags [Broadcast]" : ", Flags [none]")
        if options.verbosity > 1 {
            out.append(" (0x")
            out.appendHex(UInt64(flags), minimumDigits: 4)
            out.append(")")
        }
        try appendBOOTPAddress(cursor, at: payload + BOOTPField.ciaddr, label: "\n\t  Client-IP ", into: &out)
        try appendBOOTPAddress(cursor, at: payload + BOOTPField.yiaddr, label: "\n\t  Your-IP ", into: &out)
        try appendBOOTPAddress(cursor, at: payload + BOOTPField.siaddr, label: "\n\t  Server-IP ", into: &out)
        try appendBOOTPAddress(cursor, at: payload + BOOTPField.giaddr, label: "\n\t  Gateway-IP ", into: &out)
        if ethernet {
            try appendBOOTPHardwareAddress(cursor, at: payload + BOOTPField.chaddr, label: "\n\t  Client-Ethernet-Address ", into: &out)
        }
        if try cursor.u8(payload + BOOTPField.sname) != 0 {
            out.append("\n\t  sname \"")
            guard try appendBOOTPTerminatedText(cursor, at: payload + BOOTPField.sname, size: 64, into: &out) else {
                out.append("\" [|bootp]")
                return
            }
            out.append("\"")
        }
        if try cursor.u8(payload + BOOTPField.file) != 0 {
            out.append("\n\t  file \"")
            guard try appendBOOTPTerminatedText(cursor, at: payload + BOOTPField.file, size: 128, into: &out) else {
                out.append("\" [|bootp]")
                return
            }
            out.append("\"")
        }
        let vendor = payload + BOOTPField.vendor
        guard cursor.has(vendor, 4) else {
            out.append(" [|bootp]")
            return
        }
        switch try cursor.u32(vendor) {
        case 0x6382_5363: try appendRFC1048Options(cursor, at: vendor, into: &out)
        case 0x434D_5500: try appendCMUVendorArea(cursor, at: vendor, into: &out)
        case 0: break
        case let magic:
            out.append("\n\t  Vendor-#0x")
            out.appendHex(UInt64(magic))
        }
    }

    /// `Label a.b.c.d` for a non-zero IPv4 address field.
    private func appendBOOTPAddress(_ cursor: ByteCursor, at offset: Int, label: StaticString, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard try cursor.u32(offset) != 0 else { return }
        out.append(label)
        try appendIPv4Address(cursor, at: offset, into: &out)
    }

    /// `label` and the six bytes at `offset` as `02:00:00:00:00:0a` (tcpdump's
    /// `GET_ETHERADDR_STRING`, read before the label is printed).
    private func appendBOOTPHardwareAddress(_ cursor: ByteCursor, at offset: Int, label: StaticString, into out: inout [UInt8]) throws(PacketDecodingError) {
        try cursor.check(offset, 6)
        out.append(label)
        appendMAC(cursor, at: offset, into: &out)
    }

    /// tcpdump's `nd_printztn`: the characters of a NUL-terminated field of `size` bytes,
    /// escaped; false when no NUL came before the field's or the capture's end (the characters
    /// seen are printed all the same).
    private func appendBOOTPTerminatedText(_ cursor: ByteCursor, at offset: Int, size: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        var index = 0
        while index < size && offset + index < cursor.end {
            let byte = try cursor.u8(offset + index)
            if byte == 0 { return true }
            out.appendEscapedCharacter(byte)
            index += 1
        }
        return false
    }

    /// The CMU vendor area's addresses in tcpdump's order (offset in the area, label); the
    /// subnet mask is ` SM*:` when the flags do not mark it valid.
    private static let cmuAddressFields: [(Int, StaticString)] = [
        (12, " DG:"), (8, " SM:"), (16, " NS1:"), (20, " NS2:"), (24, " IEN1:"), (28, " IEN2:"), (32, " TS1:"), (36, " TS2:"),
    ]

    /// tcpdump's `cmu_print`: ` vend-cmu` and the CMU vendor area's non-zero addresses
    /// (` DG:a.b.c.d SM:… NS1:…`); a field cut by the capture ends in ` [|bootp]`.
    private func appendCMUVendorArea(_ cursor: ByteCursor, at vendor: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.append(" vend-cmu")
        guard cursor.has(vendor + 4, 4) else {
            out.append(" [|bootp]")
            return
        }
        let flags = try cursor.u8(vendor + 4)
        if flags & 0xFE != 0 {
            out.append(" F:0x")
            out.appendHex(UInt64(flags))
        }
        for (offset, label) in Self.cmuAddressFields {
            guard cursor.has(vendor + offset, 4) else {
                out.append(" [|bootp]")
                return
            }
            let shown: StaticString = offset == 8 && flags & 1 == 0 ? " SM*:" : label
            try appendBOOTPAddress(cursor, at: vendor + offset, label: shown, into: &out)
        }
    }
}
