import NIOCore

/// The connection side of an exec'd child, as ``ExecBridge`` sees it: what arrives (already
/// written as `connect` and `listen` print it), the way back, and the connection's end.
package struct ExecPeer: Sendable {
    /// The next piece for the child's standard input; nil once the peer has finished sending.
    let next: @Sendable () async throws -> ByteBuffer?
    /// Sends one message (or stream chunk) to the peer.
    let send: @Sendable (ByteBuffer) async throws -> Void
    /// Ends our sending in order (FIN; nothing on UDP).
    let finish: @Sendable () async throws -> Void
    /// Returns once the connection is gone (closed, reset, stopped), or when cancelled.
    let gone: @Sendable () async -> Void
    /// Closes the connection (both directions).
    let close: @Sendable () async -> Void
    /// The transport, for how the child's output is cut into messages.
    let transport: Endpoint.Transport
    /// The loop the child's pipes are served on.
    let loop: any EventLoop
    /// The loop whose clock times the grace periods before SIGTERM and SIGKILL: the
    /// connection's own in use, a test's virtual clock in tests.
    var timers: any EventLoop

    /// A stream or connected-UDP connection: what arrives as `readForPrinting` gives it.
    package static func connection(_ connection: Connection, framing: Framing, maximumFrameSize: Int) -> ExecPeer {
        ExecPeer(
            next: { try await connection.readForPrinting(framing, maxFrameSize: maximumFrameSize) },
            send: { try await connection.send($0) },
            finish: { try await connection.closeWrite() },
            gone: { await connection.waitForClose() },
            close: { await connection.close() },
            transport: connection.transport,
            loop: connection.channel.eventLoop,
            timers: connection.channel.eventLoop
        )
    }

    /// One UDP client of a listener: each datagram as `listen` prints it (a newline after it
    /// when a framing other than raw is given); gone when the flow is closed. `sent` is called
    /// after each datagram sent back (for the listener's count).
    static func flow(_ flow: DatagramFlow, framing: Framing, loop: any EventLoop, sent: @escaping @Sendable () -> Void) -> ExecPeer {
        ExecPeer(
            next: {
                guard var datagram = try await flow.receive(.available) else { return nil }
                if framing != .raw { datagram.writeInteger(UInt8(0x0A)) }
                return datagram
            },
            send: {
                try await flow.send($0)
                sent()
            },
            finish: {},
            // A flow has no end of its own but its closing (the bridge's, or the listener's).
            gone: { await flow.waitForClose() },
            close: { await flow.close() },
            transport: .udp,
            loop: loop,
            timers: loop
        )
    }
}
