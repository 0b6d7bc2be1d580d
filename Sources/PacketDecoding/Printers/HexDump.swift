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

    /// `--follow`: the `-X` lines of bytes that continue a dump already ended with its newline
    /// (and perhaps already written away): the first line without its leading newline.
    package static func appendContinuedHexAndASCII(_ bytes: UnsafeRawBufferPointer, offset: Int, into out: inout [UInt8]) {
        appendLines(bytes, offset: offset, indent: "\n\t", ascii: true, continuing: true, into: &out)
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

    /// Writes the lines into a scratch buffer through unsafe pointers and appends it once:
    /// `--follow` dumps every byte of a binary (or decrypted) stream this way, and appending
    /// byte by byte to the array (a uniqueness and capacity check each, the tables reached
    /// through their lazy globals each time) was most of its CPU.
    private static func appendLines(
        _ bytes: UnsafeRawBufferPointer, offset: Int, indent: StaticString, ascii: Bool, continuing: Bool = false, into out: inout [UInt8]
    ) {
        let count = bytes.count
        guard count > 0 else { return }
        let indentLength = indent.utf8CodeUnitCount
        // Per line at most: the indent, "0x", 16 offset digits, ": ", 40 hex columns, "  ", 16.
        let bound = ((count + 15) / 16) * (indentLength + 78)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { scratch in
            guard let line = scratch.baseAddress else { return }
            var end = 0
            byteHex.withUnsafeBufferPointer { byteHex in
                printable.withUnsafeBufferPointer { printable in
                    hexDigits.withUnsafeBufferPointer { hexDigits in
                        indent.withUTF8Buffer { indent in
                            var lineStart = 0
                            while lineStart < count {
                                let lineLength = min(16, count - lineStart)
                                // The indent (a continued dump's first without its newline).
                                var indentIndex = continuing && lineStart == 0 && indent.first == 0x0A ? 1 : 0
                                while indentIndex < indent.count {
                                    line[end] = indent[indentIndex]
                                    end &+= 1
                                    indentIndex &+= 1
                                }
                                // The offset: `0x` and at least four lowercase hex digits.
                                let value = offset &+ lineStart
                                var digits = 4
                                var probe = value >> 16
                                while probe > 0 {
                                    digits &+= 1
                                    probe >>= 4
                                }
                                line[end] = UInt8(ascii: "0")
                                line[end &+ 1] = UInt8(ascii: "x")
                                end &+= 2
                                if digits & 1 == 1 {
                                    line[end] = hexDigits[(value &>> ((digits &- 1) &* 4)) & 0xF]
                                    end &+= 1
                                }
                                var shift = (digits & ~1) &* 4 &- 8
                                while shift >= 0 {
                                    let pair = byteHex[(value &>> shift) & 0xFF]
                                    line[end] = UInt8(truncatingIfNeeded: pair)
                                    line[end &+ 1] = UInt8(truncatingIfNeeded: pair &>> 8)
                                    end &+= 2
                                    shift &-= 8
                                }
                                line[end] = UInt8(ascii: ":")
                                line[end + 1] = 0x20
                                end += 2
                                if ascii && lineLength == 16 {
                                    let first = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: lineStart, as: UInt64.self))
                                    let second = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: lineStart &+ 8, as: UInt64.self))
                                    appendWholeLine(first, second, at: line + end)
                                    end &+= wholeLineLength
                                    lineStart &+= 16
                                    continue
                                }
                                let hexStart = end
                                var index = 0
                                while index < lineLength {
                                    let pair = byteHex[Int(bytes[lineStart + index])]
                                    line[end] = 0x20
                                    line[end + 1] = UInt8(truncatingIfNeeded: pair)
                                    line[end + 2] = UInt8(truncatingIfNeeded: pair >> 8)
                                    end += 3
                                    if index + 1 < lineLength {
                                        let second = byteHex[Int(bytes[lineStart + index + 1])]
                                        line[end] = UInt8(truncatingIfNeeded: second)
                                        line[end + 1] = UInt8(truncatingIfNeeded: second >> 8)
                                        end += 2
                                    }
                                    index += 2
                                }
                                if ascii {
                                    while end - hexStart < 42 {
                                        line[end] = 0x20
                                        end += 1
                                    }
                                    for position in lineStart..<(lineStart + lineLength) {
                                        line[end] = printable[Int(bytes[position])]
                                        end += 1
                                    }
                                }
                                lineStart += 16
                            }
                        }
                    }
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(start: line, count: end))
        }
    }

    /// The hex and ASCII fields of a whole `-X` line (16 bytes, `first` and `second` holding
    /// them in little-endian order): eight groups of " hhhh", two spaces, 16 characters.
    private static let wholeLineLength = 8 * 5 + 2 + 16

    /// Four bytes (the low 32 bits, first byte lowest) as eight lowercase hex digits, the first
    /// byte's high nibble lowest: each byte spread to 16 bits, its nibbles swapped into place,
    /// and `0`–`9` / `a`–`f` chosen per nibble without a table.
    @inline(__always)
    private static func hexDigits(of value: UInt64) -> UInt64 {
        var spread = (value | value &<< 16) & 0x0000_FFFF_0000_FFFF
        spread = (spread | spread &<< 8) & 0x00FF_00FF_00FF_00FF
        let nibbles = (spread &>> 4) & 0x000F_000F_000F_000F | (spread & 0x000F_000F_000F_000F) &<< 8
        // A nibble of 10 or more has bit 4 set once 6 is added: it takes 'a' - '0' - 10 = 39 more.
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) &>> 4) & 0x0101_0101_0101_0101
        return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 39
    }

    /// Eight bytes as `-X` characters: 0x21–0x7E as themselves, every other byte as `.`.
    @inline(__always)
    private static func printableCharacters(_ word: UInt64) -> UInt64 {
        let high: UInt64 = 0x8080_8080_8080_8080
        let low7 = word & 0x7F7F_7F7F_7F7F_7F7F
        // Per byte, bit 7: the low seven bits are at least 0x21, and at most 0x7E, and bit 7 was clear.
        let atLeast21 = (low7 &+ 0x5F5F_5F5F_5F5F_5F5F) & high
        let atMost7E = ~(low7 &+ 0x0101_0101_0101_0101) & high
        let shown = atLeast21 & atMost7E & ~word & high
        let mask = (shown &>> 7) &* 0xFF
        return (word & mask) | (0x2E2E_2E2E_2E2E_2E2E & ~mask)
    }

    @inline(__always)
    private static func appendWholeLine(_ first: UInt64, _ second: UInt64, at line: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeMutableRawPointer(line)
        var at = 0
        for quarter in 0..<4 {
            let word = quarter < 2 ? first : second
            let digits = hexDigits(of: (word &>> UInt64(32 &* (quarter & 1))) & 0xFFFF_FFFF)
            raw.storeBytes(of: 0x20, toByteOffset: at, as: UInt8.self)
            raw.storeBytes(of: UInt32(truncatingIfNeeded: digits).littleEndian, toByteOffset: at &+ 1, as: UInt32.self)
            raw.storeBytes(of: 0x20, toByteOffset: at &+ 5, as: UInt8.self)
            raw.storeBytes(of: UInt32(truncatingIfNeeded: digits &>> 32).littleEndian, toByteOffset: at &+ 6, as: UInt32.self)
            at &+= 10
        }
        raw.storeBytes(of: 0x2020, toByteOffset: at, as: UInt16.self)
        raw.storeBytes(of: printableCharacters(first).littleEndian, toByteOffset: at &+ 2, as: UInt64.self)
        raw.storeBytes(of: printableCharacters(second).littleEndian, toByteOffset: at &+ 10, as: UInt64.self)
    }
}
