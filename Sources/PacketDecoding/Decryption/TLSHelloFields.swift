/// What decryption needs from the plaintext hellos (RFC 8446 §4.1.2–4.1.3, RFC 5246 §7.4.1):
/// the client random, and the server random, chosen version and cipher suite. Bounds-checked:
/// a hello too short for a field gives nil.
enum TLSHelloFields {
    /// The random of a HelloRetryRequest (RFC 8446 §4.1.3): SHA-256 of "HelloRetryRequest".
    static let helloRetryRandom: [UInt8] = [
        0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
        0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
    ]

    /// A ClientHello body's random.
    static func clientRandom(_ body: ArraySlice<UInt8>) -> [UInt8]? {
        guard body.count >= 34 else { return nil }
        let start = body.startIndex + 2
        return Array(body[start..<(start + 32)])
    }

    struct ServerHello {
        var random: [UInt8]
        /// 0x0304 for TLS 1.3 (supported_versions), else the hello's version field.
        var version: UInt16
        var suite: UInt16
    }

    /// A ServerHello body's fields.
    static func serverHello(_ body: ArraySlice<UInt8>) -> ServerHello? {
        var offset = body.startIndex
        func u8() -> Int? {
            guard offset < body.endIndex else { return nil }
            defer { offset += 1 }
            return Int(body[offset])
        }
        func u16() -> Int? {
            guard let high = u8(), let low = u8() else { return nil }
            return high << 8 | low
        }
        guard let legacy = u16(), body.endIndex - offset >= 32 else { return nil }
        let random = Array(body[offset..<(offset + 32)])
        offset += 32
        guard let sessionLength = u8(), body.endIndex - offset >= sessionLength else { return nil }
        offset += sessionLength
        guard let suite = u16(), u8() != nil else { return nil }
        var hello = ServerHello(random: random, version: UInt16(legacy), suite: UInt16(suite))
        guard let extensionsLength = u16() else { return hello }
        let end = min(body.endIndex, offset + extensionsLength)
        while end - offset >= 4, let type = u16(), let length = u16() {
            guard end - offset >= length else { break }
            if type == 43, length >= 2 {
                hello.version = UInt16(body[offset]) << 8 | UInt16(body[offset + 1])
            }
            offset += length
        }
        return hello
    }
}
