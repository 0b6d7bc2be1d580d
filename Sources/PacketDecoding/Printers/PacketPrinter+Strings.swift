/// tcpdump's string printers for bytes inside a packet (util-print.c), each byte shown as
/// `fn_print_char` shows it (``Swift/Array/appendEscapedCharacter(_:)``): they differ only in
/// where they stop.
extension PacketPrinter {
    /// tcpdump's `nd_printjn`: the `count` bytes at `offset`, escaped; a byte past the capture
    /// throws (the bytes before it are printed), tcpdump's longjmp.
    static func appendEscaped(_ cursor: ByteCursor, at offset: Int, count: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var index = 0
        while index < count {
            out.appendEscapedCharacter(try cursor.u8(offset + index))
            index += 1
        }
    }

    /// tcpdump's `nd_printjnp`: at most `count` bytes at `offset`, stopping at a NUL, escaped; a
    /// byte past the capture throws.
    static func appendNullPaddedText(_ cursor: ByteCursor, at offset: Int, count: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var index = 0
        while index < count {
            let byte = try cursor.u8(offset + index)
            if byte == 0 { return }
            out.appendEscapedCharacter(byte)
            index += 1
        }
    }

    /// tcpdump's `nd_printn` with the end of the capture as its limit: the `count` bytes at
    /// `position`, escaped, or those of them that were captured; false when the capture ended
    /// first. Never throws.
    @inline(__always)
    static func appendEscapedInCapture(_ cursor: ByteCursor, at position: Int, count: Int, into out: inout [UInt8]) -> Bool {
        let end = cursor.end
        guard position < end else { return count <= 0 }
        let available = end - position
        let printed = count < available ? count : available
        var index = position
        let stop = position + printed
        while index < stop {
            let byte = cursor.bytes[index]
            if byte >= 0x20 && byte < 0x7F {
                out.append(byte)
            } else {
                out.appendEscapedCharacter(byte)
            }
            index += 1
        }
        return printed == count
    }
}
