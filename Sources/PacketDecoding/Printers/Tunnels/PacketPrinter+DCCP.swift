/// DCCP (tcpdump's `dccp_print`, IP protocol 33): addresses and ports, `DCCP`, the packet type
/// with its service code or reset code, the acknowledgement number; `-v` the CCVal, checksum
/// coverage and checksum verdict, `-vv` the sequence number and the options
/// (`dccp_print_option`).
extension PacketPrinter {
    private static let dccpTypeNames: [StaticString] = [
        "DCCP-Request", "DCCP-Response", "DCCP-Data", "DCCP-Ack", "DCCP-DataAck", "DCCP-CloseReq", "DCCP-Close",
        "DCCP-Reset", "DCCP-Sync", "DCCP-SyncAck",
    ]

    private static let dccpResetNames: [StaticString] = [
        "unspecified", "closed", "aborted", "no_connection", "packet_error", "option_error", "mandatory_error",
        "connection_refused", "bad_service_code", "too_busy", "bad_init_cookie", "aggression_penalty",
    ]

    /// tcpdump's `dccp_print` for the packet at `dccp`, `length` bytes long.
    mutating func printDCCP(_ cursor: inout ByteCursor, at dccp: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "dccp"
        guard cursor.has(dccp, 12) else { return out.append(" [|dccp]") }
        guard length >= 12 else {
            out.append("truncated-dccp - ")
            out.appendDecimal(12 - length)
            out.append(" bytes missing!")
            return
        }
        let extended = try cursor.u8(dccp + 8) & 1 != 0
        var fixedLength = extended ? 16 : 12
        guard length >= fixedLength else {
            out.append("truncated-dccp - ")
            out.appendDecimal(fixedLength - length)
            out.append(" bytes missing!")
            return
        }
        guard cursor.has(dccp, fixedLength) else { return out.append(" [|dccp]") }
        let source = try cursor.u16(dccp)
        let destination = try cursor.u16(dccp + 2)
        var headerLength = Int(try cursor.u8(dccp + 4)) * 4
        try appendTransportAddresses(cursor, ip: ip, source: source, destination: destination, into: &out)
        out.append(": DCCP")
        if options.quick {
            out.append(" ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length) &- UInt32(headerLength))
            if headerLength > length {
                out.append(" [bad hdr length ")
                out.appendDecimal(headerLength)
                out.append(" - too long, > ")
                out.appendDecimal(length)
                out.append("]")
            }
            return
        }
        let coverage = try cursor.u8(dccp + 5)
        if options.verbosity > 0 {
            out.append(" (CCVal ")
            out.appendDecimal(coverage >> 4)
            out.append(", CsCov ")
            out.appendDecimal(coverage & 0x0F)
            if cursor.has(dccp, length) {
                let sent = try cursor.u16(dccp + 6)
                out.append(", cksum 0x")
                out.appendHex(UInt64(sent), minimumDigits: 4)
                let sum = try dccpChecksum(cursor, at: dccp, length: length, ip: ip)
                if sum != 0 {
                    out.append(" (incorrect -> 0x")
                    out.appendHex(UInt64(InternetChecksum.shouldBe(field: sent, result: sum)), minimumDigits: 4)
                    out.append(")")
                } else {
                    out.append(" (correct)")
                }
            }
            out.append(")")
        }
        out.append(" ")
        let type = Int((try cursor.u8(dccp + 8) >> 1) & 0x0F)
        /// The type name, or `truncated-NAME - N bytes missing!` when `extra` more bytes do not fit.
        func fits(_ extra: Int, _ out: inout [UInt8]) -> Bool {
            fixedLength += extra
            guard length < fixedLength else { return true }
            out.append("truncated-")
            out.append(Self.dccpTypeNames[type])
            out.append(" - ")
            out.appendDecimal(fixedLength - length)
            out.append(" bytes missing!")
            return false
        }
        switch type {
        case 0, 1:
            guard fits(type == 0 ? 4 : 12, &out) else { return }
            let service = fixedLength - 4
            guard cursor.has(dccp + service, 4) else { return out.append(" [|dccp]") }
            out.append(Self.dccpTypeNames[type])
            out.append(" (service=")
            out.appendDecimal(try cursor.u32(dccp + service))
            out.append(") ")
        case 2:
            out.append(Self.dccpTypeNames[type])
            out.append(" ")
        case 7:
            guard fits(12, &out) else { return }
            guard cursor.has(dccp + fixedLength - 12, 12) else { return out.append(" [|dccp]") }
            let code = Int(try cursor.u8(dccp + fixedLength - 4))
            out.append("DCCP-Reset (code=")
            out.append(code < Self.dccpResetNames.count ? Self.dccpResetNames[code] : "invalid")
            out.append(") ")
        case 3, 4, 5, 6, 8, 9:
            guard fits(8, &out) else { return }
            out.append(Self.dccpTypeNames[type])
            out.append(" ")
        default:
            out.append("unknown-type-")
            out.appendDecimal(type)
            out.append(" ")
        }
        let basic = extended ? 16 : 12
        if type != 2 && type != 0 {
            let acknowledgement = extended ? try Self.u48(cursor, at: dccp + basic + 2) : UInt64(try Self.u24(cursor, at: dccp + basic + 1))
            out.append("(ack=")
            out.appendDecimal(acknowledgement)
            out.append(") ")
        }
        guard options.verbosity >= 2 else { return }
        out.append("seq ")
        out.appendDecimal(extended ? try Self.u48(cursor, at: dccp + 10) : UInt64(try Self.u24(cursor, at: dccp + 9)))
        guard headerLength > fixedLength else { return }
        out.append(" <")
        var option = dccp + fixedLength
        headerLength -= fixedLength
        while true {
            let optionLength = try appendDCCPOption(cursor, at: option, left: headerLength, into: &out)
            if optionLength == 0 || headerLength <= optionLength { break }
            headerLength -= optionLength
            option += optionLength
            out.append(", ")
        }
        out.append(">")
    }

    private static func u24(_ cursor: ByteCursor, at offset: Int) throws(PacketDecodingError) -> UInt32 {
        UInt32(try cursor.u8(offset)) << 16 | UInt32(try cursor.u16(offset + 1))
    }

    private static func u48(_ cursor: ByteCursor, at offset: Int) throws(PacketDecodingError) -> UInt64 {
        UInt64(try cursor.u16(offset)) << 32 | UInt64(try cursor.u32(offset + 2))
    }

    /// The checksum over the pseudo-header and the covered bytes (tcpdump's `dccp_cksum`):
    /// 0 when correct. The coverage is the whole packet, or the header and CsCov − 1 words,
    /// while the pseudo-header carries the whole length: the pseudo-header's sum is taken with a
    /// zero length (``pseudoHeaderChecksum``, which finds the final destination of source
    /// routes), then the length and the covered bytes are added to it.
    private func dccpChecksum(_ cursor: ByteCursor, at dccp: Int, length: Int, ip: IPContext) throws(PacketDecodingError) -> UInt16 {
        let coverageField = Int(try cursor.u8(dccp + 5) & 0x0F)
        var covered = length
        if coverageField != 0 {
            covered = min(length, (Int(try cursor.u8(dccp + 4)) + coverageField - 1) * 4)
        }
        var sum = InternetChecksum()
        sum.add(word: ~(try pseudoHeaderChecksum(cursor, ip: ip, at: dccp, length: 0, nextProtocol: 33)))
        if ip.isIPv6 {
            sum.add(long: UInt32(truncatingIfNeeded: length))
        } else {
            sum.add(word: UInt16(truncatingIfNeeded: length))
        }
        sum.add(cursor, at: dccp, count: covered)
        return sum.result
    }
}
