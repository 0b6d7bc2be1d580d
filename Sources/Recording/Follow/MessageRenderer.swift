import NIOCore
import PacketDecoding
import SocketEngine

/// How one whole message is shown after its marker, by `capture --follow` and by the live view
/// of `proxy --print-messages`: JSON pretty-printed when it parses, UTF-8 text escaped, anything
/// else as a byte count and a tcpdump -X dump.
///
/// With HTTP framing a message is shown as HTTP (through ``HTTPMessage``): the start line after
/// the marker, each header on its own line as `  Name: value`, then — when there is a body — an
/// empty line and the body, de-chunked, shown by the rules above and indented by two spaces,
/// then the trailers as the headers are:
///
/// ```
/// [1] << HTTP/1.1 200 OK
///   Content-Type: application/json
///   Transfer-Encoding: chunked
///
///   {
///     "a": 1
///   }
///   Checksum: 9
/// ```
///
/// Bytes that are not one whole HTTP message (``HTTPMessage`` refuses, among others, C0
/// controls in a field) are shown as any other message. C1 controls and DEL in the start line
/// and the fields are escaped (`\x85`), never written raw.
public enum MessageRenderer {
    /// Appends the message and a newline to `out` (a space first, when there is a body).
    public static func append(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if bytes.isEmpty {
            out.append(0x0A)
        } else if JSONPrettyPrinter.append(bytes, prefix: [0x20], into: &out) {
            out.append(0x0A)
        } else if MessageText.isUTF8WithoutC1(bytes) {
            out.append(0x20)
            MessageText.appendEscaped(bytes, into: &out)
            out.append(0x0A)
        } else {
            out += " \(plural(bytes.count, "byte"))".utf8
            HexDump.appendHexAndASCII(bytes, into: &out)
            out.append(0x0A)
        }
    }

    /// Appends `message`, cut with `framing`: as HTTP (see above) for HTTP framing when it
    /// parses, else as ``append(_:into:)`` shows any message.
    public static func append(_ message: ByteBuffer, framing: Framing?, into out: inout [UInt8]) {
        if framing == .http, appendHTTP(message, into: &out) { return }
        message.withUnsafeReadableBytes { append($0, into: &out) }
    }

    /// Appends `whole` as an HTTP message and returns true, or appends nothing and returns false
    /// when it is not one.
    static func appendHTTP(_ whole: ByteBuffer, into out: inout [UInt8]) -> Bool {
        guard let message = try? HTTPMessage(parsing: whole) else { return false }
        out.append(0x20)
        appendField(message.startLine, into: &out)
        out.append(0x0A)
        appendFields(message.headers, into: &out)
        if message.body.readableBytes > 0 {
            out.append(0x0A)
            var body: [UInt8] = [0x20]
            message.body.withUnsafeReadableBytes { append($0, into: &body) }
            // Indent every line of the body by two spaces; the hex dump's lines keep their tab.
            var atLineStart = false
            for byte in body {
                if atLineStart && byte != 0x09 && byte != 0x0A { out += [0x20, 0x20] }
                out.append(byte)
                atLineStart = byte == 0x0A
            }
        }
        appendFields(message.trailers, into: &out)
        return true
    }

    private static func appendFields(_ fields: [(name: String, value: String)], into out: inout [UInt8]) {
        for field in fields {
            out += [0x20, 0x20]
            appendField(field.name, into: &out)
            out += [UInt8(ascii: ":"), 0x20]
            appendField(field.value, into: &out)
            out.append(0x0A)
        }
    }

    /// Start-line and field text, its C0 and C1 control characters and DEL escaped (`\t`,
    /// `\x85`), so no byte of a field can move a terminal's cursor.
    private static func appendField(_ text: String, into out: inout [UInt8]) {
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x20 {
                withUnsafeBytes(of: UInt8(value)) { MessageText.appendEscaped($0, into: &out) }
            } else if (0x7F...0x9F).contains(value) {
                out += "\\x\(String(value, radix: 16))".utf8
            } else {
                out += String(scalar).utf8
            }
        }
    }
}
