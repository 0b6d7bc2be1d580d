/// The TCP printer (tcpdump's `tcp_print`): flags, relative sequence numbers, the options
/// (PacketPrinter+TCPOptions.swift), and the `bad hdr length` / `[bad opt]` / ` [|tcp]` markers
/// exactly where tcpdump puts them. `-v` adds the checksum verdict over the pseudo-header when
/// the whole segment is captured and the datagram is not a fragment, and a reset's data;
/// `-vv` prints `seq` on every segment.
extension PacketPrinter {
    mutating func printTCP(_ cursor: inout ByteCursor, at tcp: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "tcp"
        let addressOffset = ip.isIPv6 ? ip.offset + 8 : ip.offset + 12
        let addressLength = ip.isIPv6 ? 16 : 4
        func appendAddress(_ offset: Int, _ printer: PacketPrinter, _ out: inout [UInt8]) throws(PacketDecodingError) {
            if ip.isIPv6 {
                try printer.appendIPv6Address(cursor, at: offset, into: &out)
            } else {
                try printer.appendIPv4Address(cursor, at: offset, into: &out)
            }
        }
        guard cursor.has(tcp + 2, 2) else {
            try appendAddress(addressOffset, self, &out)
            out.append(" > ")
            try appendAddress(addressOffset + addressLength, self, &out)
            out.append(": [|tcp]")
            return
        }
        let sourcePort = try cursor.u16(tcp)
        let destinationPort = try cursor.u16(tcp + 2)
        if ip.headerProtocol == 6 {
            try appendAddress(addressOffset, self, &out)
            out.append(".")
            out.appendDecimal(sourcePort)
            out.append(" > ")
            try appendAddress(addressOffset + addressLength, self, &out)
            out.append(".")
            out.appendDecimal(destinationPort)
            out.append(": ")
        } else {
            out.appendDecimal(sourcePort)
            out.append(" > ")
            out.appendDecimal(destinationPort)
            out.append(": ")
        }
        guard cursor.has(tcp, 20) else {
            out.append(" [|tcp]")
            return
        }
        let length32 = UInt32(truncatingIfNeeded: length)
        var headerLength = Int(try cursor.u8(tcp + 12) >> 4) * 4
        if headerLength < 20 {
            out.append(" tcp ")
            out.appendDecimal(length32 &- UInt32(headerLength))
            out.append(" [bad hdr length ")
            out.appendDecimal(headerLength)
            out.append(" - too short, < 20]")
            return
        }
        if options.quick {
            // tcpdump's -q: the payload length alone.
            out.append("tcp ")
            out.appendDecimal(length32 &- UInt32(headerLength))
            if headerLength > length {
                out.append(" [bad hdr length ")
                out.appendDecimal(headerLength)
                out.append(" - too long, > ")
                out.appendDecimal(length32)
                out.append("]")
            }
            return
        }
        var sequence = try cursor.u32(tcp + 4)
        var acknowledgement = try cursor.u32(tcp + 8)
        let window = try cursor.u16(tcp + 14)
        let urgent = try cursor.u16(tcp + 18)
        let flags = try cursor.u8(tcp + 13)
        out.append("Flags [")
        Self.appendFlags(flags, into: &out)
        out.append("]")

        var reversed = false
        var bases = SequenceBases(sender: 0, receiver: 0)
        if !options.absoluteSequenceNumbers && flags & 0x10 != 0 {
            reversed = sourcePort > destinationPort
            if sourcePort == destinationPort {
                reversed = Self.compare(cursor, addressOffset, addressOffset + addressLength, count: addressLength) > 0
            }
            let lowOffset = reversed ? addressOffset + addressLength : addressOffset
            let highOffset = reversed ? addressOffset : addressOffset + addressLength
            let ports = reversed
                ? UInt32(destinationPort) << 16 | UInt32(sourcePort)
                : UInt32(sourcePort) << 16 | UInt32(destinationPort)
            let existing: SequenceBases?
            let isNew: Bool
            if ip.isIPv6 {
                let key = ConnectionKey6(cursor, lowOffset, highOffset, ports: ports)
                existing = sequenceBases6[key]
                isNew = existing == nil || flags & 0x02 != 0
                if isNew {
                    if sequenceBases6.count >= Self.maximumTrackedConnections { sequenceBases6.removeAll() }
                    bases = reversed
                        ? SequenceBases(sender: acknowledgement &- 1, receiver: sequence)
                        : SequenceBases(sender: sequence, receiver: acknowledgement &- 1)
                    sequenceBases6[key] = bases
                }
            } else {
                let key = ConnectionKey4(cursor, lowOffset, highOffset, ports: ports)
                existing = sequenceBases4[key]
                isNew = existing == nil || flags & 0x02 != 0
                if isNew {
                    if sequenceBases4.count >= Self.maximumTrackedConnections { sequenceBases4.removeAll() }
                    bases = reversed
                        ? SequenceBases(sender: acknowledgement &- 1, receiver: sequence)
                        : SequenceBases(sender: sequence, receiver: acknowledgement &- 1)
                    sequenceBases4[key] = bases
                }
            }
            if !isNew, let existing {
                bases = existing
                if reversed {
                    sequence &-= existing.receiver
                    acknowledgement &-= existing.sender
                } else {
                    sequence &-= existing.sender
                    acknowledgement &-= existing.receiver
                }
            }
        }

        guard headerLength <= length else {
            out.append(" [bad hdr length ")
            out.appendDecimal(headerLength)
            out.append(" - too long, > ")
            out.appendDecimal(length32)
            out.append("]")
            return
        }
        if options.verbosity > 0 && !ip.fragmented && cursor.has(tcp, length) {
            let result = try pseudoHeaderChecksum(cursor, ip: ip, at: tcp, length: length, nextProtocol: 6)
            let field = try cursor.u16(tcp + 16)
            out.append(", cksum 0x")
            out.appendHex(UInt64(field), minimumDigits: 4)
            if result != 0 {
                out.append(" (incorrect -> 0x")
                out.appendHex(UInt64(InternetChecksum.shouldBe(field: field, result: result)), minimumDigits: 4)
                out.append(")")
            } else {
                out.append(" (correct)")
            }
        }
        let payloadLength = UInt32(truncatingIfNeeded: length - headerLength)
        if options.verbosity > 1 || payloadLength > 0 || flags & 0x07 != 0 {
            out.append(", seq ")
            out.appendDecimal(sequence)
            if payloadLength > 0 {
                out.append(":")
                out.appendDecimal(sequence &+ payloadLength)
            }
        }
        if flags & 0x10 != 0 {
            out.append(", ack ")
            out.appendDecimal(acknowledgement)
        }
        out.append(", win ")
        out.appendDecimal(window)
        if flags & 0x20 != 0 {
            out.append(", urg ")
            out.appendDecimal(urgent)
        }
        let dataOffset = headerLength
        if headerLength > 20 {
            headerLength -= 20
            out.append(", options [")
            let sack = SACKBases(reversed: reversed, bases: bases)
            let outcome = try printOptions(&cursor, at: tcp + 20, length: headerLength, flags: flags, tcp: tcp,
                                           payloadLength: Int(payloadLength), sack: sack, into: &out)
            switch outcome {
            case .complete: out.append("]")
            case .stop: return
            }
        }
        out.append(", length ")
        out.appendDecimal(payloadLength)
        guard payloadLength > 0 else { return }
        guard cursor.has(tcp, dataOffset) else {
            out.append(" [remaining caplen(")
            out.appendDecimal(cursor.available(from: tcp))
            out.append(") < header length(")
            out.appendDecimal(dataOffset)
            out.append(")]")
            throw PacketDecodingError.capturedBytesEnd
        }
        if flags & 0x04 != 0 && options.verbosity > 0 {
            try appendResetData(cursor, at: tcp + dataOffset, length: Int(payloadLength), into: &out)
            return
        }
        let application = TCPApplication(sourcePort: sourcePort, destinationPort: destinationPort)
        if application.isPrinted {
            try printTCPApplication(application, &cursor, at: tcp + dataOffset, length: Int(payloadLength), into: &out)
        }
    }

