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
}

extension BlockingSocket: BlockingStream {
    package func waitWritable(until deadline: Int64) throws -> Bool {
        try wait(for: Int16(POLLOUT), until: deadline)
    }
}
