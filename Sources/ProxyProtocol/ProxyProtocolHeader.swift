import NIOCore

/// A PROXY protocol header (haproxy's proxy-protocol.txt): what a proxy writes before the first
/// byte of a connection it relays, so that the server behind it learns the client's address.
///
/// Version 1 is one text line, version 2 a binary block:
///
/// ```
/// v1: PROXY TCP4 192.0.2.7 198.51.100.1 40001 443\r\n          (at most 107 bytes; or PROXY UNKNOWN\r\n)
/// v2: 0D 0A 0D 0A 00 0D 0A 51 55 49 54 0A                      the signature
///     21                                                       version 2, command PROXY (20: LOCAL)
///     11                                                       family and protocol: TCP over IPv4
///     00 0C                                                    length of what follows
///     C0 00 02 07  C6 33 64 01  9C 41  01 BB                   source, destination, their ports
///     [TLVs]
/// ```
///
/// Pure bytes to values and back: the engine writes and reads headers on connections, the
/// capture views show the one a connection starts with. Errors are ``Failure``s, worded by the
/// callers.
public struct ProxyProtocolHeader: Sendable, Equatable {
    /// The two versions of the protocol.
    public enum Version: String, Sendable, CaseIterable {
        /// The text line.
        case v1
        /// The binary block.
        case v2
    }

    /// The client's address and the address it connected to, as the proxy saw them.
    public struct Addresses: Sendable, Equatable {
        /// The client's address.
        public var source: SocketAddress
        /// The address the client connected to.
        public var destination: SocketAddress

        /// The two addresses.
        public init(source: SocketAddress, destination: SocketAddress) {
            self.source = source
            self.destination = destination
        }
    }

    /// Which version the header is.
    public var version: Version
    /// The carried addresses; nil when the header carries none (v1 `UNKNOWN`, a v2 `LOCAL`
    /// command or an unspecified family): the connection's own addresses stand.
    public var addresses: Addresses?
    /// v2: whether the proxy said `LOCAL` (a connection of its own, a health check).
    public var isLocal: Bool
    /// v2: how many bytes of type-length-value fields followed the addresses (not read).
    public var extensionBytes: Int

    /// A header of `version` carrying `addresses`.
    public init(version: Version, addresses: Addresses?, isLocal: Bool = false, extensionBytes: Int = 0) {
        self.version = version
        self.addresses = addresses
        self.isLocal = isLocal
        self.extensionBytes = extensionBytes
    }

    /// Why bytes are not a PROXY protocol header (see ``description`` for the words).
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The connection's first bytes are neither `PROXY ` nor the v2 signature.
        case notAHeader
        /// v1: no CRLF within the longest line the protocol allows.
        case lineTooLong
        /// v1: a line that does not follow the grammar, and the reason.
        case badLine(String)
        /// v2: a version other than 2 in the version nibble.
        case badVersion(UInt8)
        /// v2: a command other than LOCAL or PROXY.
        case badCommand(UInt8)
        /// v2: an address family or protocol the protocol does not define.
        case badFamily(UInt8)
        /// v2: fewer address bytes than the family needs.
        case shortAddresses(family: String, have: Int, need: Int)

        /// One line, without a prefix: the callers say "malformed PROXY protocol header: …".
        public var description: String {
            switch self {
            case .notAHeader: "the connection does not begin with one"
            case .lineTooLong: "v1 line without CRLF within \(ProxyProtocolHeader.longestLine) bytes"
            case .badLine(let reason): "v1 line \(reason)"
            case .badVersion(let version): "v2 version \(version)"
            case .badCommand(let command): "v2 command \(command)"
            case .badFamily(let byte): "v2 family and protocol byte 0x\(String(byte, radix: 16, uppercase: true))"
            case .shortAddresses(let family, let have, let need): "v2 \(family) addresses in \(have) bytes (\(need) needed)"
            }
        }
    }

    /// The v2 signature, the first 12 bytes of a v2 header.
    public static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    /// The longest v1 line, CRLF included.
    public static let longestLine = 107
    /// The longest header of either version: a v2 block of 16 bytes and 65,535 more.
    public static let longestHeader = 16 + 65_535

    /// Whether `bytes`, a connection's first, begin with `PROXY ` or the whole v2 signature:
    /// enough to say a header starts there (what follows may still be malformed).
    public static func starts(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.starts(with: "PROXY ".utf8) || bytes.starts(with: signature)
    }
}

extension ProxyProtocolHeader: CustomStringConvertible {
    /// `v1 192.0.2.7:40001 > 198.51.100.1:443`, `v2 LOCAL`, `v1 UNKNOWN`.
    public var description: String {
        var text = version.rawValue
        if let addresses {
            text += " \(addresses.source.proxyProtocolText) > \(addresses.destination.proxyProtocolText)"
        } else {
            text += isLocal ? " LOCAL" : " UNKNOWN"
        }
        if extensionBytes > 0 { text += ", \(extensionBytes) bytes of TLVs" }
        return text
    }
}

extension SocketAddress {
    /// `192.0.2.7:40001`, `[2001:db8::1]:443`, `unix:/run/app.sock`.
    public var proxyProtocolText: String {
        switch self {
        case .v4: "\(ipAddress ?? "?"):\(port ?? 0)"
        case .v6: "[\(ipAddress ?? "?")]:\(port ?? 0)"
        case .unixDomainSocket: "unix:\(pathname ?? "")"
        }
    }
}
