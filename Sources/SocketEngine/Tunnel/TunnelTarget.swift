import NIOCore

import Glibc

/// Where a tunnel leads: the destination a client asks a proxy to connect to, as the SOCKS and
/// HTTP CONNECT requests carry it — an IPv4 or IPv6 address, or a name the proxy resolves.
///
/// The same value is what a proxy server reads out of a request, so both sides share it.
package struct TunnelTarget: Sendable, Hashable, CustomStringConvertible {
    /// The destination's host as the request carries it.
    package enum Host: Sendable, Hashable {
        /// Four bytes (SOCKS5 ATYP 01, SOCKS4).
        case ipv4([UInt8])
        /// Sixteen bytes (SOCKS5 ATYP 04).
        case ipv6([UInt8])
        /// A name the proxy resolves (SOCKS5 ATYP 03, SOCKS4a, HTTP CONNECT).
        case name(String)
    }

    package var host: Host
    package var port: UInt16

    package init(host: Host, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// The target for `host` (an address literal or a name) and `port`: a literal is sent as an
    /// address, anything else as a name.
    package init(host: String, port: Int) {
        self.host = Self.literal(host) ?? .name(host)
        self.port = UInt16(clamping: port)
    }

    /// The target for a resolved address (`socks5://`, which resolves locally).
    package init?(address: SocketAddress) {
        guard let ip = address.ipAddress, let literal = Self.literal(ip), let port = address.port else { return nil }
        self.host = literal
        self.port = UInt16(clamping: port)
    }

    /// `host` as an address when it is an IPv4 or IPv6 literal (brackets allowed), else nil.
    package static func literal(_ host: String) -> Host? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            return .ipv4(withUnsafeBytes(of: &v4) { Array($0) })
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            return .ipv6(withUnsafeBytes(of: &v6) { Array($0) })
        }
        return nil
    }

    /// The host as text: `192.0.2.1`, `2001:db8::1`, `example.com`.
    package var hostText: String {
        switch host {
        case .name(let name): return name
        case .ipv4(let bytes): return Self.text(bytes, family: AF_INET)
        case .ipv6(let bytes): return Self.text(bytes, family: AF_INET6)
        }
    }

    /// `host:port`, an IPv6 address in brackets (as HTTP CONNECT's request target).
    package var description: String {
        if case .ipv6 = host { return "[\(hostText)]:\(port)" }
        return "\(hostText):\(port)"
    }

    private static func text(_ bytes: [UInt8], family: Int32) -> String {
        var output = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let done = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &output, socklen_t(output.count)) != nil
        }
        guard done else { return bytes.map { String($0) }.joined(separator: ".") }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
