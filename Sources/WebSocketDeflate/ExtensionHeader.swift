/// The `Sec-WebSocket-Extensions` grammar (RFC 6455 §9.1): a comma-separated list of
/// extensions, each a token and `;`-separated parameters, each a token with an optional value
/// (a token or a quoted string).
///
/// ```
/// permessage-deflate; client_max_window_bits, permessage-deflate; server_max_window_bits="10"
/// -> [("permessage-deflate", [("client_max_window_bits", nil)]),
///     ("permessage-deflate", [("server_max_window_bits", "10")])]
/// ```
public enum ExtensionHeader {
    /// One extension with its parameters, in order.
    public struct Extension: Sendable, Equatable {
        /// The extension's token, as sent.
        public var name: String
        /// Each parameter's name and its value (nil: the parameter has none).
        public var parameters: [(String, String?)]

        /// Same name, same parameters in the same order.
        public static func == (lhs: Extension, rhs: Extension) -> Bool {
            lhs.name == rhs.name && lhs.parameters.elementsEqual(rhs.parameters) { $0.0 == $1.0 && $0.1 == $1.1 }
        }
    }

    /// The extensions of all the header's values in order; nil when one does not follow the
    /// grammar. At most 64 extensions and 64 parameters each are read (more is nil).
    public static func parse(_ headerValues: [String]) -> [Extension]? {
        var result: [Extension] = []
        for value in headerValues {
            var scanner = Scanner(Array(value.utf8))
            while true {
                scanner.skipSpaces()
                if scanner.atEnd { break }
                guard let name = scanner.token() else { return nil }
                var parameters: [(String, String?)] = []
                scanner.skipSpaces()
                while scanner.take(UInt8(ascii: ";")) {
                    scanner.skipSpaces()
                    guard let key = scanner.token() else { return nil }
                    scanner.skipSpaces()
                    var parameterValue: String?
                    if scanner.take(UInt8(ascii: "=")) {
                        scanner.skipSpaces()
                        guard let parsed = scanner.token() ?? scanner.quoted() else { return nil }
                        parameterValue = parsed
                        scanner.skipSpaces()
                    }
                    parameters.append((key, parameterValue))
                    guard parameters.count <= 64 else { return nil }
                }
                result.append(Extension(name: name, parameters: parameters))
                guard result.count <= 64 else { return nil }
                if scanner.atEnd { break }
                guard scanner.take(UInt8(ascii: ",")) else { return nil }
            }
        }
        return result
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }

        mutating func skipSpaces() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func token() -> String? {
            let start = index
            while index < bytes.count, Self.isTokenByte(bytes[index]) { index += 1 }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        /// A quoted string whose content is a token once unescaped (RFC 6455 §9.1).
        mutating func quoted() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var content: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") {
                    guard !content.isEmpty, content.allSatisfy(Self.isTokenByte) else { return nil }
                    return String(decoding: content, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") {
                    guard index < bytes.count else { return nil }
                    content.append(bytes[index])
                    index += 1
                } else {
                    content.append(byte)
                }
            }
            return nil
        }

        static func isTokenByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}
