/// Data a printer shows in hex without decoding it: hex lines (tcpdump's
/// `hex_print_with_offset` and `print_unknown_data`, all through
/// ``HexDump/appendHex(_:offset:indent:into:)``) and runs of `%02x`.
extension PacketPrinter {
    /// `count` bytes at `offset` as two lowercase hex digits each, without separators (the
    /// `ND_PRINT("%02x", GET_U_1(p))` loops of tcpdump's printers: DHCPv6 identifiers, EDNS
    /// options, TCP MD5 signatures and Fast Open cookies). A byte past the capture throws, the
    /// bytes before it printed.
    static func appendHexBytes(_ cursor: ByteCursor, at offset: Int, count: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var index = 0
        while index < count {
            out.appendHex(UInt64(try cursor.u8(offset + index)), minimumDigits: 2)
            index += 1
        }
    }

    /// tcpdump's `hex_print_with_offset`: `INDENT0x0010:  0102 0304 …` lines, eight groups of
    /// two bytes a line (a trailing odd byte alone), of the `count` bytes at `start`, the first
    /// line labelled `offset`. Bytes past the capture are not shown, and then it throws (tcpdump's
    /// longjmp, ` [|proto]`).
    static func appendHexLines(
        _ cursor: ByteCursor, at start: Int, count: Int, offset: Int = 0, indent: StaticString, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        let shown = min(count, cursor.available(from: start))
        if shown > 0 {
            HexDump.appendHex(UnsafeRawBufferPointer(rebasing: cursor.bytes[start..<(start + shown)]),
                              offset: offset, indent: indent, into: &out)
        }
        if shown < count { throw PacketDecodingError.capturedBytesEnd }
    }

    /// tcpdump's `print_unknown_data`: the hex lines (``appendHexLines(_:at:count:offset:indent:into:)``
    /// from offset 0) of at most the captured part of the `length` bytes at `offset`, so it never
    /// stops the printer; tcpdump's `Dissector error` line when `offset` lies past the capture.
    static func appendUnknownData(_ cursor: ByteCursor, at offset: Int, length: Int, indent: StaticString, into out: inout [UInt8]) {
        guard offset <= cursor.end else {
            out.append(indent)
            out.append("Dissector error: print_unknown_data called with pointer past end of packet")
            return
        }
        let count = min(length, cursor.available(from: offset))
        guard count > 0 else { return }
        HexDump.appendHex(UnsafeRawBufferPointer(rebasing: cursor.bytes[offset..<(offset + count)]), indent: indent, into: &out)
    }
}