    /// tcpdump's `print_tcp_rst_data` (`-v`, a reset carrying data): ` [RST reason]`, the
    /// first 30 bytes (`[RST+` when there are more, `[!RST` when they were not all captured),
    /// each byte as `fn_print_char` shows it.
    private func appendResetData(_ cursor: ByteCursor, at offset: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        out.append(cursor.has(offset, length) ? " [RST" : " [!RST")
        var count = length
        if count > 30 {
            count = 30
            out.append("+")
        }
        out.append(" ")
        _ = Self.appendEscapedInCapture(cursor, at: offset, count: count, into: &out)
        out.append("]")
    }

    static func appendFlags(_ flags: UInt8, into out: inout [UInt8]) {
        if flags == 0 {
            out.append("none")
            return
        }
        if flags & 0x01 != 0 { out.append("F") }
        if flags & 0x02 != 0 { out.append("S") }
        if flags & 0x04 != 0 { out.append("R") }
        if flags & 0x08 != 0 { out.append("P") }
        if flags & 0x10 != 0 { out.append(".") }
        if flags & 0x20 != 0 { out.append("U") }
        if flags & 0x40 != 0 { out.append("E") }
        if flags & 0x80 != 0 { out.append("W") }
    }

    /// memcmp of two addresses in the frame.
    private static func compare(_ cursor: ByteCursor, _ first: Int, _ second: Int, count: Int) -> Int {
        for index in 0..<count {
            let a = cursor.bytes[first + index], b = cursor.bytes[second + index]
            if a != b { return a < b ? -1 : 1 }
        }
        return 0
    }
}
