import PacketDecoding
import SocketEngine

/// How one whole message is shown after its marker, by `capture --follow` and by the live view
/// of `proxy --print-messages`: JSON pretty-printed when it parses, UTF-8 text escaped, anything
/// else as a byte count and a tcpdump -X dump.
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
}
