import NIOCore
import NIOPosix

import Glibc

/// Turns a host name into socket addresses.
public protocol HostResolver: Sendable {
    /// All addresses of `host`, in the order the system prefers them.
    ///
    /// - Throws: `.resolutionFailed` naming the host.
    func resolve(host: String, port: Int, datagram: Bool) async throws -> [SocketAddress]
}
