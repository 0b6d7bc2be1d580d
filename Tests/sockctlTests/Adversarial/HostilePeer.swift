import Foundation
import TestSupport

import Glibc

/// A client that misbehaves on purpose, on a plain socket to 127.0.0.1 or a Unix socket: it sends
/// what the test spells out and reads only when told to. Use it on a thread of its own (``onOwnThread``).
final class HostilePeer {
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        descriptor = try blockingStream(toLoopbackPort: port)
    }

    /// Connects to the Unix stream socket at `unixPath`.
    init(unixPath: String) throws {
        descriptor = try blockingStream(toUnixPath: unixPath)
    }

    deinit { Glibc.close(descriptor) }

    /// Sends all of `bytes`, blocking while the socket is full; false once the peer has closed or
    /// reset the connection (what a server does to a client it refuses to serve).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Sends `chunk` over and over without ever reading, until `limit` bytes went out, the peer
    /// ended the connection, or the socket has taken nothing for `patience` (the peer stopped
    /// reading): returns how many bytes the kernel took.
    ///
    /// The patience only decides when to give up offering more; a test asserts on the count
    /// (a server that held back is one that never took `limit`), never on the time.
    func sendWithoutReading(_ chunk: [UInt8], limit: Int, patience: Duration = .seconds(3)) -> Int {
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(descriptor, F_SETFL, flags) }
        var total = 0
        let milliseconds = Int32(patience.components.seconds * 1000)
        while total < limit {
            let count = min(chunk.count, limit - total)
            let written = chunk.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                total += written
                continue
            }
            guard written < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { return total }
            var poll = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let ready = Glibc.poll(&poll, 1, milliseconds)
            if ready == 0 { return total }
            if ready > 0 && poll.revents & Int16(POLLERR | POLLHUP) != 0 { return total }
        }
        return total
    }

    /// Reads up to and including `terminator` (one byte at a time: nothing after it is taken);
    /// nil if the connection ends first.
    func read(through terminator: [UInt8]) -> [UInt8]? {
        var kept: [UInt8] = []
        var byte: UInt8 = 0
        while !kept.ends(with: terminator) {
            let count = Glibc.recv(descriptor, &byte, 1, 0)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return nil }
            kept.append(byte)
        }
        return kept
    }

    /// Reads until the peer ends the connection (or resets it), keeping at most `limit` bytes.
    func readToEnd(limit: Int = 1 << 20) -> [UInt8] {
        var kept: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return kept }
            if kept.count < limit { kept += buffer[0..<min(count, limit - kept.count)] }
        }
    }
}

extension Child {
    /// The most memory this process has had resident (`VmHWM` in /proc), in bytes.
    var peakResidentBytes: Int { Self.statusField("VmHWM", of: pid) }

    /// The memory this process has resident now (`VmRSS` in /proc), in bytes.
    var residentBytes: Int { Self.statusField("VmRSS", of: pid) }

    private static func statusField(_ name: String, of pid: Int32) -> Int {
        for line in readProcFile("/proc/\(pid)/status").split(separator: "\n") where line.hasPrefix("\(name):") {
            let kibibytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
            return kibibytes * 1024
        }
        return 0
    }
}
