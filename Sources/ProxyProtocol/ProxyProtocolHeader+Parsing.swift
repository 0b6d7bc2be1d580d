import NIOCore

extension ProxyProtocolHeader {
    /// What the first bytes of a connection come to.
    public enum Parsed: Sendable, Equatable {
        /// A whole header, and how many bytes it took (the connection's own bytes follow).
        case header(ProxyProtocolHeader, length: Int)
        /// So far the beginning of a header: more bytes are needed (never more than
        /// ``ProxyProtocolHeader/longestHeader`` in all).
        case incomplete
    }

    /// Reads the header at the start of `bytes`, the first bytes of a connection: v1 when they
    /// begin with `PROXY `, v2 when with the signature. Throws the ``Failure`` as soon as the
    /// bytes cannot be the start of a header; every length is checked before it is used.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Parsed {
        guard let first = bytes.first else { return .incomplete }
        return first == signature[0] ? try parseV2(bytes) : try parseV1(bytes)
    }

    private static let v1Prefix = Array("PROXY ".utf8)

    private static func parseV1(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Parsed {
        let known = min(bytes.count, v1Prefix.count)
        guard bytes.prefix(known).elementsEqual(v1Prefix.prefix(known)) else { throw .notAHeader }
        var end: Int?
        for index in 0..<min(bytes.count, longestLine) where bytes[index] == 0x0A {
            guard index > 0, bytes[index - 1] == 0x0D else { throw .badLine("with a line feed not after a carriage return") }
            end = index + 1
            break
        }
        guard let end else {
            if bytes.count >= longestLine { throw .lineTooLong }
            return .incomplete
        }
        let line = bytes[0..<(end - 2)]
        guard line.allSatisfy({ (0x20...0x7E).contains($0) }) else { throw .badLine("with a byte that is not printable ASCII") }
        let fields = String(decoding: line, as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 2 else { throw .badLine("without a protocol") }
        switch fields[1] {
        case "UNKNOWN":
            return .header(ProxyProtocolHeader(version: .v1, addresses: nil), length: end)
        case "TCP4", "TCP6":
            guard fields.count == 6 else { throw .badLine("with \(fields.count) fields (6 needed)") }
            let v6 = fields[1] == "TCP6"
            let source = try textAddress(fields[2], port: fields[4], v6: v6, role: "source")
            let destination = try textAddress(fields[3], port: fields[5], v6: v6, role: "destination")
            return .header(ProxyProtocolHeader(version: .v1, addresses: Addresses(source: source, destination: destination)), length: end)
        default:
            throw .badLine("with protocol '\(fields[1])' (TCP4, TCP6 or UNKNOWN)")
        }
    }

    /// One address of a v1 line: an IPv4 (TCP4) or IPv6 (TCP6) address and a decimal port.
    private static func textAddress(_ address: String, port: String, v6: Bool, role: String) throws(Failure) -> SocketAddress {
        guard (1...5).contains(port.utf8.count), port.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let number = Int(port), number <= 65_535 else {
            throw .badLine("with \(role) port '\(port)'")
        }
        let parsed: SocketAddress
        do {
            parsed = try SocketAddress(ipAddress: address, port: number)
        } catch {
            throw .badLine("with \(role) address '\(address)'")
        }
        switch parsed {
        case .v4 where !v6, .v6 where v6: return parsed
        default: throw .badLine("with \(role) address '\(address)' (not \(v6 ? "IPv6" : "IPv4"))")
        }
    }

    private static func parseV2(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Parsed {
        let known = min(bytes.count, signature.count)
        guard bytes.prefix(known).elementsEqual(signature.prefix(known)) else { throw .notAHeader }
        guard bytes.count >= 16 else { return .incomplete }
        let versionAndCommand = bytes[12]
        guard versionAndCommand >> 4 == 2 else { throw .badVersion(versionAndCommand >> 4) }
        let command = versionAndCommand & 0x0F
        guard command <= 1 else { throw .badCommand(command) }
        let familyAndProtocol = bytes[13]
        guard familyAndProtocol & 0x0F <= 2 else { throw .badFamily(familyAndProtocol) }
        let (family, need): (String, Int)
        switch familyAndProtocol >> 4 {
        case 0: (family, need) = ("unspecified", 0)
        case 1: (family, need) = ("IPv4", 12)
        case 2: (family, need) = ("IPv6", 36)
        case 3: (family, need) = ("Unix", 216)
        default: throw .badFamily(familyAndProtocol)
        }
        let length = Int(bytes[14]) << 8 | Int(bytes[15])
        guard bytes.count >= 16 + length else { return .incomplete }
        if command == 0 || need == 0 {
            let header = ProxyProtocolHeader(version: .v2, addresses: nil, isLocal: command == 0, extensionBytes: max(0, length - need))
            return .header(header, length: 16 + length)
        }
        guard length >= need else { throw .shortAddresses(family: family, have: length, need: need) }
        let body = UnsafeRawBufferPointer(rebasing: bytes[16..<(16 + need)])
        let addresses: Addresses?
        switch need {
        case 12: addresses = packedAddresses(body, size: 4)
        case 36: addresses = packedAddresses(body, size: 16)
        default: addresses = unixAddresses(body)
        }
        return .header(ProxyProtocolHeader(version: .v2, addresses: addresses, extensionBytes: length - need), length: 16 + length)
    }

    /// Two packed IP addresses of `size` bytes, then their ports (big-endian).
    private static func packedAddresses(_ body: UnsafeRawBufferPointer, size: Int) -> Addresses? {
        let ports = 2 * size
        let sourcePort = Int(body[ports]) << 8 | Int(body[ports + 1])
        let destinationPort = Int(body[ports + 2]) << 8 | Int(body[ports + 3])
        guard let source = try? SocketAddress(packedIPAddress: ByteBuffer(bytes: body[0..<size]), port: sourcePort),
              let destination = try? SocketAddress(packedIPAddress: ByteBuffer(bytes: body[size..<ports]), port: destinationPort) else {
            return nil
        }
        return Addresses(source: source, destination: destination)
    }

    /// Two Unix paths of 108 bytes each, NUL-padded; nil when one is not a path a socket can have.
    private static func unixAddresses(_ body: UnsafeRawBufferPointer) -> Addresses? {
        func path(_ bytes: Slice<UnsafeRawBufferPointer>) -> SocketAddress? {
            let name = bytes.prefix { $0 != 0 }
            guard name.count < bytes.count else { return nil }
            return try? SocketAddress(unixDomainSocketPath: String(decoding: name, as: UTF8.self))
        }
        guard let source = path(body[0..<108]), let destination = path(body[108..<216]) else { return nil }
        return Addresses(source: source, destination: destination)
    }
}
