import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SocketEngine

import Glibc

/// How a server presents itself (`listen tls://` and `wss://`).
public struct TLSServerOptions: Sendable {
    /// The server's certificate chain (PEM, `--cert`).
    public var certificateFile: String
    /// The private key of that certificate (PEM, `--key`).
    public var keyFile: String
    /// Require a client certificate signed by a CA in this file (PEM).
    public var clientCAFile: String?
    /// Where the secrets of each connection go (NSS key log format), or nil.
    public var keyLog: TLSKeyLogWriter?
    package var applicationProtocols: [String] = []

    /// A server presenting the chain in `certificateFile` with the key in `keyFile`, asking for
    /// no client certificate; the files are read when the ``TLSLayer`` is made.
    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}
