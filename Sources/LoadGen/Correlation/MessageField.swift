import Foundation
import NIOCore
import SocketEngine

/// A rule that picks one value out of a message: what `--correlate` matches replies to requests
/// by, and what `--label` splits the report by.
///
/// ```
/// json:$.id          the member `id` of a JSON message        {"id":7,"op":"get"}   -> 7
/// json:$.meta.req    a nested member                          {"meta":{"req":"a1"}} -> a1
/// regex:id=(\d+)     the first capture group of a regex       "GET id=42 ok"        -> 42
/// bytes:4:8          8 bytes from offset 4 (binary protocols)  | hdr | 8-byte id |   -> the 8 bytes
/// http:method        an HTTP request's method                 GET /a/b?x=1 HTTP/1.1 -> GET
/// http:path          its target's path (no query)              GET /a/b?x=1 HTTP/1.1 -> /a/b
/// http:target        its whole target                          GET /a/b?x=1 HTTP/1.1 -> /a/b?x=1
/// ```
///
/// The `http:` kinds read the request line of an HTTP request (a label of `http://` targets);
/// the others read an HTTP request's body.
///
/// The rule is applied to a message's body: a request as sent (with `{{seq}}` and `{{conn}}`
/// filled in, without its framing) and a reply as its framing cut it. A message the rule finds
/// nothing in (not JSON, no such member, `null`, no match, too short for the bytes) has no
/// value: a reply without one is unmatched. Finding a value never traps, whatever the bytes.
///
/// Cost per message: `json:` and `bytes:` read the message's bytes in place and make a
/// ``FieldKey`` without allocating; `regex:` makes a `String` of each message (NSRegularExpression
/// works on strings), so it is the slow choice under load. Immutable once made.
public final class MessageField: Sendable, CustomStringConvertible {
    // One of the three is set. (Stored apart rather than as an enum's payloads, so that the
    // hot path reads them in place instead of copying a payload out, with its reference counts;
    // and a class, so that passing the rule around is one reference, not one per array.)
    private let jsonPath: JSONPath?
    private let expression: RegularExpression?
    private let slice: (offset: Int, length: Int)?
    /// `http:`: which part of the request line.
    private let requestPart: RequestPart?
    /// The rule as written (`json:$.id`).
    public let description: String

    /// The parts of an HTTP request line a rule can read.
    enum RequestPart: String, Sendable {
        case method, path, target
    }

    /// The rule reads an HTTP request's request line (`http:`), not its body.
    package var readsRequestLine: Bool { requestPart != nil }

    /// The longest value `bytes:` may take, and the largest offset.
    static let maximumBytes = 1 << 20

    /// Parses `json:PATH`, `regex:RE` or `bytes:OFFSET:LENGTH` as a correlation rule: a mistake
    /// names the correlation key's setting in its one-line reason.
    public convenience init(parsing text: String) throws(LoadGenError) {
        try self.init(parsing: text, option: .correlate)
    }

    /// Parses `json:PATH`, `regex:RE` or `bytes:OFFSET:LENGTH`. `option` (the correlation key,
    /// the label rule) names the setting in the one-line reason of a
    /// ``LoadGenError/Code/invalidPlan``.
    public init(parsing text: String, option: SettingKey) throws(LoadGenError) {
        description = text
        let expected = option == .label
            ? "(expected json:PATH, regex:RE, bytes:OFFSET:LENGTH or http:method|path|target, e.g. json:$.id)"
            : "(expected json:PATH, regex:RE or bytes:OFFSET:LENGTH, e.g. json:$.id)"
        guard let colon = text.firstIndex(of: ":") else {
            throw LoadGenError(.invalidPlan, "invalid \(option) '\(text)': no kind \(expected)" as SettingText)
        }
        let kind = text[..<colon].lowercased()
        let argument = String(text[text.index(after: colon)...])
        switch kind {
        case "http":
            guard let part = RequestPart(rawValue: argument.lowercased()) else {
                throw LoadGenError(.invalidPlan, "invalid \(option) '\(text)': give http:method, http:path or http:target" as SettingText)
            }
            (jsonPath, expression, slice, requestPart) = (nil, nil, nil, part)
        case "json":
            (jsonPath, expression, slice, requestPart) = (try JSONPath(parsing: argument, option: option), nil, nil, nil)
        case "regex":
            (jsonPath, expression, slice, requestPart) = (nil, try RegularExpression(parsing: argument, option: option), nil, nil)
        case "bytes":
            let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let offset = Int(parts[0]), let length = Int(parts[1]),
                  (0...Self.maximumBytes).contains(offset), (1...Self.maximumBytes).contains(length) else {
                throw LoadGenError(.invalidPlan, "invalid \(option) bytes:\(argument): give OFFSET:LENGTH, an offset from 0 and a length from 1 (each at most \(Self.maximumBytes)), e.g. bytes:4:8" as SettingText)
            }
            (jsonPath, expression, slice, requestPart) = (nil, nil, (offset, length), nil)
        default:
            throw LoadGenError(.invalidPlan, "invalid \(option) '\(text)': unknown kind '\(kind)' \(expected)" as SettingText)
        }
    }

