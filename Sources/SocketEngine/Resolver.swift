import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which address families a connection may use (`-4`, `-6`).
public enum AddressFamilyPreference: Sendable, Hashable {
    case any
    case ipv4Only
    case ipv6Only

    public func allows(_ address: SocketAddress) -> Bool {
        switch (self, address) {
        case (.any, _), (.ipv4Only, .v4), (.ipv6Only, .v6): return true
        default: return false
        }
    }

    public var name: String {
        switch self {
        case .any: return "any"
        case .ipv4Only: return "IPv4"
        case .ipv6Only: return "IPv6"
        }
    }
}

/// Turns a host name into socket addresses.
public protocol HostResolver: Sendable {
    /// All addresses of `host`, in the order the system prefers them.
    ///
    /// - Throws: `.resolutionFailed` naming the host.
    func resolve(host: String, port: Int, datagram: Bool) async throws -> [SocketAddress]
}

/// Resolves with `getaddrinfo(3)` on NIO's blocking-I/O thread pool, never on an event loop.
///
/// Address literals take `getaddrinfo`'s numeric fast path. `AI_ADDRCONFIG` is not used, so a
/// network namespace that has only `lo` still resolves `localhost` to `::1`.
public struct SystemResolver: HostResolver {
    public init() {}

    public func resolve(host: String, port: Int, datagram: Bool) async throws -> [SocketAddress] {
        try await NIOThreadPool.singleton.runIfActive {
            try Self.getaddrinfoBlocking(host: host, port: port, datagram: datagram)
        }
    }

    static func getaddrinfoBlocking(host: String, port: Int, datagram: Bool) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(datagram ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = datagram ? SOCK_DGRAM : SOCK_STREAM
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0 else {
            let reason = String(cString: gai_strerror(status))
            throw SocketEngineError(.resolutionFailed, "cannot resolve '\(host)': \(reason)")
        }
        defer { freeaddrinfo(result) }
        var addresses: [SocketAddress] = []
        var cursor = result
        while let entry = cursor {
            if let raw = entry.pointee.ai_addr {
                switch entry.pointee.ai_family {
                case AF_INET:
                    let v4 = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in.self)
                    addresses.append(SocketAddress(v4, host: host))
                case AF_INET6:
                    let v6 = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in6.self)
                    addresses.append(SocketAddress(v6, host: host))
                default:
                    break
                }
            }
            cursor = entry.pointee.ai_next
        }
        var unique: [SocketAddress] = []
        for address in addresses where !unique.contains(address) { unique.append(address) }
        guard !unique.isEmpty else {
            throw SocketEngineError(.resolutionFailed, "cannot resolve '\(host)': no addresses")
        }
        return unique
    }
}

/// Answers chosen names from a fixed table and everything else from another resolver, like
/// curl's `--resolve host:port:addr`.
public struct StaticResolver: HostResolver {
    /// Lower-cased host name to address literals.
    public let table: [String: [String]]
    public let fallback: any HostResolver

    public init(table: [String: [String]], fallback: any HostResolver = SystemResolver()) {
        self.table = Dictionary(table.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: +)
        self.fallback = fallback
    }

    public func resolve(host: String, port: Int, datagram: Bool) async throws -> [SocketAddress] {
        guard let literals = table[host.lowercased()] else {
            return try await fallback.resolve(host: host, port: port, datagram: datagram)
        }
        return try literals.map { literal in
            do {
                return try SocketAddress(ipAddress: literal, port: port)
            } catch {
                throw SocketEngineError(.invalidConfiguration, "'\(literal)' for '\(host)' is not an IP address")
            }
        }
    }
}

extension SocketAddress {
    /// `127.0.0.1:80`, `[::1]:80`, or the socket path.
    public var displayString: String {
        switch self {
        case .v4:
            return "\(ipAddress ?? "?"):\(port ?? 0)"
        case .v6:
            return "[\(ipAddress ?? "?")]:\(port ?? 0)"
        case .unixDomainSocket:
            return pathname ?? "unix socket"
        }
    }

    /// `IPv4`, `IPv6` or `unix`.
    public var familyName: String {
        switch self {
        case .v4: return "IPv4"
        case .v6: return "IPv6"
        case .unixDomainSocket: return "unix"
        }
    }

    /// For IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`), the IPv4 bytes; otherwise the address bytes.
    var normalizedAddressBytes: [UInt8]? {
        switch self {
        case .v4(let address):
            return withUnsafeBytes(of: address.address.sin_addr.s_addr) { Array($0) }
        case .v6(let address):
            let bytes = withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return Array(bytes[12..<16])
            }
            return bytes
        case .unixDomainSocket:
            return nil
        }
    }
}
