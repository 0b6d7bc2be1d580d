import NIOCore
import NIOPosix
import Synchronization

import Glibc

/// The addresses a listener binds for an endpoint: loopback (127.0.0.1 and ::1) when no host
/// is given — never every interface by accident — or every address the host resolves to.
enum BindPlan {
    static func addresses(for endpoint: Endpoint, resolver: any HostResolver, datagram: Bool) async throws -> [SocketAddress] {
        if endpoint.host.isEmpty {
            return [
                try SocketAddress(ipAddress: "127.0.0.1", port: endpoint.port),
                try SocketAddress(ipAddress: "::1", port: endpoint.port),
            ]
        }
        return try await resolver.resolve(host: endpoint.host, port: endpoint.port, datagram: datagram)
    }

    /// Binds every address with `bind`; with port 0, the first bound port is reused for the
    /// rest. The first address must bind; later loopback aliases (::1 without IPv6) may fail.
    static func bindAll<Bound>(
        _ addresses: [SocketAddress],
        optionalAfterFirst: Bool,
        bind: (SocketAddress) async throws -> Bound,
        port: (Bound) -> Int?
    ) async throws -> [Bound] {
        var bound: [Bound] = []
        var chosenPort: Int?
        for (index, original) in addresses.enumerated() {
            var address = original
            if let chosenPort, address.port == 0 { address.port = chosenPort }
            do {
                let result = try await bind(address)
                bound.append(result)
                if chosenPort == nil { chosenPort = port(result) }
            } catch {
                if index > 0 && optionalAfterFirst { continue }
                throw SocketEngineError.wrapping(error, context: "bind \(address.displayString)")
            }
        }
        return bound
    }
}
