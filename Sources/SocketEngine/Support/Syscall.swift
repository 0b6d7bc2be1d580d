import CEpoll
import Glibc

/// The system calls that SocketEngine and the modules above it make outside SwiftNIO and that
/// can wait or be interrupted (I/O, waits, connect, close), in one place (as NIOPosix keeps its
/// own in `System.swift`). Calls that neither wait nor see `EINTR` (`socket`, `eventfd`,
/// `epoll_ctl`, `shutdown`, `fstat`) are made where they are needed.
///
/// Each call is retried while a signal interrupts it (`EINTR`), so no caller loops on that; any
/// other failure returns as the system call returns it (-1), with `errno` as the call left it.
/// Three calls are not retried: `close` (on Linux the descriptor is released even when it
/// reports `EINTR`; closing again could close a descriptor another thread has just been given,
/// so `EINTR` counts as closed), `connect` (an interrupted connect goes on in the background:
/// `EINTR` reads as `EINPROGRESS`) and `poll` (an interrupted wait returns 0, nothing ready:
/// the caller waits again with what is left of its own deadline, not the whole timeout again).
///
/// The wrappers are inlinable: the blocking transport calls `recv` and `poll` per message.
/// Capture and PacketDecoding, which do not depend on this module, keep their few calls (libpcap
/// and a file reader) to themselves.
package enum Syscall {
    @inlinable
    package static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        retrying { Glibc.read(descriptor, buffer, count) }
    }

    @inlinable
    package static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        retrying { Glibc.write(descriptor, buffer, count) }
    }

    @inlinable
    package static func send(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
        retrying { Glibc.send(descriptor, buffer, count, flags) }
    }

    @inlinable
    package static func recv(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ flags: Int32) -> Int {
        retrying { Glibc.recv(descriptor, buffer, count, flags) }
    }

    /// `poll(2)`; an interrupted wait returns 0 (nothing ready).
    @inlinable
    package static func poll(_ entries: UnsafeMutablePointer<pollfd>, _ count: Int, _ milliseconds: Int32) -> Int32 {
        let result = Glibc.poll(entries, nfds_t(count), milliseconds)
        return result < 0 && errno == EINTR ? 0 : result
    }

    /// `open(2)` with a mode (for `O_CREAT`; ignored otherwise).
    @inlinable
    package static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        retrying { Glibc.open(path, flags, mode) }
    }

    /// Closes `descriptor`; `EINTR` counts as closed (see the type's notes). Returns 0 or the
    /// errno of a real failure (`EIO` from a file system that reports a late write error).
    @discardableResult @inlinable
    package static func close(_ descriptor: Int32) -> Int32 {
        if Glibc.close(descriptor) == 0 { return 0 }
        let code = errno
        return code == EINTR ? 0 : code
    }

    /// `connect(2)`; an interrupted connect goes on in the background, reported as `EINPROGRESS`.
    @inlinable
    package static func connect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        let result = Glibc.connect(descriptor, address, length)
        if result < 0 && errno == EINTR { errno = EINPROGRESS }
        return result
    }

    /// `epoll_wait(2)`; an interrupted wait returns 0 events (the loop waits again).
    @inlinable
    package static func epollWait(_ epoll: Int32, _ events: UnsafeMutablePointer<epoll_event>?, _ count: Int, _ milliseconds: Int32) -> Int32 {
        let result = epoll_wait(epoll, events, Int32(count), milliseconds)
        return result < 0 && errno == EINTR ? 0 : result
    }

    /// `splice(2)` of up to `length` bytes from `from` to `to` (one of them a pipe), no offsets.
    @inlinable
    package static func splice(_ from: Int32, _ to: Int32, _ length: Int, _ flags: UInt32) -> Int {
        retrying { sockctl_splice(from, to, length, flags) }
    }

    /// `setsockopt(2)` of one value.
    @inlinable
    package static func setOption<Value>(_ descriptor: Int32, _ level: Int32, _ name: Int32, _ value: Value) -> Int32 {
        withUnsafePointer(to: value) { Glibc.setsockopt(descriptor, level, name, $0, socklen_t(MemoryLayout<Value>.size)) }
    }

    /// Runs `call` again while it fails with `EINTR`.
    @inlinable
    package static func retrying<Result: FixedWidthInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
