/// The byte-level pieces of ``HTTPMessageScanner``: digits, tokens, case-insensitive names,
/// trimming and comma lists, all on raw buffers without allocation (the standard library only,
/// so the fuzz target compiles them with the scanner).
extension HTTPMessageScanner {
    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// RFC 9110 `tchar`: the bytes of a method or a header name.
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        // Bit n of the first word is byte n, of the second byte 64 + n.
        let low: UInt64 = 0x3ff6cfa00000000, high: UInt64 = 0x57ffffffc7fffffe
        return byte < 64 ? (low >> UInt64(byte)) & 1 == 1 : byte < 128 ? (high >> UInt64(byte - 64)) & 1 == 1 : false
    }

    static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        let start = prefix.utf8Start
        for index in 0..<count where bytes[index] != start[index] { return false }
        return true
    }

    /// ASCII comparison ignoring case; `lowercase` must be lower case.
    static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        let count = lowercase.utf8CodeUnitCount
        guard bytes.count == count else { return false }
        let start = lowercase.utf8Start
        for index in 0..<count {
            let byte = bytes[index]
            let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            if folded != start[index] { return false }
        }
        return true
    }

    static func trimmingCR(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard let last = line.last, last == 0x0D else { return line }
        return UnsafeRawBufferPointer(rebasing: line[0..<(line.count - 1)])
    }

    static func trimmingSpace(_ value: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0
        var end = value.count
        while start < end, value[start] == 0x20 || value[start] == 0x09 { start += 1 }
        while end > start, value[end - 1] == 0x20 || value[end - 1] == 0x09 { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: value[start..<end])
    }

    /// Calls `body` with each comma-separated token of `value`, trimmed.
    static func forEachToken(_ value: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var start = 0
        while start <= value.count {
            var end = start
            while end < value.count, value[end] != 0x2C { end += 1 }
            body(trimmingSpace(UnsafeRawBufferPointer(rebasing: value[start..<end])))
            start = end + 1
        }
    }

    /// The last comma-separated token of `value`, trimmed; nil when it is empty.
    static func lastToken(_ value: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var last: UnsafeRawBufferPointer?
        forEachToken(value) { token in if !token.isEmpty { last = token } }
        return last
    }
}
