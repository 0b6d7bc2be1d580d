/// ICMP (tcpdump's `icmp_print`). With `-v`: a wrong checksum, the datagram an error message
/// returns (printed by the IPv4 printer on the next line) and the RFC 4884 extensions
/// (PacketPrinter+ICMPExtensions.swift).
///
/// The ICMP printer builds its whole text before printing it, as tcpdump's does, so a message
/// cut by the capture prints nothing but ` [|icmp]` (through the longjmp path when a read
/// fails, so `-X` then dumps from byte 0). The ICMPv6 printer (PacketPrinter+ICMPv6.swift)
/// prints as it goes instead.
extension PacketPrinter {
    // MARK: ICMP

    mutating func printICMP(_ cursor: ByteCursor, at icmp: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "icmp"
        var text: [UInt8] = []
        guard try appendICMPMessage(cursor, at: icmp, into: &text) else {
            out.append(" [|icmp]")
            return
        }
        out.append("ICMP ")
        out.append(contentsOf: text)
        out.append(", length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
        guard options.verbosity > 0 else { return }
        if !ip.fragmented && cursor.has(icmp, length) {
            let result = InternetChecksum.result(cursor, at: icmp, count: length)
            if result != 0 {
                let field = try cursor.u16(icmp + 2)
                out.append(" (wrong icmp cksum ")
                out.appendHex(UInt64(field))
                out.append(" (->")
                out.appendHex(UInt64(InternetChecksum.shouldBe(field: field, result: result)))
                out.append(")!)")
            }
        }
        let type = try cursor.u8(icmp)
        if type == 3 || type == 4 || type == 5 || type == 11 || type == 12 {
            try printICMPQuotedDatagram(cursor, at: icmp + 8, depth: ip.depth + 1, into: &out)
            protocolName = "icmp"
        }
        if length > 136 && (type == 3 || type == 11 || type == 12) {
            try appendICMPExtensions(cursor, at: icmp, length: length, into: &out)
        }
    }

    /// `-v` on an error message: the datagram it returns, on its own line, as `ip_print` prints
    /// it (with its own `-v` header), seeing no byte past its IP total length.
    private mutating func printICMPQuotedDatagram(_ cursor: ByteCursor, at inner: Int, depth: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.append("\n\t")
        let innerLength = Int(try cursor.u16(inner + 2))
        var quoted = cursor
        quoted.narrow(from: inner, length: innerLength)
        try printIPv4(&quoted, at: inner, length: innerLength, depth: depth, into: &out)
    }

    /// The text between `ICMP ` and `, length`; false when a checked read found the message
    /// cut short (tcpdump's `ND_TCHECK`, which prints ` [|icmp]` without the longjmp).
    private func appendICMPMessage(_ cursor: ByteCursor, at icmp: Int, into text: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        let type = try cursor.u8(icmp)
        let code = try cursor.u8(icmp + 1)
        /// The returned datagram's destination address (its IP header starts at byte 8).
        let innerDestination = icmp + 24
        switch type {
        case 0, 8:
            text.append(type == 8 ? "echo request, id " : "echo reply, id ")
            text.appendDecimal(try cursor.u16(icmp + 4))
            text.append(", seq ")
            text.appendDecimal(try cursor.u16(icmp + 6))
        case 3:
            return try appendICMPUnreachable(cursor, at: icmp, code: code, into: &text)
        case 5:
            var gateway: [UInt8] = [], destination: [UInt8] = []
            try appendIPv4Address(cursor, at: icmp + 4, into: &gateway)
            try appendIPv4Address(cursor, at: innerDestination, into: &destination)
            switch code {
            case 0, 1, 2, 3:
                text.append(code < 2 ? "redirect " : "redirect-tos ")
                text.append(contentsOf: destination)
                text.append(code % 2 == 0 ? " to net " : " to host ")
            default:
                text.append("redirect-#")
                text.appendDecimal(code)
                text.append(" ")
                text.append(contentsOf: destination)
                text.append(" to ")
            }
            text.append(contentsOf: gateway)
        case 9:
            return try appendICMPRouterAdvertisement(cursor, at: icmp, into: &text)
        case 11:
            guard cursor.has(innerDestination, 4) else { return false }
            switch code {
            case 0: text.append("time exceeded in-transit")
            case 1: text.append("ip reassembly time exceeded")
            default:
                text.append("time exceeded-#")
                text.appendDecimal(code)
            }
        case 12:
            if code != 0 {
                text.append("parameter problem - code ")
                text.appendDecimal(code)
            } else {
                text.append("parameter problem - octet ")
                text.appendDecimal(try cursor.u8(icmp + 4))
            }
        case 18:
            text.append("address mask is 0x")
            text.appendHex(UInt64(try cursor.u32(icmp + 8)), minimumDigits: 8)
        case 13:
            text.append("time stamp query id ")
            text.appendDecimal(try cursor.u16(icmp + 4))
            text.append(" seq ")
            text.appendDecimal(try cursor.u16(icmp + 6))
        case 14:
            guard cursor.has(icmp + 16, 4) else { return false }
            text.append("time stamp reply id ")
            text.appendDecimal(try cursor.u16(icmp + 4))
            text.append(" seq ")
            text.appendDecimal(try cursor.u16(icmp + 6))
            text.append(": org ")
            Self.appendMillisecondsOfDay(try cursor.u32(icmp + 8), into: &text)
            text.append(", recv ")
            Self.appendMillisecondsOfDay(try cursor.u32(icmp + 12), into: &text)
            text.append(", xmit ")
            Self.appendMillisecondsOfDay(try cursor.u32(icmp + 16), into: &text)
        case 4: text.append("source quench")
        case 10: text.append("router solicitation")
        case 15: text.append("information request")
        case 16: text.append("information reply")
        case 17: text.append("address mask request")
        default:
            text.append("type-#")
            text.appendDecimal(type)
        }
        return true
    }

    /// Destination unreachable: each code has its own wording around the returned datagram's
    /// destination (`host X unreachable`, `X udp port 9 unreachable`, …).
    private func appendICMPUnreachable(_ cursor: ByteCursor, at icmp: Int, code: UInt8, into text: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        let inner = icmp + 8
        switch code {
        case 2:
            let innerProtocol = try cursor.u8(inner + 9)
            try appendIPv4Address(cursor, at: inner + 16, into: &text)
            text.append(" protocol ")
            text.appendDecimal(innerProtocol)
            text.append(" unreachable")
        case 3:
            guard cursor.has(inner + 9, 1) else { return false }
            let innerHeaderLength = Int(try cursor.u8(inner) & 0x0F) * 4
            let port = try cursor.u16(inner + innerHeaderLength + 2)
            let innerProtocol = try cursor.u8(inner + 9)
            try appendIPv4Address(cursor, at: inner + 16, into: &text)
            switch innerProtocol {
            case 6: text.append(" tcp port ")
            case 17: text.append(" udp port ")
            default:
                text.append(" protocol ")
                text.appendDecimal(innerProtocol)
                text.append(" port ")
            }
            text.appendDecimal(port)
            text.append(" unreachable")
        case 4:
            let mtu = try cursor.u16(icmp + 6)
            try appendIPv4Address(cursor, at: inner + 16, into: &text)
            text.append(" unreachable - need to frag")
            if mtu != 0 {
                text.append(" (mtu ")
                text.appendDecimal(mtu)
                text.append(")")
            }
        default:
            let (before, after) = Self.unreachableWording(code)
            var address: [UInt8] = []
            try appendIPv4Address(cursor, at: inner + 16, into: &address)
            text.append(before)
            text.append(contentsOf: address)
            text.append(after)
            if code > 15 { text.appendDecimal(code) }
        }
        return true
    }

    /// The words before and after the address for the unreachable codes without details
    /// (codes above 15 end with `#` and the code).
    private static func unreachableWording(_ code: UInt8) -> (StaticString, StaticString) {
        switch code {
        case 0: ("net ", " unreachable")
        case 1: ("host ", " unreachable")
        case 5: ("", " unreachable - source route failed")
        case 6: ("net ", " unreachable - unknown")
        case 7: ("host ", " unreachable - unknown")
        case 8: ("", " unreachable - source host isolated")
        case 9: ("net ", " unreachable - admin prohibited")
        case 10: ("host ", " unreachable - admin prohibited")
        case 11: ("net ", " unreachable - tos prohibited")
        case 12: ("host ", " unreachable - tos prohibited")
        case 13: ("host ", " unreachable - admin prohibited filter")
        case 14: ("host ", " unreachable - host precedence violation")
        case 15: ("host ", " unreachable - precedence cutoff")
        default: ("", " unreachable - #")
        }
    }

    /// `router advertisement lifetime 30:00 2: {192.0.2.1 0} …` (RFC 1256).
    private func appendICMPRouterAdvertisement(_ cursor: ByteCursor, at icmp: Int, into text: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        text.append("router advertisement")
        guard cursor.has(icmp + 4, 4) else { return false }
        text.append(" lifetime ")
        let lifetime = UInt64(try cursor.u16(icmp + 6))
        if lifetime < 60 {
            text.appendDecimal(lifetime)
        } else if lifetime < 3600 {
            text.appendDecimal(lifetime / 60)
            text.append(":")
            text.appendDecimal(lifetime % 60, minimumDigits: 2)
        } else {
            text.appendDecimal(lifetime / 3600)
            text.append(":")
            text.appendDecimal(lifetime % 3600 / 60, minimumDigits: 2)
            text.append(":")
            text.appendDecimal(lifetime % 60, minimumDigits: 2)
        }
        let count = Int(try cursor.u8(icmp + 4))
        text.append(" ")
        text.appendDecimal(count)
        text.append(":")
        let entrySize = try cursor.u8(icmp + 5)
        guard entrySize == 2 else {
            text.append(" [size ")
            text.appendDecimal(entrySize)
            text.append("]")
            return true
        }
        for index in 0..<count {
            let entry = icmp + 8 + index * 8
            guard cursor.has(entry, 8) else { return false }
            text.append(" {")
            try appendIPv4Address(cursor, at: entry, into: &text)
            text.append(" ")
            text.appendDecimal(try cursor.u32(entry + 4))
            text.append("}")
        }
        return true
    }

    /// ICMP timestamps: milliseconds since midnight UTC as `hh:mm:ss.mmm`.
    private static func appendMillisecondsOfDay(_ value: UInt32, into text: inout [UInt8]) {
        let milliseconds = UInt64(value % 1000)
        var seconds = UInt64(value / 1000)
        var minutes = seconds / 60
        seconds -= minutes * 60
        let hours = minutes / 60
        minutes -= hours * 60
        text.appendDecimal(hours, minimumDigits: 2)
        text.append(":")
        text.appendDecimal(minutes, minimumDigits: 2)
        text.append(":")
        text.appendDecimal(seconds, minimumDigits: 2)
        text.append(".")
        text.appendDecimal(milliseconds, minimumDigits: 3)
    }
}
