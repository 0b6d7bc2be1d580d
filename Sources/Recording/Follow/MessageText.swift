import NIOCore
import PacketDecoding
import SocketEngine

/// Text checks and escaping for payload shown to a person.
enum MessageText {
    /// Printable UTF-8 (no C0/C1 controls, no DEL) apart from tab, LF, and CR before LF or last.
    static func isText(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x7F || byte == 0x09 || byte == 0x0A {
                index += 1
            } else if byte == 0x0D {
                guard index + 1 == count || bytes[index + 1] == 0x0A else { return false }
                index += 1
            } else if byte >= 0x80, let length = sequenceLength(bytes, at: index) {
                index += length
            } else {
                return false
            }
        }
        return true
    }

    /// Valid UTF-8 without C1 controls (U+0080–U+009F); C0 controls are allowed (they get escaped).
    static func isUTF8WithoutC1(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            if bytes[index] < 0x80 {
                index += 1
            } else if let length = sequenceLength(bytes, at: index) {
                index += length
            } else {
                return false
            }
        }
        return true
    }

    /// The length of the well-formed, non-C1 UTF-8 sequence starting at `index` (a lead byte ≥ 0x80), or nil.
    private static func sequenceLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2; if lead == 0xC2 { low = 0xA0 }  // C2 80…9F are C1 controls
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE, 0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        let second = bytes[index + 1]
        guard second >= low && second <= high else { return nil }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return nil }
        return length
    }

    static func appendText(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.append(contentsOf: bytes)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `bytes` with C0 controls and DEL as `\r`, `\n`, `\t` or `\xHH`.
    static func appendEscaped(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        for byte in bytes {
            switch byte {
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0x00..<0x20, 0x7F: out += [0x5C, UInt8(ascii: "x"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
    }
}
