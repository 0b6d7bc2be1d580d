import NIOCore

import Glibc

/// A ``TunnelClient`` on a thread: the tunnel handshake as one more step of
/// ``BlockingConnection/open(_:address:source:options:)``, run first, before TLS and the
/// WebSocket upgrade, with plain system calls on the connected socket and within the connect
/// timeout's deadline.
package enum BlockingTunnel {
    /// Runs `client`'s handshake on `socket` until `deadline` (monotonic ns, as
    /// ``BlockingSocket/now()``): the tunnel's report and the bytes that came behind the
    /// proxy's last message. Throws the refusal, `.proxyProtocol`, or `.connectTimeout`.
    package static func open(_ client: TunnelClient, on socket: BlockingSocket, until deadline: Int64) throws -> (TunnelReport, ByteBuffer) {
        var client = client
        let started = BlockingSocket.now()
        let timedOut = {
            SocketEngineError(.connectTimeout, "\(client.proxy.kind.protocolName) proxy \(client.label) did not open the tunnel to \(client.target) in time")
        }
        var outgoing = client.start()
        var received = ByteBuffer()
        while true {
            try send(&outgoing, on: socket, until: deadline, timedOut: timedOut)
            let got: BlockingSocket.Received
            do {
                got = try socket.receive(into: &received, spinUntil: 0, waitUntil: deadline)
            } catch {
                throw SocketEngineError.wrapping(error, context: "\(client.proxy.kind.protocolName) proxy \(client.label)")
            }
            switch got {
            case .nothing: throw timedOut()
            case .end: throw client.closedEarly(buffered: received.readableBytes)
            case .bytes: break
            }
            steps: while true {
                switch try client.receive(&received) {
                case .send(let bytes):
                    outgoing = bytes
                    try send(&outgoing, on: socket, until: deadline, timedOut: timedOut)
                case .wait:
                    break steps
                case .open:
                    let report = TunnelReport(
                        proxy: client.proxy, proxyAddress: client.label, target: client.target.description,
                        duration: .nanoseconds(BlockingSocket.now() - started))
                    return (report, received)
                }
            }
        }
    }

    private static func send(_ buffer: inout ByteBuffer, on socket: BlockingSocket, until deadline: Int64, timedOut: () -> SocketEngineError) throws {
        while buffer.readableBytes > 0 {
            if try socket.sendAvailable(&buffer) == 0 {
                guard try socket.wait(for: Int16(POLLOUT), until: deadline) else { throw timedOut() }
            }
        }
    }
}
