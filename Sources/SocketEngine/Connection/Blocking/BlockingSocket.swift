import Glibc
import NIOCore

/// A connected stream socket (TCP or Unix) driven by one thread with plain system calls: no
/// event loop between the caller and the kernel.
///
/// For the lowest round-trip time at a few connections: a thread that waits for a reply by
/// polling the socket for a few microseconds (``receive(into:spinUntil:waitUntil:)``) sees it
/// without the sleep and wake-up an event loop pays per message. The socket is non-blocking;
/// every wait is `poll(2)` with a deadline, so nothing blocks for longer than asked.
///
/// Errors are NIO `IOError`s carrying the errno (``SocketEngineError/wrapping(_:context:)``
/// classifies them as for event-loop connections), or a ``SocketEngineError`` for a timeout.
/// Not thread-safe: one thread owns it.
package final class BlockingSocket {
    package let descriptor: Int32
    private var closed = false

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Connects to `address` within `timeout`, bound first to `source` and `interface` when
    /// given; TCP sockets get TCP_NODELAY.
    package static func connect(to address: SocketAddress, source: SocketAddress? = nil, interface: String? = nil, timeout: Duration) throws -> BlockingSocket {
        let (socket, connected) = try startConnect(to: address, source: source, interface: interface)
        if !connected {
            guard try socket.wait(for: Int16(POLLOUT), until: Self.now() + timeout.nanosecondsClamped) else {
                throw connectTimedOut(address, after: timeout)
            }
            try socket.finishConnect()
        }
        return socket
    }

    /// Begins a connect to `address` without waiting, as ``connect(to:source:interface:timeout:)``
    /// does; `connected` false: it goes on, the socket becomes writable when it is done
    /// (then ``finishConnect()``).
    package static func startConnect(to address: SocketAddress, source: SocketAddress?, interface: String?) throws -> (socket: BlockingSocket, connected: Bool) {
        let family = Int32(address.protocol.rawValue)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        let socket = BlockingSocket(descriptor: fd)
        if family != AF_UNIX {
            let one: Int32 = 1
            _ = Syscall.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, one)
        }
        if let interface {
            guard Syscall.setOption(fd, SOL_SOCKET, SO_BINDTODEVICE, InterfaceName(interface).bytes) == 0 else {
                throw IOError(errnoCode: errno, reason: "bind to interface \(interface)")
            }
        }
        if let source {
            let result = source.withSockAddr { bind(fd, $0, socklen_t($1)) }
            guard result == 0 else { throw IOError(errnoCode: errno, reason: "bind") }
        }
        let result = address.withSockAddr { Syscall.connect(fd, $0, socklen_t($1)) }
        if result != 0 {
            guard errno == EINPROGRESS || errno == EAGAIN else { throw IOError(errnoCode: errno, reason: "connect") }
            return (socket, false)
        }
        return (socket, true)
    }

    /// A connect begun by ``startConnect(to:source:interface:)`` has ended (the socket became
    /// writable): throws its failure.
    package func finishConnect() throws {
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else { throw IOError(errnoCode: errno, reason: "connect") }
        if failure != 0 { throw IOError(errnoCode: failure, reason: "connect") }
    }

    /// The error of a connect to `address` not done within `timeout`.
    package static func connectTimedOut(_ address: SocketAddress, after timeout: Duration) -> SocketEngineError {
        SocketEngineError(.connectTimeout, "connect to \(address.displayString) timed out after \(timeout.formatted)")
    }

    package func close() {
        guard !closed else { return }
        closed = true
        Syscall.close(descriptor)
    }

    /// Writes what it can of `buffer` without waiting (its reader index moves past what went).
    /// Returns the number of bytes written (0: the socket's send buffer is full).
    @discardableResult
    package func sendAvailable(_ buffer: inout ByteBuffer) throws -> Int {
        guard buffer.readableBytes > 0 else { return 0 }
        let sent = buffer.withUnsafeReadableBytes { bytes in
            Syscall.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
        if sent < 0 {
            if isRetryable(errno: errno) { return 0 }
            throw IOError(errnoCode: errno, reason: "send")
        }
        buffer.moveReaderIndex(forwardBy: sent)
        return sent
    }

    /// What one ``receive(into:spinUntil:waitUntil:)`` got.
    package enum Received: Equatable {
        /// This many bytes were appended.
        case bytes(Int)
        /// The peer closed its side.
        case end
        /// Nothing came by the deadline.
        case nothing
    }

    /// Appends what the socket has to `buffer` (up to 64 KiB). Polls without sleeping until
    /// monotonic `spinUntil`, then sleeps in `poll(2)` until `waitUntil`; with `alsoWritable`,
    /// also returns (`.nothing`) as soon as the socket can take more bytes.
    package func receive(into buffer: inout ByteBuffer, spinUntil: Int64, waitUntil: Int64, alsoWritable: Bool = false) throws -> Received {
        // Without a spin, poll first: a reply rarely waits already, and poll-then-read is one
        // system call fewer than read-poll-read.
        var readFirst = spinUntil > 0
        while true {
            if readFirst, let got = try readAvailable(into: &buffer) { return got }
            readFirst = true
            let now = Self.now()
            if now < spinUntil { continue }
            if now >= waitUntil { return .nothing }
            let events = Int16(POLLIN) | (alsoWritable ? Int16(POLLOUT) : 0)
            let revents = try poll(events, until: waitUntil)
            if revents == 0 { return .nothing }
            if revents & Int16(POLLIN | POLLHUP | POLLERR) == 0 { return .nothing }  // writable only
        }
    }

    /// One non-blocking read; nil when nothing is there.
    func readAvailable(into buffer: inout ByteBuffer) throws -> Received? {
        let capacity = 65536
        var result = 0
        var failure: Int32 = 0
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: capacity) { bytes in
            result = Syscall.recv(descriptor, bytes.baseAddress, min(bytes.count, capacity), Int32(MSG_DONTWAIT))
            if result < 0 { failure = errno }
            return max(0, result)
        }
        if result > 0 { return .bytes(result) }
        if result == 0 { return .end }
        if isRetryable(errno: failure) { return nil }
        throw IOError(errnoCode: failure, reason: "read")
    }

    /// Waits until the socket is ready for `events` or the deadline passes; false on timeout.
    package func wait(for events: Int16, until deadline: Int64) throws -> Bool {
        try poll(events, until: deadline) != 0
    }

    private func poll(_ events: Int16, until deadline: Int64) throws -> Int16 {
        while true {
            let remaining = deadline - Self.now()
            if remaining <= 0 { return 0 }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            // Round up to the next millisecond: poll(2) never waits less than asked.
            let milliseconds = Int32(clamping: (remaining + 999_999) / 1_000_000)
            let result = Syscall.poll(&entry, 1, milliseconds)
            if result < 0 { throw IOError(errnoCode: errno, reason: "poll") }
            if result > 0 { return entry.revents }
        }
    }

    /// Monotonic nanoseconds (CLOCK_MONOTONIC, as NIO's deadlines).
    @inline(__always)
    package static func now() -> Int64 {
        Int64(truncatingIfNeeded: NIODeadline.now().uptimeNanoseconds)
    }
}
