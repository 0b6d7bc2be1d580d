import NIOCore

/// Reads the cipher suite the server chose from the ServerHello as it crosses the wire — the
/// one handshake message that is never encrypted — because NIOSSL does not report it.
///
/// ```
/// record:      16 | version (2) | length (2) | handshake …
/// handshake:   02 (ServerHello) | length (3) | version (2) | random (32)
///              | session id length (1) | session id | cipher suite (2) | …
/// ```
///
/// It sits first in the pipeline (nearest the socket): on a client it reads inbound bytes, on a
/// server the bytes the TLS handler writes out. It only looks; it copies at most
/// ``maximumBytes`` and then, found or not, removes itself.
final class ServerHelloObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Enough for the first records of any server's first flight.
    static let maximumBytes = 16 * 1024

    private let readsInbound: Bool
    private var seen = ByteBuffer()
    private var done = false
    /// The cipher suite's number once seen.
    private(set) var cipherSuite: UInt16?

    init(server: Bool) {
        readsInbound = !server
    }

    // The suite is read before the bytes are passed on (the TLS handler may finish the
    // handshake while handling them, and the watcher reads the suite then); the observer
    // removes itself only after passing them on.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if readsInbound && !done { look(at: unwrapInboundIn(data)) }
        context.fireChannelRead(data)
        removeIfDone(context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !readsInbound && !done { look(at: unwrapOutboundIn(data)) }
        context.write(data, promise: promise)
        removeIfDone(context)
    }

    private func look(at bytes: ByteBuffer) {
        var chunk = bytes
        seen.writeBuffer(&chunk)
        switch Self.parse(seen) {
        case .found(let suite):
            cipherSuite = suite
            done = true
        case .notServerHello:
            done = true
        case .needMore:
            if seen.readableBytes >= Self.maximumBytes { done = true }
        }
    }

    private var removed = false

    /// Leaves the pipeline on the next turn of the loop: removed in the middle of an event (the
    /// TLS handler answering the server's flight from inside this read), the answer is lost.
    private func removeIfDone(_ context: ChannelHandlerContext) {
        guard done, !removed else { return }
        removed = true
        seen = ByteBuffer()
        context.eventLoop.assumeIsolated().execute {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    enum Outcome: Equatable {
        case found(UInt16)
        case notServerHello
        case needMore
    }

    /// Looks for the ServerHello in the handshake records at the start of `bytes`.
    static func parse(_ bytes: ByteBuffer) -> Outcome {
        // Concatenate the handshake-record payloads (a ServerHello may span records).
        var handshake: [UInt8] = []
        var offset = bytes.readerIndex
        while let header = bytes.getBytes(at: offset, length: 5) {
            guard header[0] == 0x16 else { return handshake.isEmpty ? .notServerHello : parseHandshake(handshake) }
            let length = Int(header[3]) << 8 | Int(header[4])
            guard let payload = bytes.getBytes(at: offset + 5, length: length) else {
                // A partial record: use what is there.
                if let partial = bytes.getBytes(at: offset + 5, length: bytes.writerIndex - offset - 5) { handshake += partial }
                break
            }
            handshake += payload
            offset += 5 + length
            if case .found(let suite) = parseHandshake(handshake) { return .found(suite) }
        }
        return parseHandshake(handshake)
    }

    private static func parseHandshake(_ bytes: [UInt8]) -> Outcome {
        guard !bytes.isEmpty else { return .needMore }
        guard bytes[0] == 0x02 else { return .notServerHello }
        // type (1) length (3) version (2) random (32) session id length (1)
        guard bytes.count >= 39 else { return .needMore }
        let sessionLength = Int(bytes[38])
        let suiteAt = 39 + sessionLength
        guard bytes.count >= suiteAt + 2 else { return .needMore }
        return .found(UInt16(bytes[suiteAt]) << 8 | UInt16(bytes[suiteAt + 1]))
    }

    /// The IANA name of a cipher suite, or its number.
    static func name(of suite: UInt16) -> String {
        if let name = names[suite] { return name }
        let hex = String(suite, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    private static let names: [UInt16: String] = [
        0x1301: "TLS_AES_128_GCM_SHA256",
        0x1302: "TLS_AES_256_GCM_SHA384",
        0x1303: "TLS_CHACHA20_POLY1305_SHA256",
        0xC02B: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        0xC02C: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        0xC02F: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        0xC030: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        0xCCA8: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        0xCCA9: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        0xC009: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
        0xC00A: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
        0xC013: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
        0xC014: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
        0x009C: "TLS_RSA_WITH_AES_128_GCM_SHA256",
        0x009D: "TLS_RSA_WITH_AES_256_GCM_SHA384",
        0x002F: "TLS_RSA_WITH_AES_128_CBC_SHA",
        0x0035: "TLS_RSA_WITH_AES_256_CBC_SHA",
    ]
}
