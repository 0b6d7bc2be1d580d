import Glibc
import NIOCore
import SocketEngine
import TestSupport
import Testing

/// ``EpollSet`` with ``BlockingSocket``'s connect begun without waiting, on loopback: what a
/// `--io threads` load thread relies on — a signal from another thread wakes the waiter, a
/// socket's readiness comes with its own token, a connect's end is an event whose outcome
/// ``BlockingSocket/finishConnect()`` tells, and a read without waiting says bytes, nothing
/// or the end.
@Suite(.hangGuard)
struct EpollSetTests {
    /// A listening loopback TCP socket on a port of the kernel's choice.
    final class Listening {
        let descriptor: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            #expect(bound == 0 && listen(fd, 8) == 0)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            descriptor = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        func accept() -> Int32 { Glibc.accept(descriptor, nil, nil) }

        deinit { Glibc.close(descriptor) }
    }

    /// Waits (in steps of at most a second, as long as it takes) until `token` is reported;
    /// returns its events.
    static func waitFor(_ token: UInt64, on set: EpollSet) -> UInt32 {
        var seen: UInt32?
        while seen == nil {
            set.wait(milliseconds: 1000) { reported, events in
                if reported == token { seen = events }
            }
        }
        return seen ?? 0
    }

    @Test func aSignalFromAnotherThreadWakesTheWaiter() async throws {
        let set = try EpollSet()
        let waiter = Task.detached { Self.waitFor(EpollSet.wakeToken, on: set) }
        set.signal()
        let events = await waiter.value
        #expect(events & EpollSet.readable != 0)
        // The signal was consumed: a wait that does not block reports nothing.
        var reported = 0
        set.wait(milliseconds: 0) { _, _ in reported += 1 }
        #expect(reported == 0)
    }

    @Test func aConnectEndsAsAnEventAndItsSocketReadsWithoutWaiting() throws {
        let listening = try Listening()
        let set = try EpollSet()
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: listening.port)
        let (socket, connected) = try BlockingSocket.startConnect(to: address, source: nil, interface: nil)
        defer { socket.close() }
        if !connected {
            try set.add(socket.descriptor, token: 7, writable: true)
            #expect(Self.waitFor(7, on: set) & EpollSet.writable != 0)
            try socket.finishConnect()
            try set.watch(socket.descriptor, token: 7, writable: false)
        } else {
            try set.add(socket.descriptor, token: 7)
        }
        let server = listening.accept()
        #expect(server >= 0)
        var buffer = ByteBuffer()
        #expect(try socket.receiveAvailable(into: &buffer) == .nothing)
        #expect(Glibc.write(server, "hello", 5) == 5)
        #expect(Self.waitFor(7, on: set) & EpollSet.readable != 0)
        #expect(try socket.receiveAvailable(into: &buffer) == .bytes(5))
        #expect(String(buffer: buffer) == "hello")
        Glibc.close(server)
        #expect(Self.waitFor(7, on: set) & EpollSet.readable != 0)
        #expect(try socket.receiveAvailable(into: &buffer) == .end)
    }

    @Test func aRefusedConnectIsTheEventsOutcome() throws {
        let closed = try ClosedPort()
        let set = try EpollSet()
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: closed.port)
        do {
            let (socket, connected) = try BlockingSocket.startConnect(to: address, source: nil, interface: nil)
            defer { socket.close() }
            #expect(!connected)
            try set.add(socket.descriptor, token: 3, writable: true)
            _ = Self.waitFor(3, on: set)
            #expect { try socket.finishConnect() } throws: { ($0 as? IOError)?.errnoCode == ECONNREFUSED }
        } catch let error as IOError {
            // Loopback may refuse at once.
            #expect(error.errnoCode == ECONNREFUSED)
        }
        withExtendedLifetime(closed) {}
    }
}
