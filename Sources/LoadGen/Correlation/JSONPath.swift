import SocketEngine

/// A path to one value of a JSON message — `$.id`, `$.meta.reqId`, `$.items[0].id`,
/// `$['odd.name']` — and the scanner that finds it in the message's bytes.
///
/// The scanner reads the bytes in place, without building a document, a `String` or an
/// array: it walks the members of each object on the path, skips every other value (strings
/// with their escapes, nested objects and arrays by counting brackets, iteratively), and stops
/// at the value. It looks for a value; it does not validate the whole message: text after the
/// value, or an error in a part it skipped, does not matter. It never reads outside the bytes,
/// never recurses, and gives up (no value) on anything it cannot read.
///
/// The value found (``Span``):
/// - a string: its characters, escapes decoded (`"a\u0062"` is `ab`);
/// - a number, `true` or `false`: the token as written (`7`, `1e3`, `true`);
/// - an object or an array: its bytes as written;
/// - `null`, a missing member or index, or a message that is not JSON: no value.
///
/// So `{"id":7}` and `{"id":"7"}` give the same key, `7`; `7` and `7.0` do not. (A class, so
/// that the hot path holds it by one reference rather than one per array.)
package final class JSONPath: Sendable, Equatable, CustomStringConvertible {
    enum Step: Sendable, Equatable {
        case member([UInt8])
        case index(Int)
    }

    let steps: [Step]
    /// The steps as the scanner reads them: plain values, member names in ``names``.
    private let flatSteps: [FlatStep]
    private let names: [UInt8]
    /// The path as written.
    package let description: String

    /// The largest array index a path may name.
    static let maximumIndex = 1_000_000

    /// Parses `$.a.b`, `$.a[2]`, `$["a.b"]` (`$` first; a path without it starts at the top:
    /// `id` is `$.id`). Throws a one-line reason; `option` names the setting in it.
    package init(parsing text: String, option: SettingKey) throws(LoadGenError) {
        description = text
        func fail(_ why: String) -> LoadGenError {
            LoadGenError(.invalidPlan, "invalid \(option) json:\(text): \(why) (expected a path like $.id, $.meta.reqId or $.items[0].id)" as SettingText)
        }
        if text.isEmpty { throw fail("the path is empty") }
        var bytes = Array(text.utf8)[...]
        if bytes.first == UInt8(ascii: "$") {
            bytes = bytes.dropFirst()
        } else if bytes.first != UInt8(ascii: "[") {
            bytes = ArraySlice([UInt8(ascii: ".")] + bytes)
        }
        var steps: [Step] = []
        while let first = bytes.first {
            if first == UInt8(ascii: ".") {
                let name = bytes.dropFirst().prefix { $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "[") }
                guard !name.isEmpty else { throw fail("a '.' is not followed by a name") }
                steps.append(.member(Array(name)))
                bytes = bytes.dropFirst(1 + name.count)
            } else if first == UInt8(ascii: "[") {
                guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { throw fail("a '[' is not closed") }
                let inside = bytes[bytes.index(after: bytes.startIndex)..<close]
                if let quote = inside.first, quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\"") {
                    guard inside.count >= 2, inside.last == quote else { throw fail("a quoted name in [...] is not closed") }
                    steps.append(.member(Array(inside.dropFirst().dropLast())))
                } else {
                    guard !inside.isEmpty, inside.count <= 7, inside.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                          let index = Int(String(decoding: inside, as: UTF8.self)), index <= Self.maximumIndex
                    else {
                        throw fail("'[\(String(decoding: inside, as: UTF8.self))]' is neither an index from 0 to \(Self.maximumIndex) nor a quoted name")
                    }
                    steps.append(.index(index))
                }
                bytes = bytes[bytes.index(after: close)...]
            } else {
                throw fail("unexpected '\(String(decoding: [first], as: UTF8.self))'")
            }
        }
        self.steps = steps
        var flat: [FlatStep] = []
        var names: [UInt8] = []
        for step in steps {
            switch step {
            case .member(let name):
                flat.append(FlatStep(index: -1, nameStart: names.count, nameLength: name.count))
                names += name
            case .index(let index):
                flat.append(FlatStep(index: index, nameStart: 0, nameLength: 0))
            }
        }
        flatSteps = flat
        self.names = names
    }

    /// A step without references: an array index, or (index -1) the member whose name is
    /// `names[nameStart..<nameStart + nameLength]`.
    private struct FlatStep: Sendable {
        var index: Int
        var nameStart: Int
        var nameLength: Int
    }

    package static func == (lhs: JSONPath, rhs: JSONPath) -> Bool { lhs.steps == rhs.steps }

    /// Where a value found by the scanner is.
    struct Span {
        /// The value's bytes: a string's characters (between its quotes), or the token,
        /// object or array as written.
        var range: Range<Int>
        /// A string with at least one escape: decode it (``JSONPath/unescape(_:_:into:)``).
        var escaped: Bool
    }

    // MARK: The scanner

    /// The value this path names in `bytes`, or nil.
    func locate(in bytes: UnsafeRawBufferPointer) -> Span? {
        flatSteps.withUnsafeBufferPointer { steps in
            names.withUnsafeBytes { names in Self.locate(in: bytes, steps: steps, names: names) }
        }
    }

    private static func locate(in bytes: UnsafeRawBufferPointer, steps: UnsafeBufferPointer<FlatStep>, names: UnsafeRawBufferPointer) -> Span? {
        let end = bytes.count
        var at = Self.skipSpace(bytes, 0)
        for step in steps {
            guard at < end else { return nil }
            if step.index < 0 {
                let name = UnsafeRawBufferPointer(rebasing: names[step.nameStart..<(step.nameStart + step.nameLength)])
                guard bytes[at] == UInt8(ascii: "{") else { return nil }
                at = Self.skipSpace(bytes, at + 1)
                var found = false
                while at < end, bytes[at] == UInt8(ascii: "\"") {
                    guard let (keyEnd, escaped) = Self.stringEnd(bytes, at) else { return nil }
                    let matches = Self.equals(bytes, (at + 1)..<(keyEnd - 1), escaped: escaped, name)
                    at = Self.skipSpace(bytes, keyEnd)
                    guard at < end, bytes[at] == UInt8(ascii: ":") else { return nil }
                    at = Self.skipSpace(bytes, at + 1)
                    if matches {
                        found = true
                        break
                    }
                    guard let valueEnd = Self.valueEnd(bytes, at) else { return nil }
                    at = Self.skipSpace(bytes, valueEnd)
                    guard at < end, bytes[at] == UInt8(ascii: ",") else { return nil }
                    at = Self.skipSpace(bytes, at + 1)
                }
                guard found else { return nil }
            } else {
                let index = step.index
                guard bytes[at] == UInt8(ascii: "[") else { return nil }
                at = Self.skipSpace(bytes, at + 1)
                var skipped = 0
                while skipped < index {
                    guard at < end, bytes[at] != UInt8(ascii: "]"), let valueEnd = Self.valueEnd(bytes, at) else { return nil }
                    at = Self.skipSpace(bytes, valueEnd)
                    guard at < end, bytes[at] == UInt8(ascii: ",") else { return nil }
                    at = Self.skipSpace(bytes, at + 1)
                    skipped += 1
                }
                guard at < end, bytes[at] != UInt8(ascii: "]") else { return nil }
            }
        }
        guard at < end else { return nil }
        switch bytes[at] {
        case UInt8(ascii: "\""):
            guard let (stringEnd, escaped) = Self.stringEnd(bytes, at) else { return nil }
            return Span(range: (at + 1)..<(stringEnd - 1), escaped: escaped)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard let valueEnd = Self.valueEnd(bytes, at) else { return nil }
            return Span(range: at..<valueEnd, escaped: false)
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"):
            return nil
        default:
            let tokenEnd = Self.tokenEnd(bytes, at)
            if tokenEnd - at == 4 && bytes[at] == UInt8(ascii: "n") && bytes[at + 1] == UInt8(ascii: "u")
                && bytes[at + 2] == UInt8(ascii: "l") && bytes[at + 3] == UInt8(ascii: "l") {
                return nil
            }
            return Span(range: at..<tokenEnd, escaped: false)
        }
    }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    static func skipSpace(_ bytes: UnsafeRawBufferPointer, _ start: Int) -> Int {
        var at = start
        while at < bytes.count && isSpace(bytes[at]) { at += 1 }
        return at
    }

    /// The end of a number or literal: the first delimiter or space.
    static func tokenEnd(_ bytes: UnsafeRawBufferPointer, _ start: Int) -> Int {
        var at = start
        while at < bytes.count {
            let byte = bytes[at]
            if isSpace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") { break }
            at += 1
        }
        return at
    }

    /// The string starting at `start` (its opening quote): the index after its closing quote,
    /// and whether it holds an escape; nil when it does not end.
    static func stringEnd(_ bytes: UnsafeRawBufferPointer, _ start: Int) -> (Int, Bool)? {
        var at = start + 1
        var escaped = false
        while at < bytes.count {
            switch bytes[at] {
            case UInt8(ascii: "\\"):
                escaped = true
                at += 2
            case UInt8(ascii: "\""):
                return (at + 1, escaped)
            default:
                at += 1
            }
        }
        return nil
    }

    /// The index after the value starting at `start`; nil when it does not end. Objects and
    /// arrays are skipped by counting brackets (strings inside them skipped whole).
    static func valueEnd(_ bytes: UnsafeRawBufferPointer, _ start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, start)?.0
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var at = start
            while at < bytes.count {
                switch bytes[at] {
                case UInt8(ascii: "\""):
                    guard let (after, _) = stringEnd(bytes, at) else { return nil }
                    at = after
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return at + 1 }
                default:
                    break
                }
                at += 1
            }
            return nil
        default:
            let end = tokenEnd(bytes, start)
            return end > start ? end : nil
        }
    }

    /// Whether the string content in `range` is `name`, escapes decoded.
    static func equals(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, escaped: Bool, _ name: UnsafeRawBufferPointer) -> Bool {
        if !escaped {
            guard range.count == name.count else { return false }
            var offset = 0
            while offset < name.count {
                if bytes[range.lowerBound + offset] != name[offset] { return false }
                offset += 1
            }
            return true
        }
        var position = 0
        var same = true
        let decoded = unescape(bytes, range) { byte in
            if position < name.count && name[position] == byte { position += 1 } else { same = false }
        }
        return decoded && same && position == name.count
    }

    /// Decodes the escapes of the string content in `range`, handing each byte of the result
    /// (UTF-8) to `sink`; false when an escape is invalid. A `\u` escape that is half of a
    /// surrogate pair without its other half becomes U+FFFD.
    static func unescape(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, into sink: (UInt8) -> Void) -> Bool {
        var at = range.lowerBound
        let end = range.upperBound
        func hex4(_ start: Int) -> UInt32? {
            guard start + 4 <= end else { return nil }
            var value: UInt32 = 0
            for offset in 0..<4 {
                let byte = bytes[start + offset]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while at < end {
            let byte = bytes[at]
            guard byte == UInt8(ascii: "\\") else {
                sink(byte)
                at += 1
                continue
            }
            guard at + 1 < end else { return false }
            let kind = bytes[at + 1]
            at += 2
            switch kind {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): sink(kind)
            case UInt8(ascii: "b"): sink(0x08)
            case UInt8(ascii: "f"): sink(0x0C)
            case UInt8(ascii: "n"): sink(0x0A)
            case UInt8(ascii: "r"): sink(0x0D)
            case UInt8(ascii: "t"): sink(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(at) else { return false }
                at += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    if at + 6 <= end, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u"),
                       let low = hex4(at + 2), (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        at += 6
                    } else {
                        scalar = 0xFFFD
                    }
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    scalar = 0xFFFD
                }
                encodeUTF8(scalar, into: sink)
            default:
                return false
            }
        }
        return true
    }

    /// Hands the UTF-8 bytes of `scalar` (at most U+10FFFF) to `sink`.
    static func encodeUTF8(_ scalar: UInt32, into sink: (UInt8) -> Void) {
        switch scalar {
        case ..<0x80:
            sink(UInt8(truncatingIfNeeded: scalar))
        case ..<0x800:
            sink(0xC0 | UInt8(truncatingIfNeeded: scalar >> 6))
            sink(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
        case ..<0x10000:
            sink(0xE0 | UInt8(truncatingIfNeeded: scalar >> 12))
            sink(0x80 | UInt8(truncatingIfNeeded: (scalar >> 6) & 0x3F))
            sink(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
        default:
            sink(0xF0 | UInt8(truncatingIfNeeded: (scalar >> 18) & 0x07))
            sink(0x80 | UInt8(truncatingIfNeeded: (scalar >> 12) & 0x3F))
            sink(0x80 | UInt8(truncatingIfNeeded: (scalar >> 6) & 0x3F))
            sink(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
        }
    }
}
