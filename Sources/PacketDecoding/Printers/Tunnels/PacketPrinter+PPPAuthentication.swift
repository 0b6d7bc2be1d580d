/// PPP's authentication protocols as tcpdump 4.99.3 prints them at every verbosity
/// (print-ppp.c's `handle_pap` and `handle_chap`): code, id, and the peer and password of a PAP
/// Authenticate-Request, the message of its answers; a CHAP challenge's or response's value in
/// hex and name, a success's or failure's message. Text is printed as `fn_print_char` does.
extension PacketPrinter {
    private static let papCodeNames = NameTable([(1, "Auth-Req"), (2, "Auth-ACK"), (3, "Auth-NACK")])
    private static let chapCodeNames = NameTable([(1, "Challenge"), (2, "Response"), (3, "Success"), (4, "Fail")])

    /// `count` bytes at `offset`, each as `fn_print_char` prints it (a byte not captured ends
    /// the packet's printing as tcpdump's `GET_U_1` does).
    private func appendCharacters(_ cursor: ByteCursor, at offset: Int, count: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var index = 0
        while index < count {
            out.appendEscapedCharacter(try cursor.u8(offset + index))
            index += 1
        }
    }

    /// The head PAP and CHAP share (tcpdump's `handle_pap` and `handle_chap`): `[|pap]` or
    /// `[|pap 0xCC]` for a cut one, else `PAP, NAME (0xCC), id N`; returns the code and the
    /// encoded length, nil when the packet ends before them.
    private func appendAuthenticationHead(
        _ cursor: ByteCursor, at p: Int, length: Int, short: StaticString, label: StaticString, names: NameTable, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> (code: UInt8, length: Int)? {
        if length < 1 {
            out.append(short)
            out.append("]")
            return nil
        }
        let code = try cursor.u8(p)
        if length < 4 {
            out.append(short)
            out.append(" 0x")
            out.appendHex(UInt64(code), minimumDigits: 2)
            out.append("]")
            return nil
        }
        out.append(label)
        out.append(names.name(UInt32(code), or: "unknown"))
        out.append(" (0x")
        out.appendHex(UInt64(code), minimumDigits: 2)
        out.append(")")
        let id = try cursor.u8(p + 1)
        out.append(", id ")
        out.appendDecimal(id)
        return (code, Int(try cursor.u16(p + 2)))
    }

    /// tcpdump's `handle_pap` for the `length` bytes at `p`.
    func printPAP(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard let (code, len) = try appendAuthenticationHead(
            cursor, at: p, length: length, short: "[|pap", label: "PAP, ", names: Self.papCodeNames, into: &out) else { return }
        if len > length {
            out.append(", length ")
            out.appendDecimal(len)
            return out.append(" > packet size")
        }
        if len < 4 {
            out.append(", length ")
            out.appendDecimal(len)
            return out.append(" < PAP header length")
        }
        var at = 4
        switch code {
        case 1:
            if len < 6 { return out.append("[|pap]") }
            let peerLength = Int(try cursor.u8(p + at))
            at += 1
            if len - at < peerLength { return }
            out.append(", Peer ")
            try appendCharacters(cursor, at: p + at, count: peerLength, into: &out)
            at += peerLength
            if len - at < 1 { return }
            let passwordLength = Int(try cursor.u8(p + at))
            at += 1
            if len - at < passwordLength { return }
            out.append(", Name ")
            try appendCharacters(cursor, at: p + at, count: passwordLength, into: &out)
        case 2, 3:
            if len < 5 { return out.append("[|pap]") }
            let messageLength = Int(try cursor.u8(p + at))
            at += 1
            if len - at < messageLength { return }
            out.append(", Msg ")
            try appendCharacters(cursor, at: p + at, count: messageLength, into: &out)
        default:
            break
        }
    }

    /// tcpdump's `handle_chap` for the `length` bytes at `p`. As tcpdump, the name and message
    /// run to the encoded length, which is not checked against the packet's.
    func printCHAP(_ cursor: ByteCursor, at p: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard let (code, len) = try appendAuthenticationHead(
            cursor, at: p, length: length, short: "[|chap", label: "CHAP, ", names: Self.chapCodeNames, into: &out) else { return }
        var at = 4
        switch code {
        case 1, 2:
            if length - at < 1 { return }
            let valueSize = Int(try cursor.u8(p + at))
            at += 1
            if length - at < valueSize { return }
            out.append(", Value ")
            for index in 0..<valueSize {
                out.appendHex(UInt64(try cursor.u8(p + at + index)), minimumDigits: 2)
            }
            at += valueSize
            out.append(", Name ")
            // tcpdump's unsigned `len - (p - p0)`: an encoded length short of the value wraps
            // and the loop runs until a read fails.
            try appendCharacters(cursor, at: p + at, count: len >= at ? len - at : Int.max, into: &out)
        case 3, 4:
            out.append(", Msg ")
            try appendCharacters(cursor, at: p + at, count: len >= at ? len - at : Int.max, into: &out)
        default:
            break
        }
    }
}
