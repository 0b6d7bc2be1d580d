import NIOCore

/// The client's WebSocket framing over a ``BlockingStream`` once upgraded
/// (``BlockingConnection``), for loadtest's `threads` I/O: each message goes out as one final
/// masked frame of the run's message kind (binary or text), and each whole message that comes
/// back — its fragments joined by count, not copied — is one reply. Pings are answered with
/// pongs, and a close from the server ends the connection after the close is answered. Every
/// frame is checked (``WebSocketWire``); a message over the size limit fails the connection.
///
/// Why not ``WebSocketMessageAssembler``, the event loops' receiving half: it takes NIO's
/// `WebSocketFrame`s (a decoder and a frame value per frame), copies each message into a buffer
/// of its own, and validates the UTF-8 of every text message byte by byte. Here a message in one
/// frame, the usual case, is handed on as it lies in the read buffer, and text is not validated
/// (a load test counts replies; it does not read them): moving to the assembler would add that
/// work to every reply of the hot loop and fail connections that pass today.
package struct WebSocketClientFramer {
    private let opcode: UInt8
    private let maximumMessageSize: Int
    /// The close frame's payload at the end of the run: the options' close code and reason.
    private let closePayload: ByteBuffer
    /// The message being framed.
    private var scratch = ByteBuffer()
    /// The masking keys (RFC 6455 §5.3 wants them unpredictable to the peer's intermediaries,
    /// not cryptographic).
    private var random: SplitMix64
    /// The fragments of the data message being received so far; nil between messages. (A
    /// message in one frame, the usual case, is handed on as it lies in the read buffer.)
    private var receiving: ByteBuffer?

    package init(slot: Int, options: WebSocketOptions, maximumFrameSize: Int) {
        opcode = options.messageKind == .binary ? WebSocketWire.binary : WebSocketWire.text
        maximumMessageSize = min(options.maximumMessageSize, maximumFrameSize)
        var close = ByteBuffer()
        close.writeInteger(options.closeCode)
        close.writeString(options.closeReason)
        closePayload = close
        random = SplitMix64(seed: UInt64(truncatingIfNeeded: BlockingSocket.now()) &+ UInt64(truncatingIfNeeded: slot) &* 0x9E37_79B9_7F4A_7C15)
        scratch.reserveCapacity(512)
    }

    /// Frames the message `append` writes (it returns its size) onto `outbound`.
    package mutating func send(into outbound: inout ByteBuffer, _ append: (inout ByteBuffer) -> Int) {
        scratch.clear()
        _ = append(&scratch)
        WebSocketWire.appendClientFrame(opcode: opcode, payload: scratch, key: nextKey(), into: &outbound)
    }

    /// Takes every whole frame off `inbound`: `reply` is called with each whole data message's
    /// payload; pongs and the close answer are appended to `answers`. Throws when the server
    /// closed (after its close is answered) or broke the protocol.
    package mutating func receive(from inbound: inout ByteBuffer, answers: inout ByteBuffer, reply: (ByteBuffer) -> Void) throws {
        while let frame = try WebSocketWire.nextServerFrame(&inbound, maximumSize: maximumMessageSize) {
            switch frame.opcode {
            case WebSocketWire.text, WebSocketWire.binary, WebSocketWire.continuation:
                let isContinuation = frame.opcode == WebSocketWire.continuation
                guard isContinuation == (receiving != nil) else {
                    throw SocketEngineError(.webSocketProtocol, isContinuation ? "a continuation frame with no message begun" : "a new message before the last one ended")
                }
                guard (receiving?.readableBytes ?? 0) + frame.payload.readableBytes <= maximumMessageSize else {
                    throw SocketEngineError(.frameTooLarge, "a WebSocket message over the \(maximumMessageSize)-byte limit")
                }
                var payload = frame.payload
                if var joined = receiving {
                    receiving = nil  // so that appending does not copy a shared buffer
                    joined.writeBuffer(&payload)
                    payload = joined
                }
                if frame.final {
                    reply(payload)
                } else {
                    receiving = payload
                }
            case WebSocketWire.ping:
                WebSocketWire.appendClientFrame(opcode: WebSocketWire.pong, payload: frame.payload, key: nextKey(), into: &answers)
            case WebSocketWire.close:
                // The answer carries the server's status code back (§5.5.1).
                let echo = frame.payload.getSlice(at: frame.payload.readerIndex, length: min(2, frame.payload.readableBytes)) ?? ByteBuffer()
                WebSocketWire.appendClientFrame(opcode: WebSocketWire.close, payload: echo, key: nextKey(), into: &answers)
                throw SocketEngineError(.webSocketClosed, "the server closed the WebSocket")
            default:
                break  // pong: nothing to do
            }
        }
    }

    /// The close frame for the end of the run (the options' code: 1000 unless set).
    package mutating func closeFrame() -> ByteBuffer {
        var frame = ByteBuffer()
        WebSocketWire.appendClientFrame(opcode: WebSocketWire.close, payload: closePayload, key: nextKey(), into: &frame)
        return frame
    }

    private mutating func nextKey() -> UInt32 {
        UInt32(truncatingIfNeeded: random.next())
    }
}
