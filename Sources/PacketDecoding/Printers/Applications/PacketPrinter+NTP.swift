/// NTP (UDP port 123) as tcpdump 4.99.3 prints it (`print-ntp.c`): `NTPv4, Client, length 48`,
/// and with `-v` the header of a time message (leap indicator, stratum, poll, precision, root
/// delay and dispersion, reference ID, the four timestamps with their UTC dates, two
/// differences, the key ID and digest) or of a control message (mode 6). Mode 7 and the
/// reserved modes print only the leap indicator.
extension PacketPrinter {
    /// tcpdump's `ntp_print`: version, mode and length; with `-v` the leap indicator and the
    /// mode's own fields on the lines below.
    mutating func printNTP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "ntp"
        let status = try cursor.u8(payload)
        out.append("NTPv")
        out.appendDecimal((status >> 3) & 7)
        out.append(", ")
        let mode = status & 7
        switch mode {
        case 0: out.append("unspecified")
        case 1: out.append("symmetric active")
        case 2: out.append("symmetric passive")
        case 3: out.append("Client")
        case 4: out.append("Server")
        case 5: out.append("Broadcast")
        case 6: out.append("Control Message")
        default: out.append("Reserved")
        }
        out.append(", length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
        guard options.verbosity > 0 else { return }

        out.append("\n\tLeap indicator: ")
        let leap = status & 0xC0
        switch leap {
        case 0x40: out.append("+1s")
        case 0x80: out.append("-1s")
        case 0xC0: out.append("clock unsynchronized")
        default: break
        }
        out.append(" (")
        out.appendDecimal(leap)
        out.append(")")
        switch mode {
        case 0...5: try appendNTPTimeMessage(cursor, at: payload, length: length, into: &out)
        case 6: try appendNTPControlMessage(cursor, at: payload, length: length, into: &out)
        default: break
        }
    }

    /// tcpdump's `nd_print_invalid` then its check that the message is captured: ` (invalid)`,
    /// and ` [|ntp]` after it when the capture is shorter than `length`.
    private func appendNTPInvalid(_ cursor: ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) {
        out.append(" (invalid)")
        if !cursor.has(payload, length) { out.append(" [|ntp]") }
    }

    /// The four timestamps of a time message: offset and label.
    private static let ntpTimestampFields: [(Int, StaticString)] = [
        (16, "\n\t  Reference Timestamp:  "), (24, "\n\t  Originator Timestamp: "),
        (32, "\n\t  Receive Timestamp:    "), (40, "\n\t  Transmit Timestamp:   "),
    ]

