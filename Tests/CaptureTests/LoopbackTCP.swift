import TestSupport
import Dispatch
import Foundation

import Glibc

/// A listening TCP socket on 127.0.0.1 with a kernel-chosen port, closed on deinit.
final class LoopbackListener {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketFailure(call: "socket") }
        var address = LoopbackListener.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw SocketFailure(call: "bind/listen")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            close(fd)
            throw SocketFailure(call: "getsockname")
        }
        descriptor = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    /// Connects to the listener (the kernel completes the handshake from the backlog) and closes.
    func connectOnce() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketFailure(call: "socket") }
        defer { close(fd) }
        var address = LoopbackListener.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw SocketFailure(call: "connect") }
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }
}

struct SocketFailure: Error, CustomStringConvertible {
    let call: String
    let code = errno
    var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// Fields of an Ethernet + IPv4 + TCP frame, nil when the frame is not one (bounds-checked).
struct TCPFrame: Equatable {
    var destinationPort: UInt16
    var flags: UInt8

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 34, bytes[12] == 0x08, bytes[13] == 0x00, bytes[23] == 6 else { return nil }
        let ipHeaderLength = Int(bytes[14] & 0x0f) * 4
        let tcp = 14 + ipHeaderLength
        guard ipHeaderLength >= 20, bytes.count >= tcp + 14 else { return nil }
        destinationPort = UInt16(bytes[tcp + 2]) << 8 | UInt16(bytes[tcp + 3])
        flags = bytes[tcp + 13]
    }

    var isSYN: Bool { flags & 0x12 == 0x02 }
}

/// A UDP socket bound to 127.0.0.1 with a kernel-chosen port, closed on deinit.
final class UDPSocket: @unchecked Sendable {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw SocketFailure(call: "socket") }
        var address = LoopbackListener.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            close(fd)
            throw SocketFailure(call: "bind")
        }
        descriptor = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    /// Sends `bytes` to its own port (a datagram that nobody answers with ICMP).
    func sendToItself(_ bytes: [UInt8]) throws {
        var address = LoopbackListener.loopback(port: port)
        let sent = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == bytes.count else { throw SocketFailure(call: "sendto") }
    }
}
