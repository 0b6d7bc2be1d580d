import NIOCore
import Testing
@testable import SocketEngine
import TestSupport

/// WebSocket frames as bytes for `loadtest --io threads`: what the client writes is a valid
/// masked frame (read back here by hand, as RFC 6455 §5.2 lays it out), and every server
/// frame is read whole or not at all, with its lengths and rules checked first.
@Suite(.hangGuard) struct WebSocketWireTests {
    /// Reads a client frame by hand: FIN and opcode, MASK set, the length, the key, the payload unmasked.
    private func unmask(_ frame: ByteBuffer) -> (first: UInt8, payload: [UInt8])? {
        var frame = frame
        guard let first = frame.readInteger(as: UInt8.self), let second = frame.readInteger(as: UInt8.self), second & 0x80 != 0 else { return nil }
        var length = Int(second & 0x7F)
        if length == 126 { length = Int(frame.readInteger(as: UInt16.self) ?? 0) }
        if length == 127 { length = Int(frame.readInteger(as: UInt64.self) ?? 0) }
        guard let key = frame.readBytes(length: 4), let masked = frame.readBytes(length: length), frame.readableBytes == 0 else { return nil }
        return (first, masked.enumerated().map { $0.element ^ key[$0.offset & 3] })
    }

    @Test(arguments: [0, 5, 125, 126, 65535, 65536, 100_000])
    func clientFramesCarryTheirPayloadMasked(size: Int) throws {
        let payload = ByteBuffer(bytes: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var frame = ByteBuffer()
        WebSocketWire.appendClientFrame(opcode: WebSocketWire.binary, payload: payload, key: 0xA1B2_C3D4, into: &frame)
        let read = try #require(unmask(frame))
        #expect(read.first == 0x82)
        #expect(read.payload == Array(payload.readableBytesView))
        if size > 0 { #expect(Array(frame.readableBytesView.suffix(size)) != read.payload || size < 4, "the payload went out masked") }
    }

    @Test func serverFramesAreReadWholeOrNotAtAll() throws {
        var bytes = ByteBuffer(bytes: [0x81, 0x03] + Array("abc".utf8) + [0x02, 0x7E, 0x01, 0x00] + [UInt8](repeating: 9, count: 256))
        let text = try #require(try WebSocketWire.nextServerFrame(&bytes, maximumSize: 1 << 20))
        #expect(text.opcode == WebSocketWire.text && text.final && String(buffer: text.payload) == "abc" && text.wireBytes == 5)
        let fragment = try #require(try WebSocketWire.nextServerFrame(&bytes, maximumSize: 1 << 20))
        #expect(fragment.opcode == WebSocketWire.binary && !fragment.final && fragment.payload.readableBytes == 256 && fragment.wireBytes == 260)
        #expect(bytes.readableBytes == 0)

        // Cut anywhere, a frame is not taken and nothing is consumed.
        let whole: [UInt8] = [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] + [UInt8](repeating: 1, count: 65536)
        for cut in [0, 1, 2, 5, 9, 10, 1000, whole.count - 1] {
            var partial = ByteBuffer(bytes: whole.prefix(cut))
            #expect(try WebSocketWire.nextServerFrame(&partial, maximumSize: 1 << 20) == nil, "cut at \(cut)")
            #expect(partial.readableBytes == cut)
        }
        var complete = ByteBuffer(bytes: whole)
        #expect(try WebSocketWire.nextServerFrame(&complete, maximumSize: 1 << 20)?.payload.readableBytes == 65536)
    }

    @Test(arguments: [
        ("a masked frame", [0x81, 0x81, 1, 2, 3, 4, 5] as [UInt8], SocketEngineError.Code.webSocketProtocol),
        ("RSV1 without an extension", [0xC1, 0x00], .webSocketProtocol),
        ("a reserved opcode", [0x83, 0x00], .webSocketProtocol),
        ("a fragmented ping", [0x09, 0x00], .webSocketProtocol),
        ("a 126-byte close", [0x88, 0x7E, 0x00, 0x7E], .webSocketProtocol),
        ("a 2^63 length", [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], .frameTooLarge),
        ("over the limit", [0x82, 0x7E, 0x04, 0x01], .frameTooLarge),
    ])
    func badServerFramesAreRefusedBeforeTheyAreBuffered(name: String, bytes: [UInt8], code: SocketEngineError.Code) {
        var buffer = ByteBuffer(bytes: bytes)
        #expect(throws: SocketEngineError.self, "\(name)") { try WebSocketWire.nextServerFrame(&buffer, maximumSize: 1024) }
        do {
            _ = try WebSocketWire.nextServerFrame(&buffer, maximumSize: 1024)
        } catch {
            #expect(error.code == code, "\(name): \(error.message)")
        }
    }
}
