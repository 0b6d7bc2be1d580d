import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SocketEngine

import Glibc

/// How a client checks the server (`connect`, `send`, `loadtest` with `tls://` and `wss://`).
///
/// Secure by default: the chain is verified against the system trust store (plus `caFile`),
/// the server's name (``serverName``, else the target host) against the certificate, and TLS
/// 1.2 is the minimum. `verify = false` (`--insecure`) skips chain and name checks — pins are
/// still checked, as with curl.
public struct TLSClientOptions: Sendable {
    /// Verify the server's chain and host name (default true); false is `--insecure`, and pins
    /// are still checked.
    public var verify = true
    /// More trusted CAs (PEM), in addition to the system store.
    public var caFile: String?
    /// The name sent in SNI and checked against the certificate instead of the target host —
    /// the only name checked: the address connected to does not count
    /// (see ``TLSLayer/addClientLayer(to:host:)``).
    public var serverName: String?
    /// SHA-256 digests of acceptable SubjectPublicKeyInfos (`--pin sha256//BASE64`), checked on
    /// top of the normal verification.
    public var pins: [[UInt8]] = []
    /// A client certificate chain (PEM) and its key, for servers that ask for one.
    public var certificateFile: String?
    /// The private key (PEM) of ``certificateFile``; each needs the other.
    public var keyFile: String?
    /// Where the secrets of each connection go (NSS key log format), or nil.
    public var keyLog: TLSKeyLogWriter?
    /// ALPN protocols to offer (`http/1.1` for WebSocket).
    package var applicationProtocols: [String] = []

    /// Secure defaults: full verification, the system trust store, no pins, no client certificate.
    public init() {}

    /// Parses `sha256//BASE64[;sha256//BASE64…]` into digests.
    public static func pins(parsing text: String) throws(SocketEngineError) -> [[UInt8]] {
        var digests: [[UInt8]] = []
        let form = "expected sha256//BASE64 of the public key's SHA-256, e.g. sha256//x3HECQHGxOLnXvB2hfgUZMKf9VOTu3URwcxdG+Ou9pk="
        for item in text.split(separator: ";", omittingEmptySubsequences: true) {
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("sha256//") else {
                throw SocketEngineError(.invalidConfiguration, "invalid pin '\(item)' (\(form))")
            }
            guard let digest = PublicKeyPin.digest(base64: String(trimmed.dropFirst("sha256//".count))) else {
                throw SocketEngineError(.invalidConfiguration, "invalid pin '\(item)': not the base64 of a 32-byte SHA-256 digest (\(form))")
            }
            digests.append(digest)
        }
        guard !digests.isEmpty else { throw SocketEngineError(.invalidConfiguration, "empty pin (\(form))") }
        return digests
    }
}
