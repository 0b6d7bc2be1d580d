import NIOCore

import Glibc

/// What a connection driven by one thread with plain system calls reads and writes through:
/// its ``BlockingSocket``, or TLS over it (``BlockingChannel``). The calls are the socket's own.
package protocol BlockingStream {
    /// Takes what it can of `buffer` without waiting; returns how many bytes it took.
    @discardableResult
    func sendAvailable(_ buffer: inout ByteBuffer) throws -> Int
    /// Appends what has come; polls until `spinUntil`, sleeps until `waitUntil`; with
    /// `alsoWritable`, returns `.nothing` as soon as more can be sent.
    func receive(into buffer: inout ByteBuffer, spinUntil: Int64, waitUntil: Int64, alsoWritable: Bool) throws -> BlockingSocket.Received
    /// Waits until more can be sent, or `deadline`; false on timeout.
    func waitWritable(until deadline: Int64) throws -> Bool
    func close()
    /// The socket underneath, for a caller that waits on many streams at once (epoll).
    var descriptor: Int32 { get }
    /// One read without waiting: appends what has come (`.bytes`), `.end` once the peer has
    /// closed, `.nothing` when there is nothing to hand on yet (a TLS record still partial).
    func receiveAvailable(into buffer: inout ByteBuffer) throws -> BlockingSocket.Received
    /// Bytes a layer below the caller (TLS) still holds for the socket: the caller waits for
    /// the socket to be writable and calls ``flushPending()``.
    var hasPendingOutput: Bool { get }
    /// Hands the socket what it can take of ``hasPendingOutput``'s bytes, without waiting.
    func flushPending() throws
}

extension BlockingSocket: BlockingStream {
    package func waitWritable(until deadline: Int64) throws -> Bool {
        try wait(for: Int16(POLLOUT), until: deadline)
    }

    package func receiveAvailable(into buffer: inout ByteBuffer) throws -> Received {
        try readAvailable(into: &buffer) ?? .nothing
    }

    package var hasPendingOutput: Bool { false }

    package func flushPending() throws {}
}
