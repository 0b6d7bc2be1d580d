/// The IPv4 printer (tcpdump's `ip_print`; its `-v` part is in PacketPrinter+IPOptions.swift),
/// the demultiplexer both IP versions hand their payload to, and the address text. IPv6 is in
/// PacketPrinter+IPv6.swift.
extension PacketPrinter {
    /// Where the transport printers find the addresses: the IP header's offset and version.
    struct IPContext {
        var offset: Int
        var isIPv6: Bool
        /// The IP header's own next-protocol field (not the last extension header's).
        var headerProtocol: UInt8
        var fragmented: Bool
        /// How many IP headers enclose this one (IP in IP, a datagram an ICMP error quotes).
        var depth = 0
    }

    /// Nested IP headers decoded at most; a deeper one ends the packet as a capture cut there
    /// (` [|ip]`). tcpdump has no limit; this keeps the printer's recursion within any thread's
    /// stack (a 64 KiB datagram can nest thousands of IP headers).
    static let maximumIPNesting = 64

    // MARK: IPv4

    mutating func printIPv4(_ cursor: inout ByteCursor, at ip: Int, length: Int, depth: Int = 0, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "ip"
        guard depth < Self.maximumIPNesting else { throw PacketDecodingError.capturedBytesEnd }
        let versionAndLength = try cursor.u8(ip)
        guard versionAndLength >> 4 == 4 else {
            if versionAndLength >> 4 == 6 {
                out.append("IP6, wrong link-layer encapsulation")
            } else {
                out.append("IP")
                out.appendDecimal(versionAndLength >> 4)
            }
            out.append(" (invalid)")
            return
        }
        if !options.linkHeader { out.append("IP ") }
        guard cursor.has(ip, 20) else {
            out.append(" [|ip]")
            return
        }
        if length < 20 {
            out.append("truncated-ip ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            return
        }
        let headerLength = Int(versionAndLength & 0x0F) * 4
        guard headerLength >= 20 else {
            out.append("bad-hlen ")
            out.appendDecimal(headerLength)
            return
        }
        let totalLength = Int(try cursor.u16(ip + 2))
        guard totalLength >= headerLength else {
            out.append("bad-len ")
            out.appendDecimal(totalLength)
            return
        }
        if length < totalLength {
            out.append("truncated-ip - ")
            out.appendDecimal(UInt32(truncatingIfNeeded: totalLength - length))
            out.append(" bytes missing! ")
        }
        cursor.narrow(from: ip, length: min(length, totalLength))
        let payloadLength = totalLength - headerLength
        let fragmentField = try cursor.u16(ip + 6)
        let nextProtocol = try cursor.u8(ip + 9)
        if options.verbosity > 0 {
            guard try appendIPv4VerboseHeader(cursor, at: ip, headerLength: headerLength, fragmentField: fragmentField, into: &out) else {
                return
            }
        }
        if fragmentField & 0x1FFF == 0 {
            if !Self.printsOwnAddresses(nextProtocol) {
                try appendIPv4Address(cursor, at: ip + 12, into: &out)
                out.append(" > ")
                try appendIPv4Address(cursor, at: ip + 16, into: &out)
                out.append(": ")
            }
            guard cursor.has(ip, headerLength) else {
                // tcpdump leaves through its longjmp here: ` [|ip]`, and -X dumps from byte 0.
                out.append(" [remaining caplen(")
                out.appendDecimal(cursor.available(from: ip))
                out.append(") < header length(")
                out.appendDecimal(headerLength)
                out.append(")]")
                throw PacketDecodingError.capturedBytesEnd
            }
            let context = IPContext(
                offset: ip, isIPv6: false, headerProtocol: nextProtocol, fragmented: fragmentField & 0x2000 != 0, depth: depth)
            try printTransport(nextProtocol, &cursor, at: ip + headerLength, length: payloadLength, context: context, into: &out)
        } else {
            // A fragment that is not the first: tcpdump's -qq ("ultra quiet") prints nothing more.
            if options.quietness > 1 { return }
            try appendIPv4Address(cursor, at: ip + 12, into: &out)
            out.append(" > ")
            try appendIPv4Address(cursor, at: ip + 16, into: &out)
            out.append(": ip-proto-")
            out.appendDecimal(nextProtocol)
        }
    }

    /// TCP, UDP, SCTP and DCCP print `address.port > address.port` themselves.
    static func printsOwnAddresses(_ nextProtocol: UInt8) -> Bool {
        nextProtocol == 6 || nextProtocol == 17 || nextProtocol == 132 || nextProtocol == 33
    }

    /// tcpdump's `ip_demux_print`.
    mutating func printTransport(
        _ nextProtocol: UInt8, _ cursor: inout ByteCursor, at offset: Int, length: Int, context: IPContext, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        switch nextProtocol {
        case 6: try printTCP(&cursor, at: offset, length: length, ip: context, into: &out)
        case 17: try printUDP(&cursor, at: offset, length: length, ip: context, into: &out)
        case 1 where context.isIPv6, 2 where context.isIPv6, 58 where !context.isIPv6:
            out.append("[")
            Self.appendIPProtocolName(nextProtocol, into: &out)
            out.append(context.isIPv6 ? " requires IPv4] (invalid)" : " requires IPv6] (invalid)")
        case 1: try printICMP(cursor, at: offset, length: length, ip: context, into: &out)
        case 58: try printICMPv6(cursor, at: offset, length: length, ip: context, into: &out)
        case 4: try printIPv4(&cursor, at: offset, length: length, depth: context.depth + 1, into: &out)
        case 41: try printIPv6(&cursor, at: offset, length: length, depth: context.depth + 1, into: &out)
        case 2: try printIGMP(&cursor, at: offset, length: length, ip: context, into: &out)
        case 47: try printGRE(&cursor, at: offset, length: length, ip: context, into: &out)
        case 132: try printSCTP(&cursor, at: offset, length: length, ip: context, into: &out)
        case 33: try printDCCP(&cursor, at: offset, length: length, ip: context, into: &out)
        case 59: out.append("no next header")
        default: appendUnknownProtocol(nextProtocol, length: length, into: &out)
        }
    }

    /// tcpdump's line for a protocol it has no printer for: ` ip-proto-N LENGTH`.
    func appendUnknownProtocol(_ nextProtocol: UInt8, length: Int, into out: inout [UInt8]) {
        out.append(" ip-proto-")
        out.appendDecimal(nextProtocol)
        out.append(" ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
    }

    // MARK: Addresses

    func appendIPv4Address(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try cursor.check(offset, 4)
        for index in 0..<4 {
            if index > 0 { out.append(".") }
            out.appendDecimal(cursor.bytes[offset + index])
        }
    }

    /// The 16 address bytes at `offset` as tcpdump's `addrtostr6` writes them (see
    /// ``Swift/Array/appendIPv6(high:low:)``).
    func appendIPv6Address(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try cursor.check(offset, 16)
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(cursor.bytes[offset + index])
            low = low << 8 | UInt64(cursor.bytes[offset + 8 + index])
        }
        out.appendIPv6(high: high, low: low)
    }

    /// `prefix` and the IPv6 address at `offset`; nothing when the address is not all captured
    /// (it throws first), as tcpdump reads an address with `GET_IP6ADDR_STRING` among an
    /// `ND_PRINT`'s arguments before printing any of its text.
    func appendIPv6Address(_ cursor: ByteCursor, at offset: Int, after prefix: StaticString, into out: inout [UInt8]) throws(PacketDecodingError) {
        try cursor.check(offset, 16)
        out.append(prefix)
        try appendIPv6Address(cursor, at: offset, into: &out)
    }
}
