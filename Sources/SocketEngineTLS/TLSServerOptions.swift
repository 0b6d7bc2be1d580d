import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SocketEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a server presents itself (`listen tls://` and `wss://`).
public struct TLSServerOptions: Sendable {
    public var certificateFile: String
    public var keyFile: String
    /// Require a client certificate signed by a CA in this file (PEM).
    public var clientCAFile: String?
    package var applicationProtocols: [String] = []

    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}
