import ArgumentParser
import NIOCore
import PacketDecoding
import SocketEngine

/// Option values with a grammar of their own, read by `@Option(transform:)` so a mistake is
/// reported with its reason, and only its reason (``CommandLineError`` drops the parser's
/// wrapping): "invalid endpoint 'localhost': missing port (expected HOST:PORT, e.g.
/// 127.0.0.1:7000)". Each reason names the value and says the expected form with an example.
/// Plain values (durations, sizes, counts, CIDRs) are `ExpressibleByArgument` instead, their
/// expected form given by their value name (``ValueForm``); what a value means together with
/// other options is checked by each command.
enum ArgumentValues {
    /// Where to connect: the endpoint grammar with a client's defaults.
    @Sendable static func clientEndpoint(_ text: String) throws -> Endpoint {
        try Endpoint(parsing: text, role: .client)
    }

    /// Where to listen: a bare port binds loopback.
    @Sendable static func listenerEndpoint(_ text: String) throws -> Endpoint {
        try Endpoint(parsing: text, role: .listener)
    }

    /// `--source`: `ADDR`, `ADDR:PORT`, `[V6]` or `[V6]:PORT`, the port checked.
    @Sendable static func sourceAddress(_ text: String) throws -> SourceAddress {
        try SourceAddress(parsing: text)
    }

    /// `raw`, `line`, `crlf`, `null`, `length:N[:be|:le]`, `fixed:N`.
    @Sendable static func framing(_ text: String) throws -> Framing {
        try Framing(parsing: text)
    }

    /// What the shells offer after `--framing`: every framing by name (`fixed:` waits for its size).
    static let framingCompletion = CompletionKind.list(["raw", "line", "crlf", "null", "length:1", "length:2", "length:4", "length:8", "fixed:", "http"])

    /// `capture --decode`: a comma-separated list of tls, ws, http2, all.
    @Sendable static func protocolViews(_ text: String) throws -> ProtocolViews {
        guard let views = ProtocolViews(list: text) else {
            throw UsageError("unknown view in '\(text)' (expected one of \(ProtocolViews.names), comma-separated, e.g. tls,ws)")
        }
        return views
    }

    /// An Origin header (`--origin`, `--allow-origin`): any text on one line.
    @Sendable static func origin(_ text: String) throws -> String {
        guard !text.isEmpty, !text.contains(where: { $0.isNewline || $0 == "\0" }) else {
            throw UsageError("an origin is one line of text (expected an origin such as http://localhost:8080)")
        }
        return text
    }

    /// A network interface's name (`--interface`, `capture -i`): what Linux allows, 1 to 15 bytes.
    static func checkedInterfaceName(_ name: String) throws -> String {
        guard !name.isEmpty, name.utf8.count < 16, !name.contains(where: { $0 == "/" || $0.isWhitespace }) else {
            throw UsageError("invalid interface name '\(name)' (expected 1 to 15 bytes without '/' or spaces, e.g. lo or eth0)")
        }
        return name
    }

    /// Backslash escapes: `\n \r \t \0 \\ \xHH`.
    @Sendable static func escaped(_ text: String) throws -> ByteBuffer {
        var out = ByteBuffer()
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "\\") else {
                out.writeInteger(byte)
                continue
            }
            guard let escape = bytes.popFirst() else {
                throw UsageError("a trailing backslash escapes nothing (expected one of \\n \\r \\t \\0 \\\\ \\xHH after it)")
            }
            switch escape {
            case UInt8(ascii: "n"): out.writeInteger(UInt8(0x0A))
            case UInt8(ascii: "r"): out.writeInteger(UInt8(0x0D))
            case UInt8(ascii: "t"): out.writeInteger(UInt8(0x09))
            case UInt8(ascii: "0"): out.writeInteger(UInt8(0x00))
            case UInt8(ascii: "\\"): out.writeInteger(UInt8(ascii: "\\"))
            case UInt8(ascii: "x"):
                let hex = bytes.prefix(2)
                guard hex.count == 2, let value = UInt8(String(decoding: hex, as: UTF8.self), radix: 16) else {
                    throw UsageError("\\x needs two hex digits (expected \\xHH such as \\x1b)")
                }
                bytes = bytes.dropFirst(2)
                out.writeInteger(value)
            default:
                throw UsageError("unknown escape '\\\(Character(UnicodeScalar(escape)))' (expected one of \\n \\r \\t \\0 \\\\ \\xHH)")
            }
        }
        return out
    }
}

/// `text` with its escapes read, for values escaped only on request (`send -e`), whose
/// mistakes name `option`.
func unescaped(_ text: String, option: String) throws -> ByteBuffer {
    do {
        return try ArgumentValues.escaped(text)
    } catch let error as UsageError {
        throw UsageError("\(option): \(error.message)")
    }
}

/// A whole number option checked against its range: `--repeat 0` → "--repeat must be a whole
/// number from 1 to 1000000, not 0"; below zero, "--repeat must not be negative (got -1)".
func checkedCount(_ value: Int, _ option: String, within range: ClosedRange<Int>) throws -> Int {
    if value < 0 && range.lowerBound >= 0 { throw UsageError("\(option) must not be negative (got \(value))") }
    guard range.contains(value) else {
        throw UsageError("\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(value)")
    }
    return value
}

/// A duration option that must be more than nothing.
func checkedPositive(_ value: Duration, _ option: String) throws -> Duration {
    guard value > .zero else { throw UsageError("\(option) must be greater than zero") }
    return value
}
