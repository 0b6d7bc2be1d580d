/// UDP and ARP printers: tcpdump's line for the common messages, its generic line for the rest.
extension PacketPrinter {
    // MARK: UDP

    mutating func printUDP(_ cursor: ByteCursor, at udp: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(Truncated) {
        protocolName = "udp"
        func appendAddresses(_ ports: (UInt16, UInt16)?, _ out: inout [UInt8]) throws(Truncated) {
            let addressOffset = ip.isIPv6 ? ip.offset + 8 : ip.offset + 12
            let addressLength = ip.isIPv6 ? 16 : 4
            func address(_ offset: Int, _ out: inout [UInt8]) throws(Truncated) {
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

    // MARK: ARP

    mutating func printARP(_ cursor: inout ByteCursor, at arp: Int, length: Int, into out: inout [UInt8]) throws(Truncated) {
        protocolName = "arp"
        guard cursor.has(arp, 8) else {
            out.append(" [|arp]")
            return
        }
        let hardware = try cursor.u16(arp)
        let protocolType = try cursor.u16(arp + 2)
        let hardwareLength = Int(try cursor.u8(arp + 4))
        let protocolLength = Int(try cursor.u8(arp + 5))
        let operation = try cursor.u16(arp + 6)
        let senderHardware = arp + 8
        let senderProtocol = senderHardware + hardwareLength
        let targetHardware = senderProtocol + protocolLength
        let targetProtocol = targetHardware + hardwareLength
        guard cursor.has(targetProtocol, protocolLength) else {
            out.append("[|ARP]")
            appendDefaultDump(cursor, from: arp, into: &out)
            return
        }
        if !options.linkHeader { out.append("ARP, ") }
        if (protocolType != 0x0800 && protocolType != 0x1000) || protocolLength != 4 || hardwareLength == 0 {
            switch hardware {
            case 1: out.append("Ethernet")
            default:
                out.append("Unknown Hardware (")
                out.appendDecimal(hardware)
                out.append(")")
            }
            out.append(" (len ")
            out.appendDecimal(hardwareLength)
            out.append("), ")
            if let name = Self.knownEthertypeName(protocolType) {
                out.append(name)
            } else {
                out.append("Unknown Protocol (0x")
                out.appendHex(UInt64(protocolType), minimumDigits: 4)
                out.append(")")
            }
            out.append(" (len ")
            out.appendDecimal(protocolLength)
            out.append(")")
        } else {
            switch operation {
            case 1:
                out.append("Request who-has ")
                try appendIPv4Address(cursor, at: targetProtocol, into: &out)
                var targetSet = false
                for index in 0..<hardwareLength where cursor.bytes[targetHardware + index] != 0 { targetSet = true }
                if targetSet {
                    out.append(" (")
                    appendLinkAddress(cursor, at: targetHardware, count: hardwareLength, into: &out)
                    out.append(")")
                }
                out.append(" tell ")
                try appendIPv4Address(cursor, at: senderProtocol, into: &out)
            case 2:
                out.append("Reply ")
                try appendIPv4Address(cursor, at: senderProtocol, into: &out)
                out.append(" is-at ")
                appendLinkAddress(cursor, at: senderHardware, count: hardwareLength, into: &out)
            default:
                switch operation {
                case 3: out.append("Reverse Request ")
                case 4: out.append("Reverse Reply ")
                case 8: out.append("Inverse Request ")
                case 9: out.append("Inverse Reply ")
                case 10: out.append("NACK Reply ")
                default:
                    out.append("Unknown (")
                    out.appendDecimal(operation)
                    out.append(") ")
                }
                appendDefaultDump(cursor, from: arp, into: &out)
                return
            }
        }
        out.append(", length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
    }

    /// `aa:bb:cc:…`; a 6-byte address is a MAC, other lengths print the same way.
    private func appendLinkAddress(_ cursor: ByteCursor, at offset: Int, count: Int, into out: inout [UInt8]) {
        for index in 0..<count {
            if index > 0 { out.append(":") }
            let byte = cursor.has(offset + index, 1) ? cursor.bytes[offset + index] : 0
            out.append(hexDigitTable[Int(byte >> 4)])
            out.append(hexDigitTable[Int(byte & 0xF)])
        }
    }
}
