import Foundation
import NIOCore

/// A small JSON value with ordered object keys, rendered compactly, for stable script output.
public indirect enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// The compact text, keys in the order given.
    public var rendered: String {
        var out = ""
        render(into: &out)
        return out
    }

    private func render(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value): out += value.isFinite ? decimal(value, places: 3) : "null"
        case .string(let value): JSONValue.quote(value, into: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.render(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                JSONValue.quote(key, into: &out)
                out += ":"
                value.render(into: &out)
            }
            out += "}"
        }
    }

    /// Appends `text` as a JSON string literal.
    public static func quote(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// A message body: `{"bytes":N,"text":"..."}` when it is valid UTF-8, else `{"bytes":N,"base64":"..."}`.
    public static func body(_ buffer: ByteBuffer) -> JSONValue {
        let bytes = buffer.readableBytesView
        if let text = String(validating: bytes, as: UTF8.self) {
            return .object([("bytes", .int(bytes.count)), ("text", .string(text))])
        }
        return .object([("bytes", .int(bytes.count)), ("base64", .string(base64(Array(bytes))))])
    }

    /// Standard base64 with padding.
    public static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }
}
