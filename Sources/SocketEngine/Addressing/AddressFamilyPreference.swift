import NIOCore
import NIOPosix

import Glibc

/// Which address families a connection may use (`-4`, `-6`).
public enum AddressFamilyPreference: Sendable, Hashable {
    case any
    case ipv4Only
    case ipv6Only

    package func allows(_ address: SocketAddress) -> Bool {
        switch (self, address) {
        case (.any, _), (.ipv4Only, .v4), (.ipv6Only, .v6): return true
        default: return false
        }
    }

    /// `any`, `IPv4` or `IPv6`, for messages such as "has no IPv6 address".
    public var name: String {
        switch self {
        case .any: return "any"
        case .ipv4Only: return "IPv4"
        case .ipv6Only: return "IPv6"
        }
    }
}
