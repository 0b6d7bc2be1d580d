import NIOCore

import Glibc

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `::1/128`, or a bare address),
/// for `listen --allow` / `--deny`.
///
/// IPv4-mapped IPv6 peers (`::ffff:10.1.2.3`, what a dual-stack socket reports) match IPv4
/// ranges.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    let network: [UInt8]
    package let prefixLength: Int
    /// The range as it was written (`10.0.0.0/8`).
    public let description: String

    /// Parses `ADDRESS[/PREFIX]`.
    public init(parsing text: String) throws(SocketEngineError) {
        func fail(_ why: String) -> SocketEngineError {
            SocketEngineError(.invalidConfiguration, "invalid address range '\(text)': \(why)")
        }
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let addressText = String(parts[0])
        var bytes: [UInt8]
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, addressText, &v4) == 1 {
            bytes = withUnsafeBytes(of: v4) { Array($0) }
        } else if inet_pton(AF_INET6, addressText, &v6) == 1 {
            bytes = withUnsafeBytes(of: v6) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                bytes = Array(bytes[12...])
            }
        } else {
            throw fail("'\(addressText)' is not an IP address")
        }
        let maximum = bytes.count * 8
        var prefix = maximum
        if parts.count == 2 {
            guard let value = Int(parts[1]), parts[1].allSatisfy(\.isASCIIDigit), (0...maximum).contains(value) else {
                throw fail("prefix length must be 0-\(maximum)")
            }
            prefix = value
            if bytes.count == 4 && addressText.contains(":") { prefix = max(0, value - 96) }
        }
        self.network = Self.mask(bytes, prefix: prefix)
        self.prefixLength = prefix
        self.description = text
    }

    /// True when `address` lies inside this range.
    public func contains(_ address: SocketAddress) -> Bool {
        guard let bytes = address.normalizedAddressBytes, bytes.count == network.count else { return false }
        return Self.mask(bytes, prefix: prefixLength) == network
    }

    private static func mask(_ bytes: [UInt8], prefix: Int) -> [UInt8] {
        var result = bytes
        for index in result.indices {
            let bitsHere = min(8, max(0, prefix - index * 8))
            result[index] &= bitsHere == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bitsHere))
        }
        return result
    }
}
