import CEpoll
import Glibc
import NIOCore

/// An epoll instance and a wake-up eventfd: how one thread waits on many sockets with plain
/// system calls (`--io threads` load connections).
///
/// Sockets are registered level-triggered for reading, and for writing while they have bytes
/// waiting (``watch(_:token:writable:)``); each carries a token the waiter chose. Other threads
/// may only call ``signal()``: the waiter then sees ``wakeToken``. The descriptors are closed
/// with the set (deinit), so a late ``signal()`` never writes to a descriptor number reused.
package final class EpollSet: @unchecked Sendable {
    /// The token ``wait(milliseconds:_:)`` reports for a ``signal()``.
    package static let wakeToken = UInt64.max

    /// Events that call for a read: data, the peer's close, an error.
    package static let readable: UInt32 = EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue

    /// The event of a socket that takes more bytes (or whose connect has ended).
    package static let writable: UInt32 = EPOLLOUT.rawValue

    private let epoll: Int32
    private let wake: Int32
    /// Written by the waiting thread only.
    private var events: [epoll_event]

    /// Fails with the errno of `epoll_create1` or `eventfd`.
    package init(capacity: Int = 128) throws {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw IOError(errnoCode: errno, reason: "epoll_create1") }
        let wake = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wake >= 0 else {
            let failure = errno
            Syscall.close(epoll)
            throw IOError(errnoCode: failure, reason: "eventfd")
        }
        self.epoll = epoll
        self.wake = wake
        events = [epoll_event](repeating: epoll_event(), count: max(1, capacity))
        do {
            try control(EPOLL_CTL_ADD, wake, token: Self.wakeToken, writable: false)
        } catch {
            Syscall.close(epoll)
            Syscall.close(wake)
            throw error
        }
    }

    deinit {
        Syscall.close(epoll)
        Syscall.close(wake)
    }

    /// Starts watching `descriptor` for reading (and writing when `writable`).
    package func add(_ descriptor: Int32, token: UInt64, writable: Bool = false) throws {
        try control(EPOLL_CTL_ADD, descriptor, token: token, writable: writable)
    }

    /// Changes whether `descriptor` is watched for writing too.
    package func watch(_ descriptor: Int32, token: UInt64, writable: Bool) throws {
        try control(EPOLL_CTL_MOD, descriptor, token: token, writable: writable)
    }

    /// Stops watching `descriptor` (closing it does too).
    package func remove(_ descriptor: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &event)
    }

    /// Wakes the waiter (from any thread).
    package func signal() {
        var one: UInt64 = 1
        _ = Syscall.write(wake, &one, MemoryLayout<UInt64>.size)
    }

    /// Waits up to `milliseconds` (0: does not wait) and calls `body` with each ready
    /// descriptor's token and events; a ``signal()`` is reported once as ``wakeToken`` (and
    /// consumed). Returns how many were ready.
    @discardableResult
    package func wait(milliseconds: Int32, _ body: (_ token: UInt64, _ events: UInt32) -> Void) -> Int {
        let count = events.withUnsafeMutableBufferPointer { Syscall.epollWait(epoll, $0.baseAddress, $0.count, milliseconds) }
        guard count > 0 else { return 0 }
        for index in 0..<Int(count) {
            let event = events[index]
            if event.data.u64 == Self.wakeToken {
                var drained: UInt64 = 0
                _ = Syscall.read(wake, &drained, MemoryLayout<UInt64>.size)
            }
            body(event.data.u64, event.events)
        }
        return Int(count)
    }

    private func control(_ operation: Int32, _ descriptor: Int32, token: UInt64, writable: Bool) throws {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0) | EPOLLRDHUP.rawValue
        event.data.u64 = token
        guard epoll_ctl(epoll, operation, descriptor, &event) == 0 else { throw IOError(errnoCode: errno, reason: "epoll_ctl") }
    }
}
