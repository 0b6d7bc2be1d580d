/// ICMP (tcpdump's `icmp_print`) and ICMPv6 (`icmp6_print`) without `-v`.
///
/// The two printers fail differently, as tcpdump's do. The ICMP printer builds its whole text
/// before printing it, so a message cut by the capture prints nothing but ` [|icmp]` (through
/// the longjmp path when a read fails, so `-X` then dumps from byte 0). The ICMPv6 printer
/// prints as it goes, so a cut message keeps its beginning: `ICMP6, echo request [|icmp6]`.
extension PacketPrinter {
    // MARK: ICMP

    mutating func printICMP(_ cursor: ByteCursor, at icmp: Int, length: Int, fragmented: Bool, into out: inout [UInt8]) throws(Truncated) {
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
    }

    /// The text between `ICMP ` and `, length`; false when a checked read found the message
    /// cut short (tcpdump's `ND_TCHECK`, which prints ` [|icmp]` without the longjmp).
    private func appendICMPMessage(_ cursor: ByteCursor, at icmp: Int, into text: inout [UInt8]) throws(Truncated) -> Bool {
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
    private func appendICMPUnreachable(_ cursor: ByteCursor, at icmp: Int, code: UInt8, into text: inout [UInt8]) throws(Truncated) -> Bool {
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
    private func appendICMPRouterAdvertisement(_ cursor: ByteCursor, at icmp: Int, into text: inout [UInt8]) throws(Truncated) -> Bool {
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

    // MARK: ICMPv6

    mutating func printICMPv6(_ cursor: ByteCursor, at icmp: Int, length: Int, into out: inout [UInt8]) throws(Truncated) {
        protocolName = "icmp6"
        if length == 0 {
            out.append("ICMP6, length 0 (invalid)")
            return
        }
        let type = try cursor.u8(icmp)
        out.append("ICMP6, ")
        if let name = Self.icmpv6TypeName(type) {
            out.append(name)
        } else {
            out.append("unknown icmp6 type (")
            out.appendDecimal(type)
            out.append(")")
        }
        let code = try cursor.u8(icmp + 1)
        /// The returned datagram of an error message starts after the 8-byte ICMPv6 header.
        let inner = icmp + 8
        switch type {
        case 1:
            guard try appendICMPv6Unreachable(cursor, at: icmp, code: code, length: length, into: &out) else { return }
        case 2:
            let mtu = try cursor.u32(icmp + 4)
            out.append(", mtu ")
            out.appendDecimal(mtu)
        case 3:
            switch code {
            case 0:
                var address: [UInt8] = []
                try appendIPv6Address(cursor, at: inner + 24, into: &address)
                out.append(" for ")
                out.append(contentsOf: address)
            case 1:
                out.append(" (reassembly)")
            default:
                out.append(", unknown code (")
                out.appendDecimal(code)
                out.append(")")
            }
        case 4:
            guard cursor.has(inner + 24, 16) else {
                out.append(" [|icmp6]")
                return
            }
            let pointer = try cursor.u32(icmp + 4)
            switch code {
            case 0: out.append(", erroneous - octet ")
            case 1: out.append(", next header - octet ")
            case 2: out.append(", option - octet ")
            case 3: out.append(", incomplete header chain - octet ")
            default:
                out.append(", code-#")
                out.appendDecimal(code)
            }
            if code <= 3 { out.appendDecimal(pointer) }
        case 128, 129:
            let identifier = try cursor.u16(icmp + 4)
            let sequence = try cursor.u16(icmp + 6)
            out.append(", id ")
            out.appendDecimal(identifier)
            out.append(", seq ")
            out.appendDecimal(sequence)
        case 130:
            if length == 24 {
                try appendMLDv1(cursor, at: icmp, into: &out)
            } else if length >= 28 {
                out.append(" v2")
                try appendMLDv2Query(cursor, at: icmp, length: length, into: &out)
            } else {
                out.append(" unknown-version (len ")
                out.appendDecimal(UInt32(truncatingIfNeeded: length))
                out.append(") ")
            }
        case 131, 132:
            try appendMLDv1(cursor, at: icmp, into: &out)
        case 135:
            var address: [UInt8] = []
            try appendIPv6Address(cursor, at: icmp + 8, into: &address)
            out.append(", who has ")
            out.append(contentsOf: address)
        case 136:
            var address: [UInt8] = []
            try appendIPv6Address(cursor, at: icmp + 8, into: &address)
            out.append(", tgt is ")
            out.append(contentsOf: address)
        case 137:
            var destination: [UInt8] = []
            try appendIPv6Address(cursor, at: icmp + 24, into: &destination)
            out.append(", ")
            out.append(contentsOf: destination)
            var target: [UInt8] = []
            try appendIPv6Address(cursor, at: icmp + 8, into: &target)
            out.append(" to ")
            out.append(contentsOf: target)
        case 143:
            if length < 8 {
                out.append(" [invalid len ")
                out.appendDecimal(UInt32(truncatingIfNeeded: length))
                out.append("]")
            } else {
                let groups = try cursor.u16(icmp + 6)
                out.append(", ")
                out.appendDecimal(groups)
                out.append(" group record(s)")
            }
        case 144, 146:
            let identifier = try cursor.u16(icmp + 4)
            out.append(", id 0x")
            out.appendHex(UInt64(identifier), minimumDigits: 4)
        case 155:
            Self.appendRPL(code: code, into: &out)
        case 133, 134, 141, 142, 145, 147:
            break
        case 138:
            try appendRouterRenumbering(cursor, at: icmp, into: &out)
        case 139:
            try appendNodeInformationQuery(cursor, at: icmp, into: &out)
        case 140:
            try appendNodeInformationReply(cursor, at: icmp, length: length, into: &out)
        default:
            out.append(", length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            appendUnknownData(cursor, at: icmp, length: length, into: &out)
            return
        }
        out.append(", length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
    }

    /// tcpdump's ICMPv6 type names (`icmp6_type_values`).
    private static func icmpv6TypeName(_ type: UInt8) -> StaticString? {
        switch type {
        case 1: "destination unreachable"
        case 2: "packet too big"
        case 3: "time exceeded in-transit"
        case 4: "parameter problem"
        case 128: "echo request"
        case 129: "echo reply"
        case 130: "multicast listener query"
        case 131: "multicast listener report"
        case 132: "multicast listener done"
        case 133: "router solicitation"
        case 134: "router advertisement"
        case 135: "neighbor solicitation"
        case 136: "neighbor advertisement"
        case 137: "redirect"
        case 138: "router renumbering"
        case 139: "who-are-you request"
        case 140: "who-are-you reply"
        case 141: "inverse neighbor solicitation"
        case 142: "inverse neighbor advertisement"
        case 143: "multicast listener report v2"
        case 144: "ha discovery request"
        case 145: "ha discovery reply"
        case 146: "mobile router solicitation"
        case 147: "mobile router advertisement"
        case 155: "RPL"
        case 200: "mtrace response"
        case 201: "mtrace message"
        default: nil
        }
    }

    /// Destination unreachable: the code's name, then the returned datagram's destination (and
    /// port). False when the line ends early: a cut returned datagram (` [|icmp6]`) or an
    /// unknown code, which tcpdump follows with a hex dump of the message instead of its length.
    private func appendICMPv6Unreachable(
        _ cursor: ByteCursor, at icmp: Int, code: UInt8, length: Int, into out: inout [UInt8]
    ) throws(Truncated) -> Bool {
        let inner = icmp + 8
        out.append(", ")
        switch code {
        case 0: out.append("unreachable route")
        case 1: out.append(" unreachable prohibited")
        case 2: out.append("beyond scope")
        case 3: out.append("unreachable address")
        case 4: out.append("unreachable port")
        default:
            out.append("unknown unreach code (")
            out.appendDecimal(code)
            out.append(")")
        }
        switch code {
        case 0, 1, 3:
            var address: [UInt8] = []
            try appendIPv6Address(cursor, at: inner + 24, into: &address)
            out.append(" ")
            out.append(contentsOf: address)
        case 2:
            var destination: [UInt8] = [], source: [UInt8] = []
            try appendIPv6Address(cursor, at: inner + 24, into: &destination)
            try appendIPv6Address(cursor, at: inner + 8, into: &source)
            out.append(" ")
            out.append(contentsOf: destination)
            out.append(", source address ")
            out.append(contentsOf: source)
        case 4:
            guard let (transport, nextHeader) = try Self.innerTransportHeader(cursor, at: inner) else {
                out.append(" [|icmp6]")
                return false
            }
            let port = try cursor.u16(transport + 2)
            var address: [UInt8] = []
            try appendIPv6Address(cursor, at: inner + 24, into: &address)
            out.append(", ")
            out.append(contentsOf: address)
            switch nextHeader {
            case 6: out.append(" tcp port ")
            case 17: out.append(" udp port ")
            default:
                out.append(" protocol ")
                out.appendDecimal(nextHeader)
                out.append(" port ")
            }
            out.appendDecimal(port)
            if nextHeader != 6 && nextHeader != 17 { out.append(" unreachable") }
        default:
            appendUnknownData(cursor, at: icmp, length: length, into: &out)
            return false
        }
        return true
    }

    /// tcpdump's `get_upperlayer`: walks the returned IPv6 datagram's extension headers to its
    /// TCP or UDP header; nil when that header's ports are not captured or the chain holds
    /// something else.
    private static func innerTransportHeader(_ cursor: ByteCursor, at ip: Int) throws(Truncated) -> (offset: Int, nextHeader: UInt8)? {
        guard cursor.has(ip + 6, 1) else { return nil }
        var nextHeader = try cursor.u8(ip + 6)
        var offset = ip
        var advance = 40
        while offset < cursor.end {
            offset += advance
            switch nextHeader {
            case 6, 17:
                return cursor.has(offset + 2, 2) ? (offset, nextHeader) : nil
            case 0, 60, 43:
                guard cursor.has(offset + 1, 1) else { return nil }
                nextHeader = try cursor.u8(offset)
                advance = (Int(try cursor.u8(offset + 1)) + 1) * 8
            case 44:
                guard cursor.has(offset + 2, 2) else { return nil }
                if try cursor.u16(offset + 2) & 0xFFF8 != 0 { return nil }
                nextHeader = try cursor.u8(offset)
                advance = 8
            case 51:
                guard cursor.has(offset + 1, 1) else { return nil }
                nextHeader = try cursor.u8(offset)
                advance = (Int(try cursor.u8(offset + 1)) + 2) * 4
            default:
                return nil
            }
        }
        return nil
    }

    /// MLDv1 (`mld6_print`), glued to the type name as tcpdump prints it:
    /// `multicast listener reportmax resp delay: 0 addr: ff02::1`. Nothing when the 24-byte
    /// message is not all captured.
    private func appendMLDv1(_ cursor: ByteCursor, at icmp: Int, into out: inout [UInt8]) throws(Truncated) {
        guard cursor.has(icmp, 24) else { return }
        out.append("max resp delay: ")
        out.appendDecimal(try cursor.u16(icmp + 4))
        out.append(" addr: ")
        try appendIPv6Address(cursor, at: icmp + 8, into: &out)
    }

    /// MLDv2 query without `-v`: ` [gaddr ADDRESS, N source(s)]`.
    private func appendMLDv2Query(_ cursor: ByteCursor, at icmp: Int, length: Int, into out: inout [UInt8]) throws(Truncated) {
        _ = try cursor.u16(icmp + 4)  // tcpdump reads the maximum response code first (printed only with -v)
        var address: [UInt8] = []
        try appendIPv6Address(cursor, at: icmp + 8, into: &address)
        out.append(" [gaddr ")
        out.append(contentsOf: address)
        let sources = Int(try cursor.u16(icmp + 26))
        if sources > 0 {
            if length < 28 + sources * 16 {
                out.append(" [invalid number of sources]")
            } else {
                out.append(", ")
                out.appendDecimal(sources)
                out.append(" source(s)")
            }
        }
        out.append("]")
    }

    /// RPL control messages without `-v`: the code's name.
    private static func appendRPL(code: UInt8, into out: inout [UInt8]) {
        if code & 0x80 != 0 {
            out.append(", (SEC) [worktodo]")
            return
        }
        out.append(", (CLR)")
        switch code & 0x7F {
        case 0: out.append("DODAG Information Solicitation")
        case 1: out.append("DODAG Information Object")
        case 2: out.append("Destination Advertisement Object")
        case 3: out.append("Destination Advertisement Object Ack")
        default:
            out.append("RPL message, unknown code ")
            out.appendDecimal(code)
        }
    }

    /// tcpdump's `print_unknown_data`: `-x`-style hex lines of the message, as much of it as
    /// was captured, whatever the dump flags.
    private func appendUnknownData(_ cursor: ByteCursor, at offset: Int, length: Int, into out: inout [UInt8]) {
        let count = min(length, cursor.available(from: offset))
        guard count > 0 else { return }
        HexDump.appendHex(UnsafeRawBufferPointer(rebasing: cursor.bytes[offset..<(offset + count)]), into: &out)
    }

    // MARK: ICMPv6 node information and router renumbering

    /// Node information query (RFC 4620; tcpdump's `icmp6_nodeinfo_print`): ` node information
    /// query (node addresses [GSLCA], subject=ADDRESS)`, or the KAME ` who-are-you request`.
    private func appendNodeInformationQuery(_ cursor: ByteCursor, at icmp: Int, into out: inout [UInt8]) throws(Truncated) {
        let captured = cursor.available(from: icmp)
        if captured == 12 {
            out.append(" who-are-you request")
            return
        }
        out.append(" node information query")
        guard cursor.has(icmp, 16) else {
            out.append(" [|icmp6]")
            return
        }
        out.append(" (")
        let queryType = try cursor.u16(icmp + 4)
        let flags = try cursor.u16(icmp + 6)
        switch queryType {
        case 0: out.append("noop")
        case 1: Self.appendSupportedQueryTypes(flags, into: &out)
        case 2: out.append("DNS name")
        case 3:
            out.append("node addresses")
            if flags != 0 { Self.appendNodeAddressFlags(flags, truncate: false, into: &out) }
        default: out.append("unknown")
        }
        if queryType == 0 || queryType == 1 {
            out.append(")")
            return
        }
        if captured == 16 {
            out.append(", 03 draft)")
            return
        }
        let subject = icmp + 16
        switch try cursor.u8(icmp + 1) {
        case 0:
            if cursor.has(icmp, 32) && captured == 32 {
                out.append(", subject=")
                try appendIPv6Address(cursor, at: subject, into: &out)
            }
        case 1:
            out.append(", subject=DNS name")
            try Self.appendNodeInformationName(cursor, from: subject, into: &out)
        case 2:
            if cursor.has(icmp, 20) && captured == 20 {
                out.append(", subject=")
                try appendIPv4Address(cursor, at: subject, into: &out)
            }
        default:
            out.append(", unknown subject")
        }
        out.append(")")
    }

    /// Node information reply: ` node information reply (refused)`, `(node addresses A(ttl) …)`.
    private func appendNodeInformationReply(_ cursor: ByteCursor, at icmp: Int, length: Int, into out: inout [UInt8]) throws(Truncated) {
        let captured = cursor.available(from: icmp)
        guard length <= captured, cursor.has(icmp, 16) else {
            out.append(" [|icmp6]")
            return
        }
        out.append(" node information reply (")
        let code = try cursor.u8(icmp + 1)
        var needsComma = false
        switch code {
        case 1:
            out.append("refused")
            needsComma = true
        case 2:
            out.append("unknown")
            needsComma = true
        default:
            break
        }
        guard code == 0 else {
            out.append(")")
            return
        }
        if needsComma { out.append(", ") }
        let flags = try cursor.u16(icmp + 6)
        switch try cursor.u16(icmp + 4) {
        case 0:
            out.append("noop")
        case 1:
            Self.appendSupportedQueryTypes(flags, into: &out)
        case 2:
            out.append("DNS name")
            try Self.appendNodeInformationName(cursor, from: icmp + 20, into: &out)
            if flags & 0x01 != 0 {
                out.append(" [TTL=")
                out.appendDecimal(try cursor.u32(icmp + 16))
                out.append("]")
            }
        case 3:
            out.append("node addresses")
            var offset = 16
            while offset + 20 <= captured {
                var address: [UInt8] = []
                try appendIPv6Address(cursor, at: icmp + offset + 4, into: &address)
                let ttl = try cursor.u32(icmp + offset)
                out.append(" ")
                out.append(contentsOf: address)
                out.append("(")
                out.appendDecimal(ttl)
                out.append(")")
                offset += 20
            }
            if flags != 0 { Self.appendNodeAddressFlags(flags, truncate: true, into: &out) }
        default:
            out.append("unknown")
        }
        out.append(")")
    }

    private static func appendSupportedQueryTypes(_ flags: UInt16, into out: inout [UInt8]) {
        out.append("supported qtypes")
        if flags != 0 { out.append(flags & 0x01 != 0 ? " [C]" : " []") }
    }

    /// ` [aGSLCA]` (and `T` in replies): the node-address flags that are set.
    private static func appendNodeAddressFlags(_ flags: UInt16, truncate: Bool, into out: inout [UInt8]) {
        out.append(" [")
        let letters: [(UInt16, UInt8)] = [(0x40, 0x61), (0x20, 0x47), (0x10, 0x53), (0x08, 0x4C), (0x04, 0x43), (0x02, 0x41)]
        for (bit, letter) in letters where flags & bit != 0 { out.append(letter) }
        if truncate && flags & 0x01 != 0 { out.append(UInt8(ascii: "T")) }
        out.append("]")
    }

    /// A node-information name: an old-draft Pascal string when its length byte covers the rest
    /// of the capture, otherwise DNS labels (tcpdump's `dnsname_print`, no compression).
    private static func appendNodeInformationName(_ cursor: ByteCursor, from start: Int, into out: inout [UInt8]) throws(Truncated) {
        let end = cursor.end
        if Int(try cursor.u8(start)) == end - start - 1 {
            out.append(", \"")
            for offset in (start + 1)..<max(start + 1, end) { appendEscapedCharacter(try cursor.u8(offset), into: &out) }
            out.append("\"")
            return
        }
        out.append(", \"")
        var offset = start
        while offset < end {
            let labelLength = Int(try cursor.u8(offset))
            offset += 1
            if labelLength == 0 {
                if offset == end {
                    out.append(".")
                } else {
                    // A lone zero byte left at the end means the name was cut; anything else is invalid.
                    let cut = offset + 1 == end ? try cursor.u8(offset) == 0 : false
                    if !cut { out.append("???") }
                }
                break
            }
            if labelLength > end - offset {
                out.append("???")
                break
            }
            var left = labelLength
            while left > 0 && offset < end {
                appendEscapedCharacter(try cursor.u8(offset), into: &out)
                offset += 1
                left -= 1
            }
            if offset + 1 < end, try cursor.u8(offset) != 0 { out.append(".") }
        }
        out.append("\"")
    }

    /// tcpdump's `fn_print_char`: `M-` for bytes with the top bit set, `^` for control bytes.
    private static func appendEscapedCharacter(_ byte: UInt8, into out: inout [UInt8]) {
        var character = byte
        if character >= 0x80 {
            character &= 0x7F
            out.append("M-")
        }
        if !(0x20...0x7E).contains(character) {
            character ^= 0x40
            out.append("^")
        }
        out.append(character)
    }

    /// Router renumbering (tcpdump's `icmp6_rrenum_print` without `-v`): `, command, seq=N
    /// match(add,PREFIX/LEN) use(PREFIX/USE/KEEP)`.
    private func appendRouterRenumbering(_ cursor: ByteCursor, at icmp: Int, into out: inout [UInt8]) throws(Truncated) {
        guard cursor.has(icmp + 12, 4) else {
            out.append(" [|icmp6]")
            return
        }
        let code = try cursor.u8(icmp + 1)
        switch code {
        case 0: out.append(", command")
        case 1: out.append(", result")
        case 255: out.append(", sequence number reset")
        default:
            out.append(", code-#")
            out.appendDecimal(code)
        }
        out.append(", seq=")
        out.appendDecimal(try cursor.u32(icmp + 4))
        guard code == 0 else { return }
        let match = icmp + 16
        guard cursor.has(match + 8, 16) else {
            out.append(" [|icmp6]")
            return
        }
        out.append(" match(")
        let matchCode = try cursor.u8(match)
        switch matchCode {
        case 1: out.append("add")
        case 2: out.append("change")
        case 3: out.append("setglobal")
        default:
            out.append("#")
            out.appendDecimal(matchCode)
        }
        out.append(",")
        try appendIPv6Address(cursor, at: match + 8, into: &out)
        out.append("/")
        out.appendDecimal(try cursor.u8(match + 3))
        out.append(")")
        var count = Int(try cursor.u8(match + 1)) - 3
        guard count % 4 == 0 else {
            out.append(" [|icmp6]")
            return
        }
        count /= 4
        var use = match + 24
        while count > 0 {
            count -= 1
            guard cursor.has(use + 16, 16) else {
                out.append(" [|icmp6]")
                return
            }
            out.append(" use(")
            let useFlags = try cursor.u8(use + 12)
            if useFlags != 0 {
                if useFlags & 0x80 != 0 { out.append("V") }
                if useFlags & 0x40 != 0 { out.append("P") }
                out.append(",")
            }
            try appendIPv6Address(cursor, at: use + 16, into: &out)
            out.append("/")
            out.appendDecimal(try cursor.u8(use))
            out.append("/")
            out.appendDecimal(try cursor.u8(use + 1))
            out.append(")")
            use += 32
        }
    }
}
