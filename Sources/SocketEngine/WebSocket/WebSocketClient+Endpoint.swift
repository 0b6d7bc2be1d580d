import NIOCore
import NIOHTTP1
import NIOWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Endpoint {
    /// True for an IPv4 or IPv6 address literal (no name to check a certificate against).
    package static func isIPLiteral(_ host: String) -> Bool {
        if isIPv6Literal(Substring(host)) { return true }
        var storage = in_addr()
        return inet_pton(AF_INET, host, &storage) == 1
    }
}

extension String {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
