/// The Ethernet printer (tcpdump's `ether_print`): MAC addresses with `-e`, 802.1Q/QinQ tags,
/// 802.3 length fields handed to LLC, and the ethertype hand-off. It prints frames at any offset
/// of the packet, so tunnels (VXLAN, Geneve, GRE, bridged SNAP) print their inner frames with it.
extension PacketPrinter {
    /// tcpdump's `ether_common_print` for the frame at `start`, `length` bytes long on the wire.
    ///
    /// Returns the header length tcpdump adds to its link-header length (the `-X` dump of a
    /// top-level frame skips it): the Ethernet header and tags, plus the LLC/SNAP header of an
    /// 802.3 frame; all captured bytes when the header itself is cut. A frame claiming fewer
    /// bytes than were captured prints `[length N < caplen M] (invalid)`.
    ///
    /// `depth`: how many headers enclose the frame (tunnels, IP in IP); a frame nested
    /// ``maximumIPNesting`` deep ends the packet as a capture cut there (tcpdump has no limit;
    /// a 64 KiB packet could otherwise nest thousands of frames and overflow the stack).
    @discardableResult
    mutating func printEthernet(
        _ cursor: inout ByteCursor, at start: Int, length: Int, depth: Int = 0, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Int {
        protocolName = "ether"
        guard depth < Self.maximumIPNesting else { throw PacketDecodingError.capturedBytesEnd }
        // tcpdump's lengths are unsigned: a negative one is a huge one.
        let wireLength = length < 0 ? Int(UInt32(truncatingIfNeeded: length)) : length
        let captured = cursor.available(from: start)
        if wireLength < captured {
            out.append("[length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: wireLength))
            out.append(" < caplen ")
            out.appendDecimal(UInt32(truncatingIfNeeded: captured))
            out.append("] (invalid)")
            return wireLength
        }
        guard captured >= 14 else {
            out.append(" [|ether]")
            return captured
        }
        if options.linkHeader {
            appendMAC(cursor, at: start + 6, into: &out)
            out.append(" > ")
            appendMAC(cursor, at: start, into: &out)
            out.append(", ")
        }
        var headerLength = 14
        var length = wireLength - 14
        var caplen = captured - 14
        var type = try cursor.u16(start + 12)
        var printedLength = false
        /// `ethertype NAME (0xXXXX)` and, the first time, `, length N: ` (the frame's length),
        /// after that `, `.
        func appendTypeAndLength(_ type: UInt16, _ printer: PacketPrinter, _ out: inout [UInt8]) {
            printer.appendEthertype(type, into: &out)
            if printedLength {
                out.append(", ")
            } else {
                out.append(", length ")
                out.appendDecimal(UInt32(truncatingIfNeeded: wireLength))
                out.append(": ")
                printedLength = true
            }
        }
        while Self.isVLANType(type) {
            if caplen < 4 || length < 4 {
                protocolName = "vlan"
                out.append(" [|vlan]")
                return headerLength + (caplen < 4 ? caplen : length)
            }
            if options.linkHeader {
                let tag = try cursor.u16(start + headerLength)
                appendTypeAndLength(type, self, &out)
                Self.appendVLANTag(tag, into: &out)
                out.append(", ")
            }
            type = try cursor.u16(start + headerLength + 2)
            headerLength += 4
            length -= 4
            caplen -= 4
        }
        let payload = start + headerLength
        if type <= 1500 {
            // A length field: the LLC header follows, and the frame ends where the field says.
            if Int(type) < length { length = Int(type) }
            cursor.narrow(from: payload, length: length)
            if options.linkHeader {
                out.append("802.3")
                if !printedLength {
                    out.append(", length ")
                    out.appendDecimal(UInt32(truncatingIfNeeded: length))
                    out.append(": ")
                }
            }
            return headerLength + (try printLLCClaimingPayload(&cursor, at: payload, length: length, macs: start, depth: depth, into: &out))
        }
        if type == 0x8870 {
            // Alteon jumbo frames carry an LLC header after the type, and -e names no type.
            return headerLength + (try printLLCClaimingPayload(&cursor, at: payload, length: length, macs: start, depth: depth, into: &out))
        }
        if options.linkHeader { appendTypeAndLength(type, self, &out) }
        if try !printEthertype(type, &cursor, at: payload, length: length, depth: depth, into: &out) {
            if !options.linkHeader {
                appendMAC(cursor, at: start + 6, into: &out)
                out.append(" > ")
                appendMAC(cursor, at: start, into: &out)
                out.append(", ")
                appendEthertype(type, into: &out)
                out.append(", length ")
                out.appendDecimal(UInt32(truncatingIfNeeded: wireLength))
                out.append(": ")
            }
            appendDefaultDump(cursor, from: payload, into: &out)
        }
        return headerLength
    }

    /// `llc_print` as Ethernet calls it: the LLC header length, after dumping the payload of
    /// a frame no printer claimed.
    private mutating func printLLCClaimingPayload(
        _ cursor: inout ByteCursor, at payload: Int, length: Int, macs: Int, depth: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Int {
        let llcLength = try printLLC(&cursor, at: payload, length: length, macs: macs, depth: depth, into: &out)
        guard llcLength < 0 else { return llcLength }
        appendDefaultDump(cursor, from: payload, into: &out)
        return -llcLength
    }

    static func isVLANType(_ type: UInt16) -> Bool {
        type == 0x8100 || type == 0x88A8 || type == 0x9100 || type == 0x9200
    }

    /// tcpdump's `ethertype_print`: hands the payload to the network-layer printer; false when
    /// sockctl has no printer for the type (tcpdump's unknown types, and those it decodes with
    /// printers sockctl lacks: the caller then prints the raw bytes).
    /// `depth`: the headers enclosing the payload, as for ``printEthernet(_:at:length:depth:into:)``.
    mutating func printEthertype(
        _ type: UInt16, _ cursor: inout ByteCursor, at offset: Int, length: Int, depth: Int = 0, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Bool {
        switch type {
        case 0x0800: try printIPv4(&cursor, at: offset, length: length, depth: depth, into: &out)
        case 0x86DD: try printIPv6(&cursor, at: offset, length: length, depth: depth, into: &out)
        case 0x0806, 0x8035: try printARP(&cursor, at: offset, length: length, into: &out)
        case 0x88CC: try printLLDP(cursor, at: offset, length: length, into: &out)
        case 0x8863, 0x8864, 0x3C12, 0x3C13: try printPPPoE(&cursor, at: offset, length: length, depth: depth, into: &out)
        default: return false
        }
        return true
    }

    /// `ethertype IPv4 (0x0800)`.
    func appendEthertype(_ type: UInt16, into out: inout [UInt8]) {
        if options.quick {
            // tcpdump's -q: the name alone.
            if let name = Self.knownEthertypeName(type) {
                out.append(name)
            } else {
                out.append("Unknown Ethertype (0x")
                out.appendHex(UInt64(type), minimumDigits: 4)
                out.append(")")
            }
            return
        }
        out.append("ethertype ")
        Self.appendEthertypeName(type, unknown: "Unknown", into: &out)
    }

    /// `NAME (0xXXXX)`: the ethertype's name from tcpdump's `ethertype_values` (`unknown` when
    /// it has none) and its number, as `tok2str(ethertype_values, unknown, type)` and `(0x%04x)`
    /// print them after `ethertype` and after GRE's and Geneve's `proto` (`-e`).
    static func appendEthertypeName(_ type: UInt16, unknown: StaticString, into out: inout [UInt8]) {
        out.append(knownEthertypeName(type) ?? unknown)
        out.append(" (0x")
        out.appendHex(UInt64(type), minimumDigits: 4)
        out.append(")")
    }

    /// tcpdump's `ieee8021q_tci_string`: an 802.1Q tag control field as `vlan N, p N`, with
    /// `, DEI` when that bit is set (Ethernet and the Linux cooked headers, `-e`).
    static func appendVLANTag(_ tag: UInt16, into out: inout [UInt8]) {
        out.append("vlan ")
        out.appendDecimal(tag & 0x0FFF)
        out.append(", p ")
        out.appendDecimal(tag >> 13)
        if tag & 0x1000 != 0 { out.append(", DEI") }
    }

    static func ethertypeName(_ type: UInt16) -> StaticString {
        knownEthertypeName(type) ?? "Unknown"
    }

    /// tcpdump 4.99.3's ethertype names (`ethertype_values`); the first entry wins, so 0x9100
    /// is `802.1Q-9100`, not `VMAN`.
    static func knownEthertypeName(_ type: UInt16) -> StaticString? {
        switch type {
        case 0x0800: "IPv4"
        case 0x8847: "MPLS unicast"
        case 0x8848: "MPLS multicast"
        case 0x86DD: "IPv6"
        case 0x8100: "802.1Q"
        case 0x9100: "802.1Q-9100"
        case 0x88A8: "802.1Q-QinQ"
        case 0x9200: "802.1Q-9200"
        case 0x88E5: "802.1AE MACsec"
        case 0x0200: "PUP"
        case 0x0806: "ARP"
        case 0x8035: "Reverse ARP"
        case 0x0600: "NS"
        case 0x0500: "Sprite"
        case 0x1000: "Trail"
        case 0x6001: "MOP DL"
        case 0x6002: "MOP RC"
        case 0x6003: "DN"
        case 0x6004: "LAT"
        case 0x6007: "SCA"
        case 0x6558: "TEB"
        case 0x8038: "Lanbridge"
        case 0x803C: "DEC DNS"
        case 0x803E: "DEC DTS"
        case 0x805B: "VEXP"
        case 0x805C: "VPROD"
        case 0x809B: "Appletalk"
        case 0x80F3: "Appletalk ARP"
        case 0x8137: "IPX"
        case 0x880B: "PPP"
        case 0x8808: "MPCP"
        case 0x8809: "Slow Protocols"
        case 0x8863: "PPPoE D"
        case 0x8864: "PPPoE S"
        case 0x888E: "EAPOL"
        case 0x8899: "Realtek protocols"
        case 0x886F: "MS NLB heartbeat"
        case 0x8870: "Jumbo"
        case 0x894F: "NSH"
        case 0x9000: "Loopback"
        case 0xFEFE: "OSI"
        case 0x00FE: "GRE-OSI"
        case 0xABCD: "CFM (old)"
        case 0x8902: "CFM"
        case 0x893A: "IEEE1905.1"
        case 0x88CC: "LLDP"
        case 0x88CA: "TIPC"
        case 0x0707: "GeoNet (old)"
        case 0x8947: "GeoNet"
        case 0x1111: "CALM FAST"
        case 0x88A2: "AoE"
        case 0x88F7: "PTP"
        case 0xD28B: "Arista Vendor Specific Protocol"
        default: nil
        }
    }

    func appendMAC(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) {
        for index in 0..<6 {
            if index > 0 { out.append(":") }
            let byte = cursor.has(offset + index, 1) ? cursor.bytes[offset + index] : 0
            out.append(hexDigitTable[Int(byte >> 4)])
            out.append(hexDigitTable[Int(byte & 0xF)])
        }
    }

    /// tcpdump's `linkaddr_string`: the `count` bytes at `offset` as `aa:bb:cc:…` (nothing for
    /// none); throws before printing anything unless all are captured. ARP's hardware and ATM
    /// addresses, ICMPv6's link-layer address options (`print_lladdr`) and the DHCP client
    /// identifier print their addresses with it.
    static func appendLinkAddress(_ cursor: ByteCursor, at offset: Int, count: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        try cursor.check(offset, count)
        for index in 0..<count {
            if index > 0 { out.append(":") }
            let byte = cursor.bytes[offset + index]
            out.append(hexDigitTable[Int(byte >> 4)])
            out.append(hexDigitTable[Int(byte & 0xF)])
        }
    }

}
