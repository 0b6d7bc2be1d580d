import NIOCore
import PacketDecoding
import SocketEngine

/// What replaying one recorded stream means: the client's messages with the time each is due,
/// and what the recording's server answered, cut the same way.
///
/// ```
/// recording:  t=0 SYN   t=5ms c "A\nB"   t=8ms s "a\n"   t=205ms c "\n"   t=209ms s "b\n"   t=300ms c FIN
/// segments:   sends [5ms "A\nB", 205ms "\n"]          expected ["a\n", "b\n"]           FIN at 300ms
/// --framing line: sends [5ms "A\n", 205ms "B\n"]      expected ["a", "b"]
/// ```
///
/// Times count from the stream's first packet (the SYN when it was captured), so the pause
/// between connecting and the first message is kept too. With `--framing`, a frame is due when
/// the packet holding its last byte was captured; over a stream target each send carries the
/// frame's bytes exactly as recorded (delimiter or length prefix included), over a message target
/// (ws://, wss://, udp://) its body. A tail that is not a whole frame is sent as it is (stream
/// targets) so the byte stream stays exact.
public struct ReplayPlan: Sendable {
    /// One message of the recorded client.
    public struct Send: Sendable {
        /// From the start of the stream, as recorded (not yet scaled by `--speed`).
        package var due: Duration
        /// What is written: the frame's wire bytes over a stream target, its body over a message
        /// target.
        public var bytes: ByteBuffer

        /// A message of `bytes`, due `due` after the start of the stream.
        public init(due: Duration, bytes: ByteBuffer) {
            self.due = due
            self.bytes = bytes
        }
    }

    package var sends: [Send] = []
    /// The recording's server output as units of comparison: frame bodies with `--framing`,
    /// datagrams for UDP, else the server's segments.
    package var expected: [ByteBuffer] = []
    /// When each of ``expected`` was complete in the recording, from the start of the stream
    /// (the packet holding its last byte): which client message it answered.
    package var expectedDue: [Duration] = []
    /// Every byte the recording's server sent, in order.
    public var expectedStream = ByteBuffer()
    /// When the recorded client half-closed (TCP), from the start of the stream.
    package var clientFinishedAt: Duration?
    /// Server bytes the recording had delivered before the client's FIN.
    package var serverBytesBeforeClientFinish = 0
    /// The recorded server closed its side before the client did.
    package var serverFinishedFirst = false
    /// Client bytes that did not form a whole frame at the end of the stream.
    public var clientTailBytes = 0

    /// A plan made by hand: these sends, these expected answers (for tests and for replaying
    /// something that was never captured).
    public init(sends: [Send], expected: [ByteBuffer] = []) {
        self.sends = sends
        self.expected = expected
        expectedDue = expected.map { _ in .zero }
        for answer in expected { expectedStream.writeImmutableBuffer(answer) }
    }

    /// Builds the plan for `stream` (whose messages were extracted).
    ///
    /// - Parameters:
    ///   - framing: nil for segments (raw).
    ///   - messageTarget: the target takes whole messages (ws://, wss://, udp://): send bodies.
    public init(stream: RecordedStream, framing: Framing?, messageTarget: Bool, maximumFrameSize: Int) throws(RecordingError) {
        let start = stream.firstTime
        func offset(_ time: Int64) -> Duration {
            .nanoseconds(time >= start ? time - start : 0)
        }
        let datagrams = stream.transport == .udp
        var clientDecoder = framing.map { FrameDecoder(framing: $0, maximumFrameSize: maximumFrameSize) }
        var serverDecoder = framing.map { FrameDecoder(framing: $0, maximumFrameSize: maximumFrameSize) }
        var clientBuffer = ByteBuffer()
        var serverBuffer = ByteBuffer()
        var lastClientTime = start
        var lastServerTime = start
        var serverBytes = 0
        let clientFIN = stream.clientCounters.finTime
        for message in stream.messages {
            let bytes = ByteBuffer(bytes: message.bytes)
            switch message.side {
            case .client:
                lastClientTime = message.time
                if datagrams || clientDecoder == nil {
                    sends.append(Send(due: offset(message.time), bytes: bytes))
                    continue
                }
                clientBuffer.writeImmutableBuffer(bytes)
                try Self.cut(&clientBuffer, with: &clientDecoder, atEnd: false, side: "client") { body, wire in
                    sends.append(Send(due: offset(message.time), bytes: messageTarget ? body : wire))
                    // An HTTP request tells the server's decoder whether its answer is to a HEAD.
                    if framing == .http, let isHEAD = HTTPMessage.requestIsHEAD(body) { serverDecoder?.expectResponse(toHEAD: isHEAD) }
                }
            case .server:
                lastServerTime = message.time
                if let clientFIN, message.time < clientFIN { serverBytes += message.bytes.count }
                if clientFIN == nil { serverBytes += message.bytes.count }
                expectedStream.writeImmutableBuffer(bytes)
                if datagrams || serverDecoder == nil {
                    expected.append(bytes)
                    expectedDue.append(offset(message.time))
                    continue
                }
                serverBuffer.writeImmutableBuffer(bytes)
                try Self.cut(&serverBuffer, with: &serverDecoder, atEnd: false, side: "server") { body, _ in
                    expected.append(body)
                    expectedDue.append(offset(message.time))
                }
            }
        }
        if clientDecoder != nil {
            try Self.cut(&clientBuffer, with: &clientDecoder, atEnd: true, side: "client") { body, wire in
                sends.append(Send(due: offset(lastClientTime), bytes: messageTarget ? body : wire))
            }
            if clientBuffer.readableBytes > 0 {
                clientTailBytes = clientBuffer.readableBytes
                if !messageTarget { sends.append(Send(due: offset(lastClientTime), bytes: clientBuffer)) }
            }
        }
        if serverDecoder != nil {
            try Self.cut(&serverBuffer, with: &serverDecoder, atEnd: true, side: "server") { body, _ in
                expected.append(body)
                expectedDue.append(offset(lastServerTime))
            }
            if serverBuffer.readableBytes > 0 {
                expected.append(serverBuffer)
                expectedDue.append(offset(lastServerTime))
            }
        }
        if !datagrams {
            clientFinishedAt = clientFIN.map(offset)
            serverBytesBeforeClientFinish = serverBytes
            if let serverFIN = stream.serverCounters.finTime {
                serverFinishedFirst = clientFIN.map { serverFIN < $0 } ?? true
            }
        }
    }

    /// Cuts whole frames off `buffer`, handing each body and its wire bytes to `emit`.
    private static func cut(
        _ buffer: inout ByteBuffer, with decoder: inout FrameDecoder?, atEnd: Bool, side: String,
        _ emit: (ByteBuffer, ByteBuffer) -> Void
    ) throws(RecordingError) {
        guard var frames = decoder else { return }
        defer { decoder = frames }
        while buffer.readableBytes > 0 {
            let before = buffer
            let body: ByteBuffer?
            do {
                body = try frames.decode(&buffer, atEOF: atEnd)
            } catch {
                if error.code == .truncatedFrame { return }
                throw RecordingError(.framingMismatch, "the recorded \(side) data is not in this framing: \(error.text)")
            }
            guard let body else { return }
            let consumed = before.readableBytes - buffer.readableBytes
            let wire = before.getSlice(at: before.readerIndex, length: consumed) ?? body
            emit(body, wire)
        }
    }

    /// The bytes sent in all.
    package var bytesToSend: Int { sends.reduce(0) { $0 + $1.bytes.readableBytes } }
}
