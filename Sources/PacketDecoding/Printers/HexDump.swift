/// tcpdump's hex dumps (`print-ascii.c`), byte for byte, written into a reusable byte buffer
/// through lookup tables rather than per-byte string formatting.
///
/// `-X` / `-XX` (``appendHexAndASCII(_:offset:into:)``), 16 bytes per line:
///
/// ```
/// \n\t0x0000:  4500 003c c4ce 4000 4006 77eb 7f00 0001  E..<..@.@.w.....
/// \n\t0x0010:  7b22 6122 3a31 7d0d 0a                   {"a":1}..
/// ```
///
/// The offset is `0x` and at least four lowercase hex digits; the hex field holds space-led
/// groups of two bytes (a trailing odd byte as one), left-justified to 40 columns; then two
/// spaces and the bytes 0x21–0x7E as themselves, everything else (space, CR, LF, ≥0x80) as `.`.
/// Every line starts with `\n\t`, so a caller prints its header line without a newline and the
/// packet's final newline after the dump. `-x` (``appendHex(_:offset:indent:into:)``) is the same
/// without padding and ASCII; the printers' hex lines of undecoded data
/// (``PacketPrinter/appendUnknownData(_:at:length:indent:into:)``) are `-x` lines with another
/// indent.
public enum HexDump {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `byteHex[b]` is the two lowercase hex digits of `b`, packed as `UInt16` (first digit low).
    private static let byteHex: [UInt16] = (0..<256).map { value in
        UInt16(hexDigits[value >> 4]) | UInt16(hexDigits[value & 0xF]) << 8
    }

    /// `printable[b]` is `b` for 0x21…0x7E, else `.`.
    private static let printable: [UInt8] = (0..<256).map { value in
        (0x21...0x7E).contains(value) ? UInt8(value) : UInt8(ascii: ".")
    }

    /// Appends `-X` lines for `bytes`; the first line is labelled `offset`.
    public static func appendHexAndASCII(_ bytes: UnsafeRawBufferPointer, offset: Int = 0, into out: inout [UInt8]) {
        appendLines(bytes, offset: offset, indent: "\n\t", ascii: true, into: &out)
    }

    /// Appends `-x` lines (hex only) for `bytes`: tcpdump's `hex_print_with_offset`, each line
    /// led by `indent` (`\n\t` for `-x`; the printers' `print_unknown_data` and Telnet's
    /// `-X -vvv` dump pass their own).
    package static func appendHex(
        _ bytes: UnsafeRawBufferPointer, offset: Int = 0, indent: StaticString = "\n\t", into out: inout [UInt8]
    ) {
        appendLines(bytes, offset: offset, indent: indent, ascii: false, into: &out)
    }

    /// The `-X` dump of `bytes` as a string (tests and small callers).
    public static func hexAndASCII(_ bytes: [UInt8], offset: Int = 0) -> String {
        var out: [UInt8] = []
        bytes.withUnsafeBytes { appendHexAndASCII($0, offset: offset, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendLines(
        _ bytes: UnsafeRawBufferPointer, offset: Int, indent: StaticString, ascii: Bool, into out: inout [UInt8]
    ) {
        let count = bytes.count
        guard count > 0 else { return }
        out.reserveCapacity(out.count + (count / 16 + 1) * (ascii ? 76 : 58))
        var lineStart = 0
        while lineStart < count {
            let lineLength = min(16, count - lineStart)
            out.append(indent)
            appendOffset(offset + lineStart, into: &out)
            out.append(UInt8(ascii: ":"))
            out.append(0x20)
            var hexColumns = 0
            var index = 0
            while index < lineLength {
                out.append(0x20)
                let pair = byteHex[Int(bytes[lineStart + index])]
                out.append(UInt8(truncatingIfNeeded: pair))
                out.append(UInt8(truncatingIfNeeded: pair >> 8))
                hexColumns += 3
                if index + 1 < lineLength {
                    let second = byteHex[Int(bytes[lineStart + index + 1])]
                    out.append(UInt8(truncatingIfNeeded: second))
                    out.append(UInt8(truncatingIfNeeded: second >> 8))
                    hexColumns += 2
                }
                index += 2
            }
            if ascii {
                for _ in hexColumns..<40 { out.append(0x20) }
                out.append(0x20)
                out.append(0x20)
                for position in lineStart..<(lineStart + lineLength) {
                    out.append(printable[Int(bytes[position])])
                }
            }
            lineStart += 16
        }
    }

    /// `0x` and at least four lowercase hex digits.
    private static func appendOffset(_ value: Int, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "0"))
        out.append(UInt8(ascii: "x"))
        var digits = 4
        var probe = value >> 16
        while probe > 0 {
            digits += 1
            probe >>= 4
        }
        for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
            out.append(hexDigits[(value >> shift) & 0xF])
        }
    }
}
