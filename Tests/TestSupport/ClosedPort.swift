import Glibc

/// A TCP port on 127.0.0.1 that refuses connections for as long as this value lives: bound,
/// never listening. (A port freed by closing a listener can be taken by any other socket a
/// concurrent test opens; this one cannot.)
public final class ClosedPort: @unchecked Sendable {
    public let port: Int
    private let descriptor: Int32

    /// Keep the value alive until the test is done: `withExtendedLifetime(closed) {}` at the end.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ClosedPortError() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw ClosedPortError()
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

public struct ClosedPortError: Error {}