    /// The same rule, sharing no storage with this one: each event loop or connection thread
    /// reads keys with its own copy, so that no reference count is shared between cores on the
    /// hot path.
    package func copy() -> MessageField {
        (try? MessageField(parsing: description)) ?? self
    }

    // MARK: Keys

    /// The key of the value in `bytes` (a message body), or nil when it has none.
    package func key(in bytes: UnsafeRawBufferPointer) -> FieldKey? {
        if let requestPart {
            guard let range = Self.locate(requestPart, in: bytes) else { return nil }
            var builder = FieldKey.Builder()
            builder.append(UnsafeRawBufferPointer(rebasing: bytes[range]))
            return builder.key
        }
        if jsonPath != nil {
            guard let span = jsonPath?.locate(in: bytes) else { return nil }
            var builder = FieldKey.Builder()
            if span.escaped {
                guard JSONPath.unescape(bytes, span.range, into: { builder.append($0) }) else { return nil }
            } else {
                builder.append(UnsafeRawBufferPointer(rebasing: bytes[span.range]))
            }
            return builder.key
        }
        if let (offset, length) = slice {
            guard offset <= bytes.count, length <= bytes.count - offset else { return nil }
            var builder = FieldKey.Builder()
            builder.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
            return builder.key
        }
        return expression?.firstGroup(in: bytes).map { FieldKey($0) }
    }

    /// The key of the value in `buffer`'s readable bytes.
    @inline(__always)
    package func key(in buffer: ByteBuffer) -> FieldKey? {
        buffer.withUnsafeReadableBytes { key(in: $0) }
    }

    // MARK: Values as text

    /// The value in `bytes` as text (for labels and for `send`), or nil when it has none. Text
    /// that is not printable UTF-8 (`bytes:` of a binary id) is shown as `0x` and hex digits.
    package func value(in bytes: UnsafeRawBufferPointer) -> String? {
        let raw: [UInt8]
        if let requestPart {
            guard let range = Self.locate(requestPart, in: bytes) else { return nil }
            raw = Array(bytes[range])
        } else if let path = jsonPath {
            guard let span = path.locate(in: bytes) else { return nil }
            if span.escaped {
                var decoded: [UInt8] = []
                guard JSONPath.unescape(bytes, span.range, into: { decoded.append($0) }) else { return nil }
                raw = decoded
            } else {
                raw = Array(bytes[span.range])
            }
        } else if let (offset, length) = slice {
            guard offset <= bytes.count, length <= bytes.count - offset else { return nil }
            raw = Array(bytes[offset..<(offset + length)])
        } else {
            guard let group = expression?.firstGroup(in: bytes) else { return nil }
            raw = group
        }
        return Self.display(raw)
    }

    /// The value in `buffer`'s readable bytes (a message body) as text, or nil when it has none:
    /// a JSON string's characters, a number as written, non-text bytes as `0x…`.
    public func value(in buffer: ByteBuffer) -> String? {
        buffer.withUnsafeReadableBytes { value(in: $0) }
    }

    /// The value in `bytes`, as text.
    package func value(in bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { value(in: $0) }
    }

    /// The key of the value in `bytes`.
    package func key(in bytes: [UInt8]) -> FieldKey? {
        bytes.withUnsafeBytes { key(in: $0) }
    }

    /// Where `part` of the request line at the front of `bytes` is (`METHOD SP TARGET SP
    /// HTTP/1.x`); nil when the bytes do not start with one.
    static func locate(_ part: RequestPart, in bytes: UnsafeRawBufferPointer) -> Range<Int>? {
        var index = 0
        while index < bytes.count && bytes[index] != 0x20 && bytes[index] != 0x0D && bytes[index] != 0x0A { index += 1 }
        guard index > 0, index < bytes.count, bytes[index] == 0x20 else { return nil }
        if part == .method { return 0..<index }
        let start = index + 1
        var end = start
        var query: Int?
        while end < bytes.count && bytes[end] != 0x20 && bytes[end] != 0x0D && bytes[end] != 0x0A {
            if bytes[end] == UInt8(ascii: "?") && query == nil { query = end }
            end += 1
        }
        guard end > start else { return nil }
        return part == .path ? start..<(query ?? end) : start..<end
    }

    /// `bytes` as text when it is valid UTF-8 without control characters, else `0x…`.
    static func display(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self), !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return text
        }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = Array("0x".utf8)
        for byte in bytes {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
