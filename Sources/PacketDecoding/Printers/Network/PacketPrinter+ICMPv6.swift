/// ICMPv6 (tcpdump's `icmp6_print`).
///
/// It prints as it goes, as tcpdump's does, so a message cut by the capture keeps its
/// beginning: `ICMP6, echo request [|icmp6]`. With `-v` the checksum verdict comes first
/// (`[icmp6 sum ok] `), the length moves (right after the type name for the neighbour-discovery
/// messages, nowhere for the others), and neighbour-discovery options
/// (PacketPrinter+ICMPv6Options.swift), MLD records (+ICMPv6MLD.swift), RPL objects
/// (+ICMPv6RPL.swift) and more of node information and router renumbering (+ICMPv6Info.swift)
/// are printed.
extension PacketPrinter {
    mutating func printICMPv6(_ cursor: ByteCursor, at icmp: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "icmp6"
        if length == 0 {
            out.append("ICMP6, length 0 (invalid)")
            return
        }
        let verbosity = options.verbosity
        if verbosity > 0 && !ip.fragmented && cursor.has(icmp, length) {
            let field = try cursor.u16(icmp + 2)
            let result = try pseudoHeaderChecksum(cursor, ip: ip, at: icmp, length: length, nextProtocol: 58)
            if result != 0 {
                out.append("[bad icmp6 cksum 0x")
                out.appendHex(UInt64(field), minimumDigits: 4)
                out.append(" -> 0x")
                out.appendHex(UInt64(InternetChecksum.shouldBe(field: field, result: result)), minimumDigits: 4)
                out.append("!] ")
            } else {
                out.append("[icmp6 sum ok] ")
            }
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
        switch type {
        case 133, 134, 135, 136, 137, 145, 147:
            if verbosity > 0 {
                out.append(", length ")
                out.appendDecimal(UInt32(truncatingIfNeeded: length))
            }
        default:
            break
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
                try appendIPv6Address(cursor, at: inner + 24, after: " for ", into: &out)
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
        case 133:
            try appendNeighborDiscoveryOptions(cursor, at: icmp, skipping: 8, length: length, into: &out)
        case 134:
            if verbosity > 0 {
                try appendRouterAdvertisement(cursor, at: icmp, into: &out)
                try appendNeighborDiscoveryOptions(cursor, at: icmp, skipping: 16, length: length, into: &out)
            }
        case 135:
            try appendIPv6Address(cursor, at: icmp + 8, after: ", who has ", into: &out)
            try appendNeighborDiscoveryOptions(cursor, at: icmp, skipping: 24, length: length, into: &out)
        case 136:
            try appendIPv6Address(cursor, at: icmp + 8, after: ", tgt is ", into: &out)
            if verbosity > 0 {
                Self.appendNeighborAdvertisementFlags(try cursor.u32(icmp + 4), into: &out)
                try appendNeighborDiscoveryOptions(cursor, at: icmp, skipping: 24, length: length, into: &out)
            }
        case 137:
            try appendIPv6Address(cursor, at: icmp + 24, after: ", ", into: &out)
            try appendIPv6Address(cursor, at: icmp + 8, after: " to ", into: &out)
            try appendNeighborDiscoveryOptions(cursor, at: icmp, skipping: 40, length: length, into: &out)
        case 143:
            try appendMLDv2Report(cursor, at: icmp, length: length, into: &out)
        case 144, 146:
            let identifier = try cursor.u16(icmp + 4)
            out.append(", id 0x")
            out.appendHex(UInt64(identifier), minimumDigits: 4)
        case 145:
            if verbosity > 0 { try appendHomeAgentAddresses(cursor, at: icmp, length: length, into: &out) }
        case 147:
            if verbosity > 0 {
                try appendMobilePrefixAdvertisement(cursor, at: icmp, into: &out)
                try appendNeighborDiscoveryOptions(cursor, at: icmp, skipping: 8, length: length, into: &out)
            }
        case 155:
            try appendRPL(cursor, at: icmp, code: code, length: length, into: &out)
        case 141, 142:
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
            if verbosity <= 1 { Self.appendUnknownData(cursor, at: icmp, length: length, indent: "\n\t", into: &out) }
            return
        }
        if verbosity == 0 {
            out.append(", length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
        }
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
    ) throws(PacketDecodingError) -> Bool {
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
            try appendIPv6Address(cursor, at: inner + 24, after: " ", into: &out)
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
            try appendIPv6Address(cursor, at: inner + 24, after: ", ", into: &out)
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
            guard options.verbosity > 1 else {
                Self.appendUnknownData(cursor, at: icmp, length: length, indent: "\n\t", into: &out)
                return false
            }
        }
        return true
    }

    /// tcpdump's `get_upperlayer`: walks the returned IPv6 datagram's extension headers to its
    /// TCP or UDP header; nil when that header's ports are not captured or the chain holds
    /// something else.
    private static func innerTransportHeader(_ cursor: ByteCursor, at ip: Int) throws(PacketDecodingError) -> (offset: Int, nextHeader: UInt8)? {
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
}
