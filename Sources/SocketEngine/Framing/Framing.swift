import NIOCore

/// How a byte stream is cut into messages, shared by every subcommand's `--framing`.
///
/// ```
/// raw           whatever each read returns          | hello wor | ld\n |
/// line          LF-terminated (CR before LF dropped) | hello world\n |          -> "hello world"
/// crlf          CRLF-terminated (JSON-over-TCP)      | {"a":1}\r\n |            -> {"a":1}
/// null          NUL-terminated                       | abc\0 |                  -> "abc"
/// length:4:be   4-byte big-endian length, then body  | 00 00 00 05 | hello |   -> "hello"
/// fixed:8       every 8 bytes                        | 12345678 |               -> "12345678"
/// http          whole HTTP/1.1 requests and responses | GET / HTTP/1.1\r\n…\r\n\r\n | -> the whole message
/// ```
///
/// The specification text is `raw`, `line`, `crlf`, `null`, `length:N[:be|:le]` with N = 1, 2,
/// 4 or 8 (big-endian unless `:le`), `fixed:N` with N ≥ 1, or `http` (also `http/1.1`).
///
/// `http` cuts each message where HTTP/1.1 says it ends (``HTTPMessageScanner``); a message
/// given whole is sent as it is. HTTP/2 would be another case with a cutter of its own.
public enum Framing: Sendable, Hashable, CustomStringConvertible {
    case raw
    case line
    case crlf
    case null
    case lengthPrefixed(width: Int, bigEndian: Bool)
    case fixed(Int)
    /// Whole HTTP/1.1 messages, cut by ``HTTPMessageScanner``.
    case http

    /// Messages are delimited by a terminator rather than by counted bytes.
    package var delimiter: [UInt8]? {
        switch self {
        case .line: return [0x0A]
        case .crlf: return [0x0D, 0x0A]
        case .null: return [0x00]
        case .raw, .lengthPrefixed, .fixed, .http: return nil
        }
    }

    /// False for `raw`, where a "message" is just whatever one read returned.
    package var delimitsMessages: Bool { self != .raw }

    /// The specification text that parses back to this framing (`line`, `length:4:be`).
    public var description: String {
        switch self {
        case .raw: return "raw"
        case .line: return "line"
        case .crlf: return "crlf"
        case .null: return "null"
        case .lengthPrefixed(let width, let bigEndian): return "length:\(width):\(bigEndian ? "be" : "le")"
        case .fixed(let size): return "fixed:\(size)"
        case .http: return "http"
        }
    }

    /// Parses a framing specification such as `length:4:le`.
    public init(parsing text: String) throws(SocketEngineError) {
        func fail(_ why: String) -> SocketEngineError {
            SocketEngineError(
                .invalidFraming,
                "invalid framing '\(text)': \(why) (expected raw, line, crlf, null, length:N[:be|:le], fixed:N or http, e.g. line or length:4)"
            )
        }
        let parts = text.lowercased().split(separator: ":", omittingEmptySubsequences: false)
        switch parts.first {
        case "raw" where parts.count == 1: self = .raw
        case "line" where parts.count == 1, "lf" where parts.count == 1: self = .line
        case "crlf" where parts.count == 1: self = .crlf
        case "http" where parts.count == 1, "http/1.1" where parts.count == 1: self = .http
        case "null" where parts.count == 1, "nul" where parts.count == 1: self = .null
        case "length":
            guard parts.count == 2 || parts.count == 3 else { throw fail("length needs a width") }
            guard let width = Int(parts[1]), [1, 2, 4, 8].contains(width) else {
                throw fail("length width '\(parts[1])' must be 1, 2, 4 or 8")
            }
            var bigEndian = true
            if parts.count == 3 {
                switch parts[2] {
                case "be": bigEndian = true
                case "le": bigEndian = false
                default: throw fail("byte order '\(parts[2])' must be be or le")
                }
            }
            self = .lengthPrefixed(width: width, bigEndian: bigEndian)
        case "fixed":
            guard parts.count == 2 else { throw fail("fixed needs a size") }
            guard parts[1].allSatisfy(\.isASCIIDigit), parts[1].count <= 12, let size = Int(parts[1]), size >= 1 else {
                throw fail("fixed size '\(parts[1])' must be a positive number")
            }
            self = .fixed(size)
        default:
            throw fail("unknown framing")
        }
    }

    /// The largest body the length prefix can describe.
    var maximumEncodableLength: UInt64 {
        switch self {
        case .lengthPrefixed(let width, _):
            return width == 8 ? UInt64.max : (UInt64(1) << UInt64(width * 8)) - 1
        default:
            return UInt64.max
        }
    }

    /// Appends `body` as one frame to `out`.
    ///
    /// A body that already ends in the delimiter (`line`, `crlf`, `null`) is not terminated
    /// again: `{"op":"ping"}\n` given with `line` framing is one message, not that message and
    /// an empty one. The one rule for every message given whole (heartbeats, `send` arguments,
    /// load-test messages, canned replies); bodies cut from a stream by the same framing never
    /// end in it.
    ///
    /// - Throws: `.frameTooLarge` when the body does not fit the length prefix, and
    ///   `.invalidConfiguration` when a `fixed:N` body is not exactly N bytes.
    package func encode(_ body: ByteBuffer, into out: inout ByteBuffer) throws(SocketEngineError) {
        switch self {
        case .raw, .http:
            out.writeImmutableBuffer(body)
        case .line, .crlf, .null:
            out.writeImmutableBuffer(body)
            let delimiter = delimiter ?? []
            if !body.readableBytesView.suffix(delimiter.count).elementsEqual(delimiter) { out.writeBytes(delimiter) }
        case .lengthPrefixed(let width, let bigEndian):
            let length = UInt64(body.readableBytes)
            guard length <= maximumEncodableLength else {
                throw SocketEngineError(
                    .frameTooLarge,
                    "message of \(length) bytes does not fit a \(width)-byte length prefix"
                )
            }
            let endianness: Endianness = bigEndian ? .big : .little
            switch width {
            case 1: out.writeInteger(UInt8(length))
            case 2: out.writeInteger(UInt16(length), endianness: endianness)
            case 4: out.writeInteger(UInt32(length), endianness: endianness)
            default: out.writeInteger(length, endianness: endianness)
            }
            out.writeImmutableBuffer(body)
        case .fixed:
            try checkFixedSize(body)
            out.writeImmutableBuffer(body)
        }
    }

    /// For `fixed:N`, refuses a body that is not exactly N bytes; other framings take any size.
    package func checkFixedSize(_ body: ByteBuffer) throws(SocketEngineError) {
        guard case .fixed(let size) = self, body.readableBytes != size else { return }
        throw SocketEngineError(
            .invalidConfiguration,
            "message is \(plural(body.readableBytes, "byte")) but fixed:\(size) framing needs exactly \(size)"
        )
    }

    /// `body` encoded as one frame.
    package func encode(_ body: ByteBuffer) throws(SocketEngineError) -> ByteBuffer {
        var out = ByteBuffer()
        out.reserveCapacity(body.readableBytes + 8)
        try encode(body, into: &out)
        return out
    }
}
