import NIOCore
import NIOWebSocket

/// Writes WebSocket frames in place of NIO's `WebSocketFrameEncoder`: the same bytes, but a
/// masked frame (every frame a client sends) is masked by ``WebSocketMasking`` into one
/// buffer with its header; an unmasked one goes as header and payload, uncopied.
///
/// NIO's upgraders put their encoder in the pipeline and it cannot be removed, so the writer
/// sits above it and hands its bytes to an ``Outlet`` below it:
///
/// ```
/// head <- Outlet <- (NIO's encoder, unused) <- decoder <- WebSocketFrameWriter <- WebSocketHandler
/// ```
final class WebSocketFrameWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = ByteBuffer

    /// Passes bytes on towards the socket from below NIO's encoder.
    final class Outlet: ChannelOutboundHandler, RemovableChannelHandler {
        typealias OutboundIn = ByteBuffer
        fileprivate var context: ChannelHandlerContext?

        func handlerAdded(context: ChannelHandlerContext) { self.context = context }
        func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }
    }

    private let outlet: Outlet

    /// Installs the writer (at the end of the pipeline, on its loop) with its outlet below
    /// NIO's encoder.
    static func install(on channel: any Channel) throws {
        let operations = channel.pipeline.syncOperations
        let encoder = try operations.handler(type: WebSocketFrameEncoder.self)
        let outlet = Outlet()
        try operations.addHandler(outlet, position: .before(encoder))
        try operations.addHandler(WebSocketFrameWriter(outlet: outlet))
    }

    private init(outlet: Outlet) { self.outlet = outlet }

    private func emit(_ buffer: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard let context = outlet.context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(NIOAny(buffer), promise: promise)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = unwrapOutboundIn(data)
        let extensionBytes = frame.extensionData?.readableBytes ?? 0
        let length = extensionBytes + frame.data.readableBytes
        var first = UInt8(webSocketOpcode: frame.opcode)
        if frame.fin { first |= 0x80 }
        if frame.rsv1 { first |= 0x40 }
        if frame.rsv2 { first |= 0x20 }
        if frame.rsv3 { first |= 0x10 }
        let maskBit: UInt8 = frame.maskKey == nil ? 0 : 0x80
        let headerSize = 2 + (length < 126 ? 0 : length <= 0xFFFF ? 2 : 8) + (frame.maskKey == nil ? 0 : 4)
        var buffer = context.channel.allocator.buffer(capacity: headerSize + (frame.maskKey == nil ? 0 : length))
        buffer.writeInteger(first)
        if length < 126 {
            buffer.writeInteger(UInt8(length) | maskBit)
        } else if length <= 0xFFFF {
            buffer.writeInteger(126 | maskBit)
            buffer.writeInteger(UInt16(length))
        } else {
            buffer.writeInteger(127 | maskBit)
            buffer.writeInteger(UInt64(length))
        }
        guard let key = frame.maskKey else {
            if let extensionData = frame.extensionData { buffer.writeImmutableBuffer(extensionData) }
            if frame.data.readableBytes == 0 {
                emit(buffer, promise: promise)
            } else {
                emit(buffer, promise: nil)
                emit(frame.data, promise: promise)
            }
            return
        }
        buffer.writeBytes(key)
        if let extensionData = frame.extensionData {
            WebSocketMasking.append(extensionData, maskedWith: key, to: &buffer)
        }
        WebSocketMasking.append(frame.data, maskedWith: key, phase: extensionBytes & 3, to: &buffer)
        emit(buffer, promise: promise)
    }
}