    /// tcpdump's `ntp_time_print` (modes 0 to 5), for messages of at least 48 bytes.
    private func appendNTPTimeMessage(_ cursor: ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard length >= 48 else {
            appendNTPInvalid(cursor, at: payload, length: length, into: &out)
            return
        }
        let stratum = try cursor.u8(payload + 1)
        out.append(", Stratum ")
        out.appendDecimal(stratum)
        switch stratum {
        case 0: out.append(" (unspecified)")
        case 1: out.append(" (primary reference)")
        case 2...15: out.append(" (secondary reference)")
        default: out.append(" (reserved)")
        }
        let poll = Int8(bitPattern: try cursor.u8(payload + 2))
        out.append(", poll ")
        Self.appendNTPSigned(Int(poll), into: &out)
        if poll > -32 && poll < 32 {
            if poll >= 0 {
                out.append(" (")
                out.appendDecimal(UInt32(1) << UInt32(poll))
                out.append("s)")
            } else {
                out.append(" (1/")
                out.appendDecimal(UInt32(1) << UInt32(-Int(poll)))
                out.append("s)")
            }
        }
        let precision = Int8(bitPattern: try cursor.u8(payload + 3))
        out.append(", precision ")
        Self.appendNTPSigned(Int(precision), into: &out)

        guard cursor.has(payload + 4, 4) else {
            out.append(" [|ntp]")
            return
        }
        out.append("\n\tRoot Delay: ")
        try appendNTPShortFixedPoint(cursor, at: payload + 4, into: &out)
        guard cursor.has(payload + 8, 4) else {
            out.append(" [|ntp]")
            return
        }
        out.append(", Root dispersion: ")
        try appendNTPShortFixedPoint(cursor, at: payload + 8, into: &out)
        guard cursor.has(payload + 12, 4) else {
            out.append(" [|ntp]")
            return
        }
        out.append(", Reference-ID: ")
        switch stratum {
        case 0:
            out.append("(unspec)")
        case 1:
            try Self.appendEscaped(cursor, at: payload + 12, count: 4, into: &out)
        case 62, 63:
            try appendIPv4Address(cursor, at: payload + 12, into: &out)
            out.append(stratum == 62 ? " INFO_QUERY" : " INFO_REPLY")
            return
        default:
            out.append("0x")
            out.appendHex(UInt64(try cursor.u32(payload + 12)), minimumDigits: 8)
        }
        for (offset, label) in Self.ntpTimestampFields {
            guard cursor.has(payload + offset, 8) else {
                out.append(" [|ntp]")
                return
            }
            out.append(label)
            try appendNTPTimestamp(cursor, at: payload + offset, into: &out)
        }
        out.append("\n\t    Originator - Receive Timestamp:  ")
        try appendNTPDifference(cursor, from: payload + 24, to: payload + 32, into: &out)
        out.append("\n\t    Originator - Transmit Timestamp: ")
        try appendNTPDifference(cursor, from: payload + 24, to: payload + 40, into: &out)

        switch length {
        case 52, 68, 72:
            let key = try cursor.u32(payload + 48)
            out.append("\n\tKey id: ")
            out.appendDecimal(key)
            guard length != 52 else { break }
            let words = length == 68 ? 4 : 5
            guard cursor.has(payload + 52, 4 * words) else {
                out.append(" [|ntp]")
                return
            }
            out.append("\n\tAuthentication: ")
            for index in 0..<words {
                out.appendHex(UInt64(try cursor.u32(payload + 52 + 4 * index)), minimumDigits: 8)
            }
        case 49...:
            out.append("\n\t(")
            out.appendDecimal(length - 48)
            out.append(" more bytes after the header)")
        default:
            break
        }
    }

    /// tcpdump's `ntp_control_print` (mode 6): the R, E and M bits and the opcode, then
    /// sequence, status, association, offset and count; a count beyond the message is
    /// ` (invalid)`, data is only announced as not interpreted.
    private func appendNTPControlMessage(_ cursor: ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard length >= 12 else {
            appendNTPInvalid(cursor, at: payload, length: length, into: &out)
            return
        }
        let control = try cursor.u8(payload + 1)
        out.append(control & 0x80 != 0 ? ", Response" : ", Request")
        out.append(control & 0x40 != 0 ? ", Error" : ", OK")
        out.append(control & 0x20 != 0 ? ", More" : ", Last")
        out.append(", OpCode=")
        out.appendDecimal(control & 0x1F)
        out.append("\n")
        let sequence = try cursor.u16(payload + 2)
        out.append("\tSequence=")
        out.appendDecimal(sequence)
        let status = try cursor.u16(payload + 4)
        out.append(", Status=")
        if status != 0 { out.append("0x") }
        out.appendHex(UInt64(status))
        let association = try cursor.u16(payload + 6)
        out.append(", Assoc.=")
        out.appendDecimal(association)
        let offset = try cursor.u16(payload + 8)
        out.append(", Offset=")
        out.appendDecimal(offset)
        let count = Int(try cursor.u16(payload + 10))
        out.append(", Count=")
        out.appendDecimal(count)
        guard 12 + count <= length else {
            appendNTPInvalid(cursor, at: payload, length: length, into: &out)
            return
        }
        if count != 0 {
            guard cursor.has(payload + 12, count) else {
                out.append(" [|ntp]")
                return
            }
            out.append("\n\tTO-BE-DONE: data not interpreted")
        }
    }

    /// `%d`.
    static func appendNTPSigned(_ value: Int, into out: inout [UInt8]) {
        if value < 0 { out.append("-") }
        out.appendDecimal(value.magnitude)
    }
}
