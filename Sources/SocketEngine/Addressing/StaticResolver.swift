import NIOCore
import NIOPosix

import Glibc

/// Answers chosen names from a fixed table and everything else from another resolver, like
/// curl's `--resolve host:port:addr`.
public struct StaticResolver: HostResolver {
    /// Lower-cased host name to address literals.
    public let table: [String: [String]]
    package let fallback: any HostResolver

    /// A resolver that answers the names in `table` (matched ignoring case) and asks `fallback`
    /// about every other name; the system resolver by default.
    public init(table: [String: [String]], fallback: any HostResolver = SystemResolver()) {
        self.table = Dictionary(table.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: +)
        self.fallback = fallback
    }

    /// The table's addresses for `host`, in table order and with `port`; other names go to the fallback.
    /// Throws `.invalidConfiguration` when a table entry is not an IP address.
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
