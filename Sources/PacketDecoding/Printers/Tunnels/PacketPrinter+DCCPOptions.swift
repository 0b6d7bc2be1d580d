/// DCCP options (tcpdump's `dccp_print_option`), printed with `-vv` between `<` and `>`.
extension PacketPrinter {
    private static let dccpOptionNames = NameTable([
        (0, "nop"), (1, "mandatory"), (2, "slowreceiver"), (32, "change_l"), (33, "confirm_l"), (34, "change_r"),
        (35, "confirm_r"), (36, "initcookie"), (37, "ndp_count"), (38, "ack_vector0"), (39, "ack_vector1"),
        (40, "data_dropped"), (41, "timestamp"), (42, "timestamp_echo"), (43, "elapsed_time"), (44, "data_checksum"),
    ])

    private static let dccpFeatureNames: [StaticString] = [
        "reserved", "ccid", "allow_short_seqno", "sequence_window", "ecn_incapable", "ack_ratio", "send_ack_vector",
        "send_ndp_count", "minimum checksum coverage", "check data checksum",
    ]

    /// The option at `option` with `left` header bytes from it: its length, or 0 when the list
    /// ends there (a length below 2 or past the header, or the option cut: ` [|dccp]`).
    func appendDCCPOption(_ cursor: ByteCursor, at option: Int, left: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int {
        let kind = try cursor.u8(option)
        func appendName(_ out: inout [UInt8]) {
            if kind >= 128 {
                out.append("CCID option ")
                out.appendDecimal(kind)
            } else if let name = Self.dccpOptionNames.name(UInt32(kind)) {
                out.append(name)
            } else {
                out.append("Option ")
                out.appendDecimal(kind)
            }
        }
        var length = 1
        if kind >= 32 {
            length = Int(try cursor.u8(option + 1))
            if length < 2 {
                appendName(&out)
                out.append(" optlen too short")
                return 0
            }
        }
        if left < length {
            appendName(&out)
            out.append(" optlen goes past header length")
            return 0
        }
        guard cursor.has(option, length) else {
            out.append(" [|dccp]")
            return 0
        }
        appendName(&out)
        /// ` 0x` and the option's data bytes in hex, when there are any.
        func appendData(prefix: StaticString, _ out: inout [UInt8]) {
            guard length > 2 else { return }
            out.append(prefix)
            for index in 2..<length { out.appendHex(UInt64(cursor.bytes[option + index]), minimumDigits: 2) }
        }
        if kind >= 128 {
            if length == 4 {
                out.append(" ")
                out.appendDecimal(try cursor.u16(option + 2))
            } else if length == 6 {
                out.append(" ")
                out.appendDecimal(try cursor.u32(option + 2))
            }
            return length
        }
        switch kind {
        case 32, 33, 34, 35:
            guard length >= 3 else {
                out.append(" optlen too short")
                return length
            }
            let feature = Int(try cursor.u8(option + 2))
            if feature < 10 {
                out.append(" ")
                out.append(Self.dccpFeatureNames[feature])
                for index in 3..<length {
                    out.append(" ")
                    out.appendDecimal(try cursor.u8(option + index))
                }
            }
        case 36, 38, 39, 40:
            appendData(prefix: " 0x", &out)
        case 37:
            for index in 2..<max(length, 2) {
                out.append(" ")
                out.appendDecimal(try cursor.u8(option + index))
            }
        case 41:
            if length == 6 {
                out.append(" ")
                out.appendDecimal(try cursor.u32(option + 2))
            } else {
                out.append(" [optlen != 6]")
            }
        case 42:
            switch length {
            case 6, 8, 10:
                out.append(" ")
                out.appendDecimal(try cursor.u32(option + 2))
                if length == 8 {
                    out.append(" (elapsed time ")
                    out.appendDecimal(try cursor.u16(option + 6))
                    out.append(")")
                } else if length == 10 {
                    out.append(" (elapsed time ")
                    out.appendDecimal(try cursor.u32(option + 6))
                    out.append(")")
                }
            default:
                out.append(" [optlen != 6 or 8 or 10]")
            }
        case 43:
            if length == 6 {
                out.append(" ")
                out.appendDecimal(try cursor.u32(option + 2))
            } else if length == 4 {
                out.append(" ")
                out.appendDecimal(try cursor.u16(option + 2))
            } else {
                out.append(" [optlen != 4 or 6]")
            }
        case 44:
            appendData(prefix: " ", &out)
        default:
            break
        }
        return length
    }
}
