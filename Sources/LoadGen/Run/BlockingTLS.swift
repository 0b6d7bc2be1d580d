import NIOCore
import NIOEmbedded
import SocketEngine
import Synchronization

/// TLS over a ``BlockingSocket`` for `wss://` on `--io threads`: the engine's own TLS layer
/// (``SecureTransport``, the same options, verification and report as on the event loops) runs
/// in an `EmbeddedChannel`, and this passes its ciphertext to and from the socket. No event
/// loop and no other thread are involved: the connection's thread drives it all.
final class BlockingTLS: BlockingStream {
    private let socket: BlockingSocket
    private let channel: EmbeddedChannel
    /// Ciphertext the socket has not taken yet.
    private var pending = ByteBuffer()
    /// Ciphertext read from the socket, and plaintext TLS has given back but not yet handed on.
    private var cipher = ByteBuffer()
    private var plain = ByteBuffer()

    private init(socket: BlockingSocket, channel: EmbeddedChannel) {
        self.socket = socket
        self.channel = channel
    }

    /// Runs the TLS handshake with the server at `address` (the endpoint's `host`, as written)
    /// before `deadline` (monotonic ns).
    static func connect(
        _ socket: BlockingSocket, address: SocketAddress, host: String, secure: any SecureTransport, deadline: Int64
    ) throws -> (BlockingTLS, SecurityReport) {
        let channel = EmbeddedChannel()
        let tls = BlockingTLS(socket: socket, channel: channel)
        // Completed on this thread, by the embedded loop, while the bytes below are passed on.
        let outcome = Mutex<Result<SecurityReport, any Error>?>(nil)
        let report = try secure.addClientLayer(to: channel, host: host)
        report.whenComplete { result in outcome.withLock { $0 = result } }
        try channel.connect(to: address).wait()
        while outcome.withLock({ $0 }) == nil {
            try tls.flushCipher(until: deadline)
            if outcome.withLock({ $0 }) != nil { break }
            switch try socket.receive(into: &tls.cipher, spinUntil: 0, waitUntil: deadline, alsoWritable: false) {
            case .bytes:
                do {
                    try tls.decrypt()
                } catch {
                    // The layer's own reason (the report's failure) says more than the raw error.
                    if case .failure(let reason) = outcome.withLock({ $0 }) { throw reason }
                    throw error
                }
            case .end:
                try? tls.decrypt()
                if outcome.withLock({ $0 }) == nil {
                    throw SocketEngineError(.tlsFailed, "TLS handshake with \(address.displayString) failed: the server closed the connection")
                }
            case .nothing:
                throw SocketEngineError(.connectTimeout, "TLS handshake with \(address.displayString) not done in time")
            }
        }
        try tls.flushCipher(until: deadline)
        switch outcome.withLock({ $0 }) {
        case .success(let security): return (tls, security)
        case .failure(let error): throw error
        case nil: throw SocketEngineError(.tlsFailed, "TLS handshake with \(address.displayString) failed")
        }
    }

    func sendAvailable(_ buffer: inout ByteBuffer) throws -> Int {
        let count = buffer.readableBytes
        guard count > 0 else { return 0 }
        channel.writeAndFlush(buffer, promise: nil)
        buffer.moveReaderIndex(forwardBy: count)
        try takeCipher()
        try socket.sendAvailable(&pending)
        return count
    }

    func receive(into buffer: inout ByteBuffer, spinUntil: Int64, waitUntil: Int64, alsoWritable: Bool) throws -> BlockingSocket.Received {
        while true {
            if plain.readableBytes > 0 {
                let count = plain.readableBytes
                buffer.writeBuffer(&plain)
                plain.clear()
                return .bytes(count)
            }
            if pending.readableBytes > 0 { try socket.sendAvailable(&pending) }
            switch try socket.receive(into: &cipher, spinUntil: spinUntil, waitUntil: waitUntil, alsoWritable: alsoWritable || pending.readableBytes > 0) {
            case .bytes:
                try decrypt()
                if plain.readableBytes > 0 { continue }
                if !channel.isActive { return .end }  // the server's close_notify
                if BlockingSocket.now() >= waitUntil { return .nothing }
            case .end:
                return .end
            case .nothing:
                return .nothing
            }
        }
    }

    func waitWritable(until deadline: Int64) throws -> Bool {
        try socket.waitWritable(until: deadline)
    }

    /// Closes the socket. (The TLS layer is dropped as it is: closing it in order would wait for
    /// the server's close_notify, which nothing here would read.)
    func close() {
        socket.close()
    }

    /// Hands the ciphertext read so far to TLS and keeps what it decrypts in ``plain``; what TLS
    /// answers (handshake messages, alerts) goes to ``pending``.
    private func decrypt() throws {
        let records = cipher
        cipher.clear()
        try channel.writeInbound(records)
        while var chunk = try channel.readInbound(as: ByteBuffer.self) { plain.writeBuffer(&chunk) }
        try takeCipher()
    }

    /// Moves what TLS has written (records, alerts, handshake messages) to ``pending``.
    private func takeCipher() throws {
        channel.embeddedEventLoop.run()
        while var chunk = try channel.readOutbound(as: ByteBuffer.self) { pending.writeBuffer(&chunk) }
    }

    /// Sends every pending byte, waiting for the socket until `deadline`.
    private func flushCipher(until deadline: Int64) throws {
        try takeCipher()
        while pending.readableBytes > 0 {
            try socket.sendAvailable(&pending)
            if pending.readableBytes > 0, try !socket.waitWritable(until: deadline) {
                throw SocketEngineError(.connectTimeout, "TLS handshake not done in time")
            }
        }
        pending.clear()
    }
}
