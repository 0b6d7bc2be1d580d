import NIOCore

/// Turns a stream of input chunks (typically stdin) into what goes on the wire.
///
/// With `raw` framing the bytes pass through unchanged, except that `--crlf` turns every LF
/// not already preceded by CR into CRLF (across chunk boundaries). With any other framing the
/// input is read as lines — LF or CRLF terminated, the terminator removed — and each line is
/// sent as one frame: `--framing length:4` puts a 4-byte length before each typed line. A
/// line that cannot be framed (wrong size for `fixed:N`, longer than the frame limit) is
/// skipped and reported, never sent half-formed.
///
/// For datagrams (`datagrams: true`) the datagram is the message boundary: each raw chunk, or
/// each line's body without a delimiter or prefix, becomes one message of its own.
///
/// For WebSocket (``init(messagesIn:maximumFrameSize:)``) the input is cut by the framing —
/// lines for `raw` — and each frame's body becomes one message (see ``forInput(over:framing:binaryMessages:translateLineEndings:maximumFrameSize:)``).
package struct MessageEncoder: Sendable {
    package let framing: Framing
    package let translateLineEndings: Bool
    package let datagrams: Bool
    /// Input frames are cut by `framing` itself (not read as lines) and sent as messages.
    private var cutsInputByFraming = false
    private var lines: FrameDecoder
    private var pending = ByteBuffer()
    private var previousWasCR = false
    /// After a line over the limit: drop input up to the next LF, then carry on.
    private var skippingLongLine = false
    /// Raw datagrams (binary WebSocket messages): chunks longer than this are cut.
    private var largestChunk: Int?

    /// Binary WebSocket messages cut from raw input: at most 64 KiB each, what most servers
    /// accept (websocat's default limit; browsers and Python's websockets take 1 MiB).
    package static let largestBinaryMessage = 64 * 1024

    package init(framing: Framing, translateLineEndings: Bool = false, datagrams: Bool = false, maximumFrameSize: Int = FrameDecoder.defaultMaximumFrameSize) {
        self.framing = framing
        self.translateLineEndings = translateLineEndings
        self.datagrams = datagrams
        self.lines = FrameDecoder(framing: .line, maximumFrameSize: maximumFrameSize)
    }

    /// One message per input frame of `framing` (per line for `raw`), sent as is: WebSocket.
    package init(messagesIn framing: Framing, maximumFrameSize: Int = FrameDecoder.defaultMaximumFrameSize) {
        self.framing = framing == .raw ? .line : framing
        self.translateLineEndings = false
        self.datagrams = true
        self.cutsInputByFraming = true
        self.lines = FrameDecoder(framing: self.framing, maximumFrameSize: maximumFrameSize)
    }

    /// The encoder for input sent over `transport`. Over WebSocket each line (or frame of
    /// `framing`) is one message — binary input without a framing has no lines, so each chunk
    /// as read is one message there (at most ``largestBinaryMessage`` bytes) — and an empty
    /// line is an empty message.
    package static func forInput(
        over transport: Endpoint.Transport, framing: Framing, binaryMessages: Bool,
        translateLineEndings: Bool = false, maximumFrameSize: Int
    ) -> MessageEncoder {
        if transport.isWebSocket {
            if framing == .raw && binaryMessages {
                var encoder = MessageEncoder(framing: .raw, datagrams: true)
                encoder.largestChunk = largestBinaryMessage
                return encoder
            }
            return MessageEncoder(messagesIn: framing, maximumFrameSize: maximumFrameSize)
        }
        return MessageEncoder(framing: framing, translateLineEndings: translateLineEndings, datagrams: transport == .udp, maximumFrameSize: maximumFrameSize)
    }

    /// Whether an empty message is sent: over WebSocket it is a message; over a stream nothing.
    package static func sendsEmptyMessages(over transport: Endpoint.Transport) -> Bool { transport.isWebSocket }

    /// The result of encoding one chunk: what to send, and the lines that had to be skipped.
    package struct Output: Sendable {
        /// For streams, one buffer of encoded frames; for datagrams, one buffer per datagram.
        package var messages: [ByteBuffer] = []
        package var rejected: [SocketEngineError] = []

        /// Everything to send, concatenated (streams).
        package var bytes: ByteBuffer {
            guard messages.count != 1 else { return messages[0] }
            var joined = ByteBuffer()
            for message in messages { joined.writeImmutableBuffer(message) }
            return joined
        }

        mutating func append(_ message: ByteBuffer, datagrams: Bool) {
            if datagrams || messages.isEmpty {
                messages.append(message)
            } else {
                messages[messages.count - 1].writeImmutableBuffer(message)
            }
        }
    }

    package mutating func encode(_ chunk: ByteBuffer) -> Output {
        var output = Output()
        switch framing {
        case .raw, .http:
            // HTTP input is whole messages already (typed or piped requests): sent as it comes.
            let bytes = translateLineEndings ? translate(chunk) : chunk
            if let largestChunk, bytes.readableBytes > largestChunk {
                var offset = bytes.readerIndex
                while offset < bytes.writerIndex {
                    let length = min(largestChunk, bytes.writerIndex - offset)
                    if let slice = bytes.getSlice(at: offset, length: length) { output.messages.append(slice) }
                    offset += length
                }
            } else {
                output.messages = [bytes]
            }
        default:
            if pending.readableBytes == 0 {
                pending = chunk
            } else {
                pending.writeImmutableBuffer(chunk)
            }
            drainLines(atEOF: false, into: &output)
        }
        return output
    }

    /// Encodes whatever is left at end of input (an unterminated last line).
    package mutating func finish() -> Output {
        var output = Output()
        if framing != .raw && framing != .http { drainLines(atEOF: true, into: &output) }
        return output
    }

    /// Encodes a message given whole (heartbeat payloads, `send` arguments).
    package func encodeMessage(_ body: ByteBuffer) throws(SocketEngineError) -> ByteBuffer {
        if datagrams { return body }
        if framing == .raw && translateLineEndings {
            var copy = self
            return copy.translate(body)
        }
        return try framing.encode(body)
    }

    private mutating func drainLines(atEOF: Bool, into output: inout Output) {
        while true {
            if skippingLongLine && cutsInputByFraming {
                pending.clear()
                return
            }
            if skippingLongLine {
                guard let newline = pending.readableBytesView.firstIndex(of: 0x0A) else {
                    pending.clear()
                    return
                }
                pending.moveReaderIndex(to: newline + 1)
                skippingLongLine = false
            }
            do {
                guard let line = try lines.decode(&pending, atEOF: atEOF) else { return }
                do {
                    if cutsInputByFraming {
                        output.append(line, datagrams: true)
                    } else if datagrams {
                        try framing.checkFixedSize(line)
                        output.append(line, datagrams: true)
                    } else {
                        output.append(try framing.encode(line), datagrams: false)
                    }
                } catch {
                    output.rejected.append(SocketEngineError(error.code, "input line not sent: \(error.text)"))
                }
            } catch {
                if cutsInputByFraming {
                    // A framed input stream cannot be resynchronised after an oversized frame.
                    output.rejected.append(SocketEngineError(error.code, "input not sent: \(error.text); the rest of the input is dropped"))
                    pending.clear()
                    skippingLongLine = true
                    return
                }
                output.rejected.append(SocketEngineError(error.code, "input line not sent: \(error.text)"))
                lines = FrameDecoder(framing: .line, maximumFrameSize: lines.maximumFrameSize)
                skippingLongLine = true
            }
        }
    }

    private mutating func translate(_ chunk: ByteBuffer) -> ByteBuffer {
        var out = ByteBuffer()
        out.reserveCapacity(chunk.readableBytes + chunk.readableBytes / 16 + 2)
        chunk.withUnsafeReadableBytes { raw in
            var start = 0
            for index in 0..<raw.count where raw[index] == 0x0A {
                let precededByCR = index > 0 ? raw[index - 1] == 0x0D : previousWasCR
                if !precededByCR {
                    out.writeBytes(UnsafeRawBufferPointer(rebasing: raw[start..<index]))
                    out.writeBytes([0x0D, 0x0A])
                    start = index + 1
                }
            }
            out.writeBytes(UnsafeRawBufferPointer(rebasing: raw[start..<raw.count]))
            if raw.count > 0 { previousWasCR = raw[raw.count - 1] == 0x0D }
        }
        return out
    }
}
