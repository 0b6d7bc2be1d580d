/// TCP options (tcpdump's option loop in `tcp_print`): every kind it names, `[len N]` for a
/// length that disagrees with the kind, `[bad opt]` and ` [|tcp]` where tcpdump stops.
extension PacketPrinter {
    struct SACKBases {
        var reversed: Bool
        var bases: SequenceBases
    }

    /// Why an option could not be printed (tcpdump's `LENCHECK`).
    enum OptionFailure {
        /// The option claims more bytes than the header holds: `[bad opt]`.
        case bad
        /// The bytes are not in the capture: ` [|tcp]`.
        case truncated
    }

    enum OptionsOutcome {
        /// The list ended normally: the caller closes it with `]` and prints `length`.
        case complete
        /// A marker ended the line (`[bad opt]`, ` [|tcp]`); nothing more is printed.
        case stop
    }

    /// The option list between `options [` and `]`.
    mutating func printOptions(
        _ cursor: inout ByteCursor, at start: Int, length: Int, flags: UInt8, tcp: Int, payloadLength: Int,
        sack: SACKBases, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> OptionsOutcome {
        var remaining = length
        var offset = start
        var separator = false
        func bad(_ out: inout [UInt8]) -> OptionsOutcome {
            out.append("[bad opt]")
            if separator { out.append("]") }
            return .stop
        }
        /// Names the protocol last entered: an MPTCP option leaves `mptcp` behind, as in tcpdump.
        func truncated(_ out: inout [UInt8]) -> OptionsOutcome {
            out.append(" [|")
            out.append(protocolName)
            out.append("]")
            if separator { out.append(">") }
            return .stop
        }
        while remaining > 0 {
            if separator { out.append(",") }
            let kind = try cursor.u8(offset)
            offset += 1
            let optionLength: Int
            if kind == 0 || kind == 1 {
                optionLength = 1
            } else {
                optionLength = Int(try cursor.u8(offset))
                offset += 1
                if optionLength < 2 || optionLength > remaining { return bad(&out) }
                remaining -= 1
            }
            remaining -= 1
            // LENCHECK: `count` data bytes must be inside the header and captured.
            func lengthCheck(_ count: Int) -> OptionFailure? {
                if count > remaining { return .bad }
                if !cursor.has(offset, count) { return .truncated }
                return nil
            }
            var dataLength = 0
            Self.appendOptionName(kind, into: &out)
            var failure: OptionFailure?
            switch kind {
            case 2:
                dataLength = 2
                failure = lengthCheck(2)
                if failure == nil {
                    out.append(" ")
                    out.appendDecimal(try cursor.u16(offset))
                }
            case 3:
                dataLength = 1
                failure = lengthCheck(1)
                if failure == nil {
                    out.append(" ")
                    out.appendDecimal(try cursor.u8(offset))
                }
            case 5:
                dataLength = optionLength - 2
                if dataLength % 8 != 0 {
                    out.append(" invalid sack")
                } else {
                    out.append(" ")
                    out.appendDecimal(dataLength / 8)
                    out.append(" ")
                    var index = 0
                    while index < dataLength {
                        if let fail = lengthCheck(index + 4) {
                            failure = fail
                            break
                        }
                        var left = try cursor.u32(offset + index)
                        if let fail = lengthCheck(index + 8) {
                            failure = fail
                            break
                        }
                        var right = try cursor.u32(offset + index + 4)
                        let base = sack.reversed ? sack.bases.sender : sack.bases.receiver
                        left &-= base
                        right &-= base
                        out.append("{")
                        out.appendDecimal(left)
                        out.append(":")
                        out.appendDecimal(right)
                        out.append("}")
                        index += 8
                    }
                }
            case 11, 12, 13, 6, 7:
                dataLength = 4
                failure = lengthCheck(4)
                if failure == nil {
                    out.append(" ")
                    out.appendDecimal(try cursor.u32(offset))
                }
            case 8:
                dataLength = 8
                failure = lengthCheck(8)
                if failure == nil {
                    out.append(" val ")
                    out.appendDecimal(try cursor.u32(offset))
                    out.append(" ecr ")
                    out.appendDecimal(try cursor.u32(offset + 4))
                }
            case 19:
                dataLength = 16
                failure = lengthCheck(16)
                if failure == nil {
                    out.append(" ")
                    let dataStart = tcp + Int(try cursor.u8(tcp + 12) >> 4) * 4
                    if payloadLength > cursor.available(from: dataStart) || dataStart > cursor.end {
                        out.append("snaplen too short, ")
                    } else {
                        out.append("shared secret not supplied with -M, ")
                    }
                    out.append("can't check - ")
                    try Self.appendHexBytes(cursor, at: offset, count: 16, into: &out)
                }
            case 20:
                dataLength = 2
                failure = lengthCheck(2)
                if failure == nil {
                    out.append(" cap ")
                    out.appendHex(UInt64(try cursor.u8(offset)), minimumDigits: 2)
                    out.append(" id ")
                    out.appendDecimal(try cursor.u8(offset + 1))
                }
            case 29:
                dataLength = optionLength - 2
                if dataLength < 2 {
                    out.append(" (invalid)")
                } else {
                    failure = lengthCheck(1)
                    if failure == nil {
                        out.append(" keyid ")
                        out.appendDecimal(try cursor.u8(offset))
                        failure = lengthCheck(2)
                    }
                    if failure == nil {
                        out.append(" rnextkeyid ")
                        out.appendDecimal(try cursor.u8(offset + 1))
                        if dataLength > 2 {
                            out.append(" mac 0x")
                            for index in 2..<dataLength {
                                if let fail = lengthCheck(index + 1) {
                                    failure = fail
                                    break
                                }
                                out.appendHex(UInt64(try cursor.u8(offset + index)), minimumDigits: 2)
                            }
                        }
                    }
                }
            case 0, 1, 4:
                break
            case 28:
                dataLength = 2
                failure = lengthCheck(2)
                if failure == nil {
                    var value = UInt32(try cursor.u16(offset))
                    out.append(" 0x")
                    out.appendHex(UInt64(value))
                    value = value & 1 != 0 ? (value >> 1) * 60 : value >> 1
                    out.append(" ")
                    out.appendDecimal(value)
                }
            case 30:
                dataLength = optionLength - 2
                failure = lengthCheck(dataLength)
                if failure == nil {
                    let saved = cursor
                    cursor.narrow(from: offset - 2, length: optionLength)
                    let printed = try printMPTCP(cursor, at: offset - 2, length: optionLength, flags: flags, into: &out)
                    cursor = saved
                    if !printed { return bad(&out) }
                }
            case 34:
                dataLength = optionLength - 2
                failure = lengthCheck(dataLength)
                if failure == nil {
                    out.append(" ")
                    try appendFastOpen(cursor, at: offset, length: dataLength, experimental: false, into: &out)
                }
            case 254:
                dataLength = optionLength - 2
                failure = lengthCheck(dataLength)
                if failure == nil {
                    if dataLength < 2 { return bad(&out) }
                    let magic = try cursor.u16(offset)
                    out.append("-")
                    if magic == 0xF989 {
                        try appendFastOpen(cursor, at: offset + 2, length: dataLength - 2, experimental: true, into: &out)
                    } else {
                        out.appendHex(UInt64(magic), minimumDigits: 4)
                    }
                }
            default:
                dataLength = optionLength - 2
                if dataLength > 0 { out.append(" 0x") }
                for index in 0..<dataLength {
                    if let fail = lengthCheck(index + 1) {
                        failure = fail
                        break
                    }
                    out.appendHex(UInt64(try cursor.u8(offset + index)), minimumDigits: 2)
                }
            }
            switch failure {
            case .bad?: return bad(&out)
            case .truncated?: return truncated(&out)
            case nil: break
            }
            offset += dataLength
            remaining -= dataLength
            var expected = dataLength + 1
            if kind != 0 && kind != 1 { expected += 1 }
            if expected != optionLength {
                out.append("[len ")
                out.appendDecimal(optionLength)
                out.append("]")
            }
            separator = true
            if kind == 0 { break }
        }
        return .complete
    }

    private static func appendOptionName(_ kind: UInt8, into out: inout [UInt8]) {
        switch kind {
        case 0: out.append("eol")
        case 1: out.append("nop")
        case 2: out.append("mss")
        case 3: out.append("wscale")
        case 4: out.append("sackOK")
        case 5: out.append("sack")
        case 6: out.append("echo")
        case 7: out.append("echoreply")
        case 8: out.append("TS")
        case 11: out.append("cc")
        case 12: out.append("ccnew")
        case 13: break
        case 19: out.append("md5")
        case 20: out.append("scps")
        case 28: out.append("uto")
        case 29: out.append("tcp-ao")
        case 30: out.append("mptcp")
        case 34: out.append("tfo")
        case 254: out.append("exp")
        default:
            out.append("unknown-")
            out.appendDecimal(kind)
        }
    }

    /// TCP Fast Open cookie (option 34, or experimental 254 with magic 0xf989).
    private func appendFastOpen(_ cursor: ByteCursor, at offset: Int, length: Int, experimental: Bool, into out: inout [UInt8]) throws(PacketDecodingError) {
        if experimental { out.append("tfo") }
        if length == 0 {
            out.append(" cookiereq")
        } else if length % 2 != 0 || length < 4 || length > 16 {
            out.append(" (invalid)")
        } else {
            out.append(" cookie ")
            try Self.appendHexBytes(cursor, at: offset, count: length, into: &out)
        }
    }
}
