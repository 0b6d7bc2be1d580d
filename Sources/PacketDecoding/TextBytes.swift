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
}

let hexDigitTable: [UInt8] = Array("0123456789abcdef".utf8)
