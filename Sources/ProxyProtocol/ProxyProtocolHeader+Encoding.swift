import NIOCore

extension ProxyProtocolHeader {
    /// The header for a connection from `source` to `destination` (the client's address and the
    /// one it connected to): TCP over IPv4 when both are IPv4, over IPv6 when both are IP
    /// addresses and one is IPv6 (an IPv4 one then written as `::ffff:a.b.c.d`); for Unix
    /// sockets v2 carries the paths and v1, which has no such family, says `UNKNOWN`.
    public init(version: Version, source: SocketAddress?, destination: SocketAddress?) {
        let addresses = source.flatMap { source in destination.map { Addresses(source: source, destination: $0) } }
        self.init(version: version, addresses: addresses)
    }

    /// The header's bytes, as a proxy writes them before the connection's own.
    public func encoded() -> [UInt8] {
        switch version {
        case .v1: Array(v1Line.utf8)
        case .v2: v2Block
        }
    }

    private var v1Line: String {
        guard let addresses, !isLocal else { return "PROXY UNKNOWN\r\n" }
        switch (addresses.source, addresses.destination) {
        case (.v4, .v4):
            let (source, destination) = (addresses.source, addresses.destination)
            return "PROXY TCP4 \(source.ipAddress ?? "") \(destination.ipAddress ?? "") \(source.port ?? 0) \(destination.port ?? 0)\r\n"
        case (.unixDomainSocket, _), (_, .unixDomainSocket):
            return "PROXY UNKNOWN\r\n"
        default:
            let source = Self.mappedText(addresses.source)
            let destination = Self.mappedText(addresses.destination)
            return "PROXY TCP6 \(source) \(destination) \(addresses.source.port ?? 0) \(addresses.destination.port ?? 0)\r\n"
        }
    }

    private var v2Block: [UInt8] {
        var block = Self.signature
        guard let addresses, !isLocal else {
            block += [isLocal ? 0x20 : 0x21, 0x00, 0x00, 0x00]
            return block
        }
        let body: [UInt8]
        let family: UInt8
        switch (addresses.source, addresses.destination) {
        case (.v4(let source), .v4(let destination)):
            family = 0x11
            body = Self.packed(source.address.sin_addr) + Self.packed(destination.address.sin_addr)
                + Self.port(addresses.source) + Self.port(addresses.destination)
        case (.unixDomainSocket, .unixDomainSocket):
            family = 0x31
            body = Self.paddedPath(addresses.source) + Self.paddedPath(addresses.destination)
        case (.unixDomainSocket, _), (_, .unixDomainSocket):
            block += [0x21, 0x00, 0x00, 0x00]
            return block
        default:
            family = 0x21
            body = Self.packed16(addresses.source) + Self.packed16(addresses.destination)
                + Self.port(addresses.source) + Self.port(addresses.destination)
        }
        block += [0x21, family, UInt8(body.count >> 8), UInt8(body.count & 0xFF)]
        block += body
        return block
    }

    private static func packed<T>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }

    /// An IP address as 16 bytes: IPv6 as it is, IPv4 mapped (`::ffff:a.b.c.d`).
    private static func packed16(_ address: SocketAddress) -> [UInt8] {
        switch address {
        case .v4(let v4): [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + packed(v4.address.sin_addr)
        case .v6(let v6): packed(v6.address.sin6_addr)
        case .unixDomainSocket: [UInt8](repeating: 0, count: 16)
        }
    }

    /// An IP address as v1's TCP6 writes it: IPv6 as it is, IPv4 mapped.
    private static func mappedText(_ address: SocketAddress) -> String {
        switch address {
        case .v4: "::ffff:\(address.ipAddress ?? "")"
        default: address.ipAddress ?? "::"
        }
    }

    private static func port(_ address: SocketAddress) -> [UInt8] {
        let port = UInt16(clamping: address.port ?? 0)
        return [UInt8(port >> 8), UInt8(port & 0xFF)]
    }

    /// A Unix path in 108 NUL-padded bytes (longer paths cannot be a socket's).
    private static func paddedPath(_ address: SocketAddress) -> [UInt8] {
        let path = Array((address.pathname ?? "").utf8.prefix(107))
        return path + [UInt8](repeating: 0, count: 108 - path.count)
    }
}
