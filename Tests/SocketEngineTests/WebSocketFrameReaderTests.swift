import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing
@testable import SocketEngine
import TestSupport

/// The WebSocket frame reader on an `EmbeddedChannel`, whose loop runs its tasks only when the
/// test says so: frames come a burst per turn, the socket is not read while some wait, the end
/// of input comes after them, and NIO's decoder errors are reported as before.
@Suite(.hangGuard) struct WebSocketFrameReaderTests {
    /// Counts frames, the bursts they came in (frames between read completes) and where the end
    /// of input fell.
    final class FrameCounter: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        var total = 0
        var inBurst = 0
        var bursts: [Int] = []
        var endAfter: Int?

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            total += 1
            inBurst += 1
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            if inBurst > 0 { bursts.append(inBurst) }
            inBurst = 0
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? ChannelEvent, case .inputClosed = event { endAfter = total }
        }
    }

    /// A channel as NIO's upgrader leaves it (its decoder in place), then the reader installed.
    static func upgraded() throws -> (EmbeddedChannel, FrameCounter, ConnectionTimingTests.ReadCounter) {
        let channel = EmbeddedChannel()
        let reads = ConnectionTimingTests.ReadCounter()
        let counter = FrameCounter()
        try channel.pipeline.syncOperations.addHandler(reads)
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 14)))
        try channel.pipeline.syncOperations.addHandler(counter)
        try WebSocketFrameReader.install(on: channel, maximumFrameSize: 1 << 14)
        return (channel, counter, reads)
    }

    /// A masked frame with an empty payload, as a client sends it.
    static func emptyFrame(_ first: UInt8) -> [UInt8] { [first, 0x80, 0, 0, 0, 0] }

    @Test func framesComeABurstPerTurnAndTheEndAfterThem() throws {
        let (channel, counter, reads) = try Self.upgraded()
        let limit = ReadBurst.messageLimit
        var bytes = ByteBuffer(bytes: Self.emptyFrame(0x01))
        for _ in 1..<(2 * limit + 10) { bytes.writeBytes(Self.emptyFrame(0x00)) }
        try channel.writeInbound(bytes)
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        channel.read()
        // NIO's decoder leaves on the loop's next turn: until then the bytes wait.
        #expect(counter.total == 0)
        #expect(reads.count.load(ordering: .relaxed) == 0)
        channel.embeddedEventLoop.run()
        #expect(counter.bursts == [limit, limit, 10])
        #expect(counter.endAfter == 2 * limit + 10, "the end of input comes after every frame before it")
        #expect(reads.count.load(ordering: .relaxed) == 1, "the held read goes through once the backlog is decoded")
        _ = try channel.finish()
    }

    @Test func aFrameOverTheLimitIsReportedOnceAndWhatFollowsIsDropped() throws {
        let (channel, counter, _) = try Self.upgraded()
        channel.embeddedEventLoop.run()
        try channel.writeInbound(ByteBuffer(bytes: Self.emptyFrame(0x89)))
        #expect(counter.total == 1)
        // A binary frame of 65536 bytes, over the 16 KiB limit: refused from its header.
        #expect(throws: NIOWebSocketError.invalidFrameLength) {
            try channel.writeInbound(ByteBuffer(bytes: [0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]))
        }
        try channel.writeInbound(ByteBuffer(bytes: Self.emptyFrame(0x89)))
        #expect(counter.total == 1)
        _ = try channel.finish()
    }
}
