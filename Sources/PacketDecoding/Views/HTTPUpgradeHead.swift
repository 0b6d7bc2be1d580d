/// The start of an HTTP/1.1 message as far as the upgrade views need it (RFC 9110 §7.8,
/// RFC 6455 §4): the request target or status code, the `Upgrade` header's value, and where
/// the header section ends. Only the first ``maximumLength`` bytes are looked at.
struct HTTPUpgradeHead {
    static let maximumLength = 8192

    /// A request's target (`/chat`), or empty for a response.
    var target: [UInt8] = []
    /// A response's status code, or nil for a request.
    var status: Int?
    /// The `Upgrade` header's value, lowercased (`websocket`, `h2c`), or empty.
    var upgrade: [UInt8] = []
    /// The values of the `Sec-WebSocket-Extensions` headers (at most 16, 1,024 bytes each).
    var extensions: [String] = []
    /// The offset just past the blank line ending the headers, when it was seen.
    var end: Int?

    /// Reads a request (`GET …`) or response (`HTTP/1.x NNN …`) head; nil for anything else.
    init?(_ bytes: UnsafeRawBufferPointer) {
        let limit = min(bytes.count, Self.maximumLength)
        var lines: [Range<Int>] = []
        var start = 0
        var index = 0
        while index < limit {
            if bytes[index] == 0x0A {
                var lineEnd = index
                if lineEnd > start && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                if lineEnd == start && !lines.isEmpty {
                    end = index + 1
                    break
                }
                lines.append(start..<lineEnd)
                start = index + 1
            }
            index += 1
        }
        guard let first = lines.first else { return nil }
        let requestLine = UnsafeRawBufferPointer(rebasing: bytes[first])
        if Self.hasPrefix(requestLine, "HTTP/1.") {
            guard requestLine.count >= 12 else { return nil }
            var code = 0
            for digit in requestLine[9..<12] {
                guard (0x30...0x39).contains(digit) else { return nil }
                code = code * 10 + Int(digit - 0x30)
            }
            status = code
        } else if Self.hasPrefix(requestLine, "GET ") {
            let rest = requestLine[4...]
            target = Array(rest.prefix { $0 != 0x20 }.prefix(256))
        } else {
            return nil
        }
        for line in lines.dropFirst() {
            let text = UnsafeRawBufferPointer(rebasing: bytes[line])
            if Self.hasPrefix(text, "sec-websocket-extensions:", caseInsensitive: true), extensions.count < 16 {
                extensions.append(String(decoding: text[25...].prefix(1024), as: UTF8.self))
                continue
            }
            guard Self.hasPrefix(text, "upgrade:", caseInsensitive: true) else { continue }
            upgrade = text[8...].filter { $0 != 0x20 && $0 != 0x09 }.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        }
    }

    /// The upgrade asked for or granted includes `token` (`websocket`, `h2c`).
    func upgrades(to token: StaticString) -> Bool {
        token.withUTF8Buffer { wanted in
            upgrade.split(separator: UInt8(ascii: ",")).contains { $0.elementsEqual(wanted) }
        }
    }

    static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ prefix: StaticString, caseInsensitive: Bool = false) -> Bool {
        prefix.withUTF8Buffer { wanted in
            guard bytes.count >= wanted.count else { return false }
            for index in 0..<wanted.count {
                var byte = bytes[index]
                if caseInsensitive && (0x41...0x5A).contains(byte) { byte |= 0x20 }
                if byte != wanted[index] { return false }
            }
            return true
        }
    }
}
