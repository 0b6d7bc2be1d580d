/// Reads the handshake messages of one plaintext TLS record into a ``TLSRecordSummary``: the
/// message types, and from a ClientHello the server name, ALPN list and supported versions,
/// from a ServerHello the chosen version, cipher suite and ALPN (RFC 8446 §4.1.2, §4.1.3,
/// RFC 6066 §3, RFC 7301). Every read is checked against the bytes present: a field that does
/// not fit ends the reading of that message, never the program.
enum TLSHandshakeReader {
    /// At most this many ALPN protocols and versions are kept (a hostile hello can list 30,000).
    static let maximumListed = 16

    static func read(_ body: UnsafeRawBufferPointer, into record: inout TLSRecordSummary) {
        var offset = 0
        while offset + 4 <= body.count {
            let type = body[offset]
            let length = Int(body[offset + 1]) << 16 | Int(body[offset + 2]) << 8 | Int(body[offset + 3])
            record.handshakeTypes.append(type)
            let start = offset + 4
            guard length <= body.count - start else {
                record.continues = true
                return
            }
            let message = UnsafeRawBufferPointer(rebasing: body[start..<(start + length)])
            switch type {
            case 1: readClientHello(message, into: &record)
            case 2: readServerHello(message, into: &record)
            default: break
            }
            offset = start + length
            if record.handshakeTypes.count >= maximumListed { return }
        }
        if offset < body.count { record.continues = true }
    }

    /// A bounds-checked reader over one message.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var remaining: Int { bytes.count - offset }

        mutating func u8() -> Int? {
            guard remaining >= 1 else { return nil }
            defer { offset += 1 }
            return Int(bytes[offset])
        }

        mutating func u16() -> Int? {
            guard remaining >= 2 else { return nil }
            defer { offset += 2 }
            return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
        }

        /// The next `count` bytes as a view, or nil when fewer are left.
        mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, remaining >= count else { return nil }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
        }
    }

    private static func readClientHello(_ message: UnsafeRawBufferPointer, into record: inout TLSRecordSummary) {
        var reader = Reader(bytes: message)
        guard reader.take(2 + 32) != nil,
              let sessionLength = reader.u8(), reader.take(sessionLength) != nil,
              let suitesLength = reader.u16(), reader.take(suitesLength) != nil,
              let compressionLength = reader.u8(), reader.take(compressionLength) != nil,
              let extensionsLength = reader.u16(), let extensions = reader.take(extensionsLength) else { return }
        forEachExtension(extensions) { type, data in
            var field = Reader(bytes: data)
            switch type {
            case 0:  // server_name: a list of (type, name); type 0 is a host name
                guard let listLength = field.u16(), var list = field.take(listLength).map({ Reader(bytes: $0) }) else { return }
                while let nameType = list.u8(), let nameLength = list.u16(), let name = list.take(nameLength) {
                    if nameType == 0 {
                        record.serverName = Array(name.prefix(255))
                        return
                    }
                }
            case 16:
                readALPN(&field, into: &record)
            case 43:  // supported_versions: a one-byte length, then two bytes per version
                guard let listLength = field.u8(), var list = field.take(listLength).map({ Reader(bytes: $0) }) else { return }
                while let version = list.u16(), record.offeredVersions.count < maximumListed {
                    if !TLSNames.isGREASE(UInt16(version)) { record.offeredVersions.append(UInt16(version)) }
                }
            default:
                break
            }
        }
    }

    private static func readServerHello(_ message: UnsafeRawBufferPointer, into record: inout TLSRecordSummary) {
        var reader = Reader(bytes: message)
        guard let legacyVersion = reader.u16(), reader.take(32) != nil,
              let sessionLength = reader.u8(), reader.take(sessionLength) != nil,
              let suite = reader.u16(), reader.u8() != nil else { return }
        record.selectedVersion = UInt16(legacyVersion)
        record.cipherSuite = UInt16(suite)
        guard let extensionsLength = reader.u16(), let extensions = reader.take(extensionsLength) else { return }
        forEachExtension(extensions) { type, data in
            var field = Reader(bytes: data)
            switch type {
            case 16: readALPN(&field, into: &record)
            case 43: if let version = field.u16() { record.selectedVersion = UInt16(version) }
            default: break
            }
        }
    }

    /// ALPN: a two-byte list length, then one-byte-length protocol names.
    private static func readALPN(_ field: inout Reader, into record: inout TLSRecordSummary) {
        guard let listLength = field.u16(), var list = field.take(listLength).map({ Reader(bytes: $0) }) else { return }
        while let nameLength = list.u8(), let name = list.take(nameLength), record.alpn.count < maximumListed {
            record.alpn.append(Array(name))
        }
    }

    /// Each (type, data) of an extensions block, until one does not fit.
    private static func forEachExtension(_ block: UnsafeRawBufferPointer, _ body: (Int, UnsafeRawBufferPointer) -> Void) {
        var reader = Reader(bytes: block)
        while let type = reader.u16(), let length = reader.u16(), let data = reader.take(length) {
            body(type, data)
        }
    }
}
