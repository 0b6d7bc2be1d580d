import Crypto
import Foundation
import NIOCore
import NIOPosix

/// A loopback server that reads one HTTP request and answers with whatever `answer` makes of
/// its `Sec-WebSocket-Key` — in one write, so that what follows the head arrives with it — or
/// stays silent (nil); `closing`: then closes. For the client's checks of a 101 that NIO's own
/// server would never send.
struct ScriptedUpgradeServer {
    let channel: any Channel
    var port: Int { channel.localAddress?.port ?? 0 }

    init(closing: Bool = false, answer: @escaping @Sendable (String) -> ByteBuffer?) async throws {
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(ScriptedUpgradeHandler(closing: closing, answer: answer))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    func stop() async {
        try? await channel.close()
    }

    /// `Sec-WebSocket-Accept` for `key` (RFC 6455 §4.2.2).
    static func accept(for key: String) -> String {
        Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// A 101 with `accept` and the extra header lines, then `behind`.
    static func switching(accept: String, _ extra: [String] = [], behind: [UInt8] = []) -> ByteBuffer {
        var head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n"
        for line in extra { head += line + "\r\n" }
        var buffer = ByteBuffer(string: head + "\r\n")
        buffer.writeBytes(behind)
        return buffer
    }
}

private final class ScriptedUpgradeHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let answer: @Sendable (String) -> ByteBuffer?
    private let closing: Bool
    private var request = ""
    private var answered = false

    init(closing: Bool, answer: @escaping @Sendable (String) -> ByteBuffer?) {
        self.closing = closing
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        request += String(buffer: unwrapInboundIn(data))
        guard !answered, let end = request.range(of: "\r\n\r\n") else { return }
        answered = true
        let key = request[..<end.lowerBound].split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        if let reply = answer(key) { context.writeAndFlush(wrapOutboundOut(reply), promise: nil) }
        if closing { context.close(promise: nil) }
    }
}
