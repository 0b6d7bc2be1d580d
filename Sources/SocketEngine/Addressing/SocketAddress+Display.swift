import NIOCore
import NIOPosix

import Glibc

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

    /// A Unix-domain socket without a name: what a client's end of a Unix socket usually is.
    package var isUnnamed: Bool {
        if case .unixDomainSocket = self { return (pathname ?? "").isEmpty }
        return false
    }

    /// The address as a log line names a peer: ``displayString``, or `an unnamed unix socket`
    /// (never an empty string).
    package var peerDescription: String {
        isUnnamed ? "an unnamed unix socket" : displayString
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

extension SocketAddress {
    /// True for 127.0.0.0/8, ::1 and IPv4-mapped 127.x: an address only this host reaches.
    public var isLoopback: Bool {
        guard let text = ipAddress else { return false }
        return text.hasPrefix("127.") || text == "::1" || text.hasPrefix("::ffff:127.")
    }
}
