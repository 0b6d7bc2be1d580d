import NIOCore
import NIOPosix

import Glibc

/// Resolves with `getaddrinfo(3)` on NIO's blocking-I/O thread pool, never on an event loop.
///
/// Address literals take `getaddrinfo`'s numeric fast path. `AI_ADDRCONFIG` is not used, so a
/// network namespace that has only `lo` still resolves `localhost` to `::1`.
public struct SystemResolver: HostResolver {
    /// A resolver that asks the system (`/etc/hosts`, DNS, …) through `getaddrinfo(3)`.
    public init() {}

    /// Every address `getaddrinfo` returns for `host`, in its order, without duplicates.
    /// Throws `.resolutionFailed` when it fails or finds no IPv4 or IPv6 address.
    public func resolve(host: String, port: Int, datagram: Bool) async throws -> [SocketAddress] {
        try await NIOThreadPool.singleton.runIfActive {
            try Self.getaddrinfoBlocking(host: host, port: port, datagram: datagram)
        }
    }

    static func getaddrinfoBlocking(host: String, port: Int, datagram: Bool) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(datagram ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue)
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
