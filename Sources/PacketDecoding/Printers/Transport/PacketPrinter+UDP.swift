/// The UDP printer (tcpdump's `udp_print`): addresses and ports, the length checks, with `-v`
/// the checksum verdict (IPv6 always, IPv4 with `-vv`), then the application printer the port
/// dispatch picks (``UDPApplication``) or the generic `UDP, length N` line.
extension PacketPrinter {
    mutating func printUDP(_ cursor: inout ByteCursor, at udp: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "udp"
        func appendAddresses(_ ports: (UInt16, UInt16)?, _ out: inout [UInt8]) throws(PacketDecodingError) {
            let addressOffset = ip.isIPv6 ? ip.offset + 8 : ip.offset + 12
            let addressLength = ip.isIPv6 ? 16 : 4
            func address(_ offset: Int, _ out: inout [UInt8]) throws(PacketDecodingError) {
                if ip.isIPv6 {
                    try appendIPv6Address(cursor, at: offset, into: &out)
                } else {
                    try appendIPv4Address(cursor, at: offset, into: &out)
                }
            }
            if ip.headerProtocol == 17 {
                try address(addressOffset, &out)
                if let ports {
                    out.append(".")
                    out.appendDecimal(ports.0)
                }
                out.append(" > ")
                try address(addressOffset + addressLength, &out)
                if let ports {
                    out.append(".")
                    out.appendDecimal(ports.1)
                }
                out.append(": ")
            } else if let ports {
                out.appendDecimal(ports.0)
                out.append(" > ")
                out.appendDecimal(ports.1)
                out.append(": ")
            }
        }
        guard cursor.has(udp + 2, 2) else {
            try appendAddresses(nil, &out)
            out.append(" [|udp]")
            return
        }
        let ports = (try cursor.u16(udp), try cursor.u16(udp + 2))
        if length < 8 {
            try appendAddresses(ports, &out)
            out.append("truncated-udp ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            return
        }
        guard cursor.has(udp + 4, 2) else {
            try appendAddresses(ports, &out)
            out.append(" [|udp]")
            return
        }
        var udpLength = Int(try cursor.u16(udp + 4))
        if udpLength == 0 && length > 65535 { udpLength = length }
        if udpLength < 8 {
            try appendAddresses(ports, &out)
            out.append("truncated-udplength ")
            out.appendDecimal(udpLength)
            return
        }
        udpLength -= 8
        var payloadLength = length - 8
        if udpLength < payloadLength { payloadLength = udpLength }
        if udp + 8 > cursor.end {
            try appendAddresses(ports, &out)
            out.append(" [|udp]")
            return
        }
        try appendAddresses(ports, &out)
        if options.verbosity > 0 && !ip.fragmented {
            try appendUDPChecksum(cursor, at: udp, payloadLength: payloadLength, ip: ip, into: &out)
        }
        let firstByte: UInt8? = cursor.has(udp + 8, 1) ? try cursor.u8(udp + 8) : nil
        let application = UDPApplication(sourcePort: ports.0, destinationPort: ports.1, firstByte: firstByte)
        if application.isPrinted && !options.quick {
            try printUDPApplication(application, &cursor, at: udp + 8, length: payloadLength, ip: ip, into: &out)
            return
        }
        if udpLength > payloadLength && !ip.fragmented {
            out.append("UDP, bad length ")
            out.appendDecimal(udpLength)
            out.append(" > ")
            out.appendDecimal(payloadLength)
        } else {
            out.append("UDP, length ")
            out.appendDecimal(udpLength)
        }
    }

    /// tcpdump's UDP checksum verdict, before the application text: `[udp sum ok] `,
    /// `[bad udp cksum 0xFIELD -> 0xRIGHT!] `, or `[no cksum] ` for a zero field. Over IPv4 only
    /// with `-vv` (a zero field means "none"), over IPv6 with `-v`; only when the payload is all
    /// captured.
    private func appendUDPChecksum(_ cursor: ByteCursor, at udp: Int, payloadLength: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        if !ip.isIPv6 {
            guard options.verbosity > 1 else { return }
            if try cursor.u16(udp + 6) == 0 {
                out.append("[no cksum] ")
                return
            }
        }
        guard cursor.has(udp + 8, payloadLength) else { return }
        let result = try pseudoHeaderChecksum(cursor, ip: ip, at: udp, length: payloadLength + 8, nextProtocol: 17)
        if result != 0 {
            let field = try cursor.u16(udp + 6)
            out.append("[bad udp cksum 0x")
            out.appendHex(UInt64(field), minimumDigits: 4)
            out.append(" -> 0x")
            out.appendHex(UInt64(InternetChecksum.shouldBe(field: field, result: result)), minimumDigits: 4)
            out.append("!] ")
        } else {
            out.append("[udp sum ok] ")
        }
    }
}
