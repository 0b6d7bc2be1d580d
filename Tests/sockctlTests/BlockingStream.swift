import TestSupport

import Glibc

/// A blocking stream socket connected to 127.0.0.1:`port`, for the hand-driven clients
/// (``RawWebSocket``, ``HostilePeer``); the caller closes it.
func blockingStream(toLoopbackPort port: Int) throws -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return try blockingStream(family: AF_INET, to: address, naming: "127.0.0.1:\(port)")
}

/// A blocking stream socket connected to the Unix socket at `path`; the caller closes it.
func blockingStream(toUnixPath path: String) throws -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw HarnessError("unix socket path too long: \(path)") }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
    return try blockingStream(family: AF_UNIX, to: address, naming: path)
}

private func blockingStream<Address>(family: Int32, to address: Address, naming name: String) throws -> Int32 {
    let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw HarnessError("socket for \(name) failed: errno \(errno)") }
    var address = address
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<Address>.size)) }
    }
    guard connected == 0 else {
        let failure = errno
        Glibc.close(descriptor)
        throw HarnessError("connect to \(name) failed: errno \(failure)")
    }
    return descriptor
}
