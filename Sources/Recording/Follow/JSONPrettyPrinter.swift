import NIOCore
import PacketDecoding
import SocketEngine

/// Re-indents a JSON object or array (two spaces, `"key": value`), validating it on the way;
/// strings and numbers are copied as written.
///
/// Only text that is entirely one JSON object or array (surrounding whitespace allowed) and valid
/// UTF-8 is taken; nesting deeper than ``maximumDepth`` is not, so a hostile message cannot
/// exhaust the stack — such text is shown as text instead.
struct JSONPrettyPrinter {
    static let maximumDepth = 64

    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Appends `prefix` and the pretty-printed JSON and returns true, or appends nothing and
    /// returns false when `bytes` is not a JSON object or array.
    static func append(_ bytes: UnsafeRawBufferPointer, prefix: [UInt8], into out: inout [UInt8]) -> Bool {
        var parser = JSONPrettyPrinter(bytes)
        parser.skipWhitespace()
        guard let first = parser.peek, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
              MessageText.isUTF8WithoutC1(bytes) else { return false }
        let start = out.count
        out += prefix
        if parser.value(depth: 0, into: &out) {
            parser.skipWhitespace()
            if parser.index == bytes.count { return true }
        }
        out.removeSubrange(start...)
        return false
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private static func newline(_ depth: Int, into out: inout [UInt8]) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: depth * 2))
    }

    private mutating func value(depth: Int, into out: inout [UInt8]) -> Bool {
        guard depth < Self.maximumDepth, let byte = peek else { return false }
        switch byte {
        case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), keyed: true, depth: depth, into: &out)
        case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), keyed: false, depth: depth, into: &out)
        case UInt8(ascii: "\""): return string(into: &out)
        case UInt8(ascii: "t"): return literal("true", into: &out)
        case UInt8(ascii: "f"): return literal("false", into: &out)
        case UInt8(ascii: "n"): return literal("null", into: &out)
        default: return number(into: &out)
        }
    }

    private mutating func container(close: UInt8, keyed: Bool, depth: Int, into out: inout [UInt8]) -> Bool {
        out.append(bytes[index])
        index += 1
        skipWhitespace()
        if peek == close {
            index += 1
            out.append(close)
            return true
        }
        while true {
            Self.newline(depth + 1, into: &out)
            if keyed {
                guard peek == UInt8(ascii: "\""), string(into: &out) else { return false }
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { return false }
                index += 1
                out += [UInt8(ascii: ":"), 0x20]
                skipWhitespace()
            }
            guard value(depth: depth + 1, into: &out) else { return false }
            skipWhitespace()
            guard let next = peek else { return false }
            index += 1
            if next == UInt8(ascii: ",") {
                out.append(next)
                skipWhitespace()
            } else if next == close {
                Self.newline(depth, into: &out)
                out.append(close)
                return true
            } else {
                return false
            }
        }
    }

    private mutating func string(into out: inout [UInt8]) -> Bool {
        let start = index
        index += 1  // the opening quote
        while let byte = peek {
            index += 1
            if byte == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
                return true
            }
            if byte < 0x20 { return false }
            if byte == UInt8(ascii: "\\") {
                guard let escaped = peek else { return false }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    for _ in 0..<4 {
                        guard let hex = peek, isHexDigit(hex) else { return false }
                        index += 1
                    }
                default:
                    return false
                }
            }
        }
        return false
    }

    private func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private mutating func literal(_ word: StaticString, into out: inout [UInt8]) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let matches = word.withUTF8Buffer { text in
            (0..<count).allSatisfy { bytes[index + $0] == text[$0] }
        }
        guard matches else { return false }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]))
        index += count
        return true
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number(into out: inout [UInt8]) -> Bool {
        let start = index
        func digits(_ parser: inout JSONPrettyPrinter) -> Int {
            var count = 0
            while let byte = parser.peek, (0x30...0x39).contains(byte) {
                parser.index += 1
                count += 1
            }
            return count
        }
        if peek == UInt8(ascii: "-") { index += 1 }
        if peek == UInt8(ascii: "0") {
            index += 1
        } else if digits(&self) == 0 {
            return false
        }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { return false }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { return false }
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        return true
    }
}
