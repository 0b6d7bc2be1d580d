import NIOCore

extension Connection {
    /// The next message as `connect` and `listen` print it; nil at the end.
    ///
    /// One rule for both:
    /// - Over a stream or UDP, a message cut by a framing other than `raw` ends with a newline
    ///   (one message per line); raw bytes and raw datagrams are passed on as they came.
    /// - Over WebSocket, where input is cut by `framing` into messages, output is the other way
    ///   round: each message written in `framing` (a length-prefixed frame for `length:4`). With
    ///   `raw`, a text message ends with a newline and a binary message is its bytes exactly, as
    ///   `websocat -b` writes it (a file sent as binary messages comes out identical). A message
    ///   that does not fit the framing (a `fixed:N` of another size) is written as it came.
    package func readForPrinting(_ framing: Framing, maxFrameSize: Int) async throws -> ByteBuffer? {
        if transport.isWebSocket {
            guard var message = try await readMessage() else { return nil }
            if framing != .raw { return (try? framing.encode(message.bytes)) ?? message.bytes }
            if message.kind == .text { message.bytes.writeInteger(UInt8(0x0A)) }
            return message.bytes
        }
        guard var frame = try await readFrame(framing, maxFrameSize: maxFrameSize) else { return nil }
        if framing.delimitsMessages { frame.writeInteger(UInt8(0x0A)) }
        return frame
    }
}
