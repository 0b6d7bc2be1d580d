/// Appending printer text to a byte buffer without going through `String` formatting.
extension Array where Element == UInt8 {
    @inline(__always)
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    mutating func append(text: String) {
        append(contentsOf: text.utf8)
    }

    /// Decimal digits of `value` (`%u`).
    mutating func appendDecimal<T: BinaryInteger>(_ value: T) {
        appendDecimal(UInt64(truncatingIfNeeded: value), minimumDigits: 1)
    }

    /// Decimal digits of `value`, zero-padded to `minimumDigits` (`%06u`).
    mutating func appendDecimal(_ value: UInt64, minimumDigits: Int) {
        var digits = 1
        var probe = value
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        let width = Swift.max(digits, minimumDigits)
        let start = count
        append(contentsOf: repeatElement(0x30, count: width))
        var rest = value
        var index = start + width - 1
        while rest > 0 {
            self[index] = 0x30 + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            index -= 1
        }
    }

    /// Lowercase hex digits of `value`, zero-padded to `minimumDigits` (`%04x`, `%x`).
    mutating func appendHex(_ value: UInt64, minimumDigits: Int = 1) {
        var digits = 1
        var probe = value >> 4
        while probe > 0 {
            digits += 1
            probe >>= 4
        }
        digits = Swift.max(digits, minimumDigits)
        for index in stride(from: digits - 1, through: 0, by: -1) {
            let shift = index * 4
            let nibble = shift >= 64 ? 0 : Int((value >> UInt64(shift)) & 0xF)
            append(hexDigitTable[nibble])
        }
    }

    /// One byte as tcpdump's `fn_print_char` shows it: `M-` before a byte above 0x7F (then its
    /// low 7 bits), `^` before a control character (then the character XOR 0x40: `^M`, `^?`).
    mutating func appendEscapedCharacter(_ byte: UInt8) {
        var character = byte
        if character > 0x7F {
            append(UInt8(ascii: "M"))
            append(UInt8(ascii: "-"))
            character &= 0x7F
        }
        if character < 0x20 || character == 0x7F {
            append(UInt8(ascii: "^"))
            character ^= 0x40
        }
        append(character)
    }

    /// `text` left-justified in `width` columns (`%-5s`).
    mutating func appendPadded(_ text: [UInt8], width: Int) {
        append(contentsOf: text)
        var pad = width - text.count
        while pad > 0 {
            append(0x20)
            pad -= 1
        }
    }

    /// `text` right-justified in `width` columns (`%3s`).
    mutating func appendRightAligned(_ text: StaticString, width: Int) {
        var pad = width - text.utf8CodeUnitCount
        while pad > 0 {
            append(0x20)
            pad -= 1
        }
        append(text)
    }

    /// An IPv6 address (`high`: its first 8 bytes, big-endian) as RFC 5952 text the way
    /// tcpdump's `addrtostr6` writes it: lowercase hex without leading zeros, the longest run
    /// of two or more zero groups as `::` (the first on ties), and the `::a.b.c.d` and
    /// `::ffff:a.b.c.d` forms for IPv4-compatible and IPv4-mapped addresses.
    mutating func appendIPv6(high: UInt64, low: UInt64) {
        func group(_ index: Int) -> UInt16 {
            let half = index < 4 ? high : low
            return UInt16(truncatingIfNeeded: half >> UInt64((3 - index % 4) * 16))
        }
        var bestStart = -1, bestLength = 0, runStart = -1, runLength = 0
        for index in 0..<8 {
            if group(index) == 0 {
                if runStart < 0 { runStart = index }
                runLength += 1
                if runLength > bestLength {
                    bestStart = runStart
                    bestLength = runLength
                }
            } else {
                runStart = -1
                runLength = 0
            }
        }
        if bestLength < 2 {
            bestStart = -1
            bestLength = 0
        }
        var index = 0
        while index < 8 {
            if index == bestStart {
                append(UInt8(ascii: ":"))
                index += bestLength
                if index == 8 { append(UInt8(ascii: ":")) }
                continue
            }
            if index > 0 { append(UInt8(ascii: ":")) }
            if index == 6 && bestStart == 0 && (bestLength == 6 || (bestLength == 5 && group(5) == 0xFFFF)) {
                for byte in 0..<4 {
                    if byte > 0 { append(UInt8(ascii: ".")) }
                    appendDecimal(UInt8(truncatingIfNeeded: low >> UInt64((3 - byte) * 8)))
                }
                return
            }
            appendHex(UInt64(group(index)))
            index += 1
        }
    }
}

let hexDigitTable: [UInt8] = Array("0123456789abcdef".utf8)
