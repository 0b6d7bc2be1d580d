import NIOCore
import PacketDecoding
import SocketEngine

extension TCPReassembler.Direction {
    fileprivate var index: Int { self == .clientToServer ? 0 : 1 }
}

/// Turns reassembler events and UDP datagrams into text.
struct StreamPrinter {
    let framing: Framing?
    /// `--keylog`: TLS streams are decrypted with these secrets.
    let keys: TLSKeyStore?
    /// Stream numbers shown to the user: TCP (by reassembler stream) and UDP share one sequence.
    private var nextNumber = 1
    private var tcpStreams: [Int: StreamState] = [:]
    private var udpFlows: [UDPFlowKey: UDPFlow] = [:]
    /// The stream and direction the last raw chunk belonged to (nil: print a marker first).
    private var lastChunk: (number: Int, direction: TCPReassembler.Direction)?
    /// The output so far ends with a newline (or is empty).
    private var atLineStart = true

    init(framing: Framing?, keys: TLSKeyStore? = nil) {
        self.framing = framing.flatMap { $0 == .raw ? nil : $0 }
        self.keys = keys
    }

    // MARK: TCP events

    mutating func handle(_ event: TCPReassembler.Event, into out: inout [UInt8]) {
        switch event.kind {
        case .opened(let client, let server):
            let number = nextNumber
            nextNumber += 1
            tcpStreams[event.stream] = StreamState(number: number, framing: framing)
            endLine(into: &out)
            out += "== stream \(number): \(client) > \(server) (tcp)\n".utf8
            atLineStart = true
        case .data(let bytes):
            guard var state = tcpStreams.removeValue(forKey: event.stream) else { return }
            if let keys, keys.isActive, !state.decryptionDecided {
                state.decryptionDecided = true
                if TLSStreamDecoder.looksLikeRecord(bytes) {
                    state.decryption = DecryptedStream(keys: keys, number: state.number, framing: framing)
                    // The records are shown by the TLS view whatever the framing; the framing
                    // cuts the decrypted bytes.
                    if state.views == nil { state.views = ConnectionViews(views: .tls, payloadLimit: StreamFollower.maximumViewPayload) }
                    state.directions = [DirectionState(framing: nil), DirectionState(framing: nil)]
                }
            }
            show(bytes, &state, direction: event.direction, into: &out)
            if let decryption = state.decryption { decrypt(bytes, decryption, direction: event.direction, into: &out) }
            tcpStreams[event.stream] = state
        case .gap(let count):
            guard var state = tcpStreams.removeValue(forKey: event.stream) else { return }
            if let decryption = state.decryption {
                drainMessages(&decryption.state, event.direction, atEnd: true, into: &out)
                decryption.decryptor.gap(side: event.direction.index) { output in
                    if case .failure(let failure) = output { appendNotDecrypted(failure, number: state.number, direction: event.direction, into: &out) }
                }
            }
            drainMessages(&state, event.direction, atEnd: true, into: &out)
            state.views?.gap(side: event.direction.index, next: UnsafeRawBufferPointer(start: nil, count: 0)) { _ in }
            state.directions[event.direction.index].offset += count
            appendMarker(state.number, event.direction, into: &out)
            out += " [... \(plural(count, "byte")) missing ...]\n".utf8
            atLineStart = true
            lastChunk = nil
            tcpStreams[event.stream] = state
        case .closed(let reason):
            guard var state = tcpStreams.removeValue(forKey: event.stream) else { return }
            if let decryption = state.decryption {
                drainMessages(&decryption.state, .clientToServer, atEnd: true, into: &out)
                drainMessages(&decryption.state, .serverToClient, atEnd: true, into: &out)
            }
            drainMessages(&state, .clientToServer, atEnd: true, into: &out)
            drainMessages(&state, .serverToClient, atEnd: true, into: &out)
            endLine(into: &out)
            let why: String
            switch reason {
            case .finished: why = "FIN"
            case .reset: why = event.direction == .clientToServer ? "RST from client" : "RST from server"
            case .reused: why = "4-tuple reused"
            case .evicted: why = "evicted (too many connections)"
            case .endOfCapture: why = "capture ended"
            }
            out += "== stream \(state.number) end: \(why)\n".utf8
            atLineStart = true
            lastChunk = nil
        }
    }

    /// One direction's next bytes as the stream shows them: cut by the framing, through the
    /// views, or as text or hex.
    private mutating func show(_ bytes: UnsafeRawBufferPointer, _ state: inout StreamState, direction: TCPReassembler.Direction, into out: inout [UInt8]) {
        if state.directions[direction.index].decoder != nil {
            state.directions[direction.index].feed(bytes)
            drainMessages(&state, direction, atEnd: false, into: &out)
        } else if state.views != nil, viewed(&state, bytes, direction: direction, into: &out) {
            // shown through the TLS, WebSocket or HTTP/2 view
        } else {
            appendChunk(bytes, number: state.number, direction: direction, offset: state.directions[direction.index].offset, into: &out)
        }
        state.directions[direction.index].offset += bytes.count
    }

    /// `--keylog`: a TLS stream's bytes decrypted, the plaintext shown as a plaintext stream's
    /// bytes are (``show(_:_:direction:into:)``), a failure said once.
    private mutating func decrypt(_ bytes: UnsafeRawBufferPointer, _ decryption: DecryptedStream, direction: TCPReassembler.Direction, into out: inout [UInt8]) {
        var outputs: [TLSConnectionDecryptor.Output] = []
        decryption.decryptor.consume(bytes, side: direction.index) { outputs.append($0) }
        for output in outputs {
            switch output {
            case .data(let side, let plaintext):
                let plainDirection: TCPReassembler.Direction = side == 0 ? .clientToServer : .serverToClient
                plaintext.withUnsafeBytes { show($0, &decryption.state, direction: plainDirection, into: &out) }
            case .failure(let failure):
                appendNotDecrypted(failure, number: decryption.state.number, direction: direction, into: &out)
            }
        }
    }

    /// `[1] >> [TLS not decrypted: why]`.
    private mutating func appendNotDecrypted(_ failure: TLSDecryptionFailure, number: Int, direction: TCPReassembler.Direction, into out: inout [UInt8]) {
        appendMarker(number, direction, into: &out)
        out += " [TLS not decrypted: \(failure.text)]\n".utf8
        atLineStart = true
        lastChunk = nil
    }

    /// A raw (unframed) chunk: a marker when the stream or direction changed, then text or hex.
    private mutating func appendChunk(
        _ bytes: UnsafeRawBufferPointer, number: Int, direction: TCPReassembler.Direction, offset: Int, into out: inout [UInt8]
    ) {
        let continuing = lastChunk.map { $0.number == number && $0.direction == direction } ?? false
        if MessageText.isText(bytes) {
            if !continuing {
                appendMarker(number, direction, into: &out)
                out.append(0x0A)
            }
            MessageText.appendText(bytes, into: &out)
            atLineStart = out.last == 0x0A
        } else {
            if !continuing {
                appendMarker(number, direction, into: &out)
                HexDump.appendHexAndASCII(bytes, offset: offset, into: &out)
            } else {
                // Each dump line starts with its newline: a continued dump's first one would
                // leave a blank line after the previous dump's (which may already be written
                // away: `out` is emptied by every flush), so this dump's goes.
                endLine(into: &out)
                HexDump.appendContinuedHexAndASCII(bytes, offset: offset, into: &out)
            }
            out.append(0x0A)
            atLineStart = true
        }
        lastChunk = (number, direction)
    }

    /// Prints every whole message buffered for one direction (at the end: the incomplete rest too).
    private mutating func drainMessages(_ state: inout StreamState, _ direction: TCPReassembler.Direction, atEnd: Bool, into out: inout [UInt8]) {
        let index = direction.index
        guard state.directions[index].decoder != nil else { return }
        while true {
            switch state.directions[index].next(atEnd: atEnd) {
            case .message(let message):
                // A request tells the other direction whether its answer is to a HEAD (no body).
                if framing == .http, let isHEAD = HTTPMessage.requestIsHEAD(message) {
                    state.directions[1 - index].decoder?.expectResponse(toHEAD: isHEAD)
                }
                appendMessage(message, number: state.number, direction: direction, into: &out)
            case .needMore:
                if atEnd { state.directions[index].reset(framing: framing) }
                return
            case .failed(let error, let rest):
                appendMarker(state.number, direction, into: &out)
                if atEnd, error.code == .truncatedFrame {
                    out += " [incomplete message: \(error.message)]\n".utf8
                    state.directions[index].reset(framing: framing)
                } else {
                    out += " [framing error: \(error.message); the rest of this direction is shown unframed]\n".utf8
                    state.directions[index].decoder = nil
                }
                atLineStart = true
                if rest.readableBytes > 0 {
                    rest.withUnsafeReadableBytes { appendMessage($0, number: state.number, direction: direction, into: &out) }
                }
                return
            }
        }
    }

    // MARK: UDP

    mutating func datagram(_ segment: TransportSegment, payload: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let source = TCPReassembler.Endpoint(address: segment.source, port: segment.sourcePort)
        let destination = TCPReassembler.Endpoint(address: segment.destination, port: segment.destinationPort)
        let key = UDPFlowKey(source, destination)
        let number: Int
        let direction: TCPReassembler.Direction
        if let known = udpFlows[key] {
            number = known.number
            direction = known.client == source ? .clientToServer : .serverToClient
        } else {
            if udpFlows.count >= StreamFollower.maximumUDPFlows { udpFlows.removeAll(keepingCapacity: true) }
            number = nextNumber
            nextNumber += 1
            udpFlows[key] = UDPFlow(number: number, client: source)
            direction = .clientToServer
            endLine(into: &out)
            out += "== stream \(number): \(source) > \(destination) (udp)\n".utf8
            atLineStart = true
        }
        lastChunk = nil
        if let framing {
            var decoder = FrameDecoder(framing: framing, maximumFrameSize: StreamFollower.maximumMessageSize)
            var buffer = ByteBuffer()
            buffer.writeBytes(payload)
            do {
                while let message = try decoder.decode(&buffer, atEOF: true) {
                    appendMessage(message, number: number, direction: direction, into: &out)
                }
            } catch {
                appendMarker(number, direction, into: &out)
                out += " [framing error: \(error.message)]\n".utf8
                buffer.withUnsafeReadableBytes { appendMessage($0, number: number, direction: direction, into: &out) }
            }
        } else {
            appendMessage(payload, number: number, direction: direction, into: &out)
        }
        if segment.isPayloadTruncated {
            appendMarker(number, direction, into: &out)
            out += " [... \(plural(segment.payloadLength - payload.count, "byte")) missing ...]\n".utf8
        }
        atLineStart = true
    }

    // MARK: Views

    /// Feeds a chunk to the stream's views; true when they showed it (the direction speaks TLS,
    /// WebSocket or HTTP/2), false when it is to be shown raw.
    private mutating func viewed(_ state: inout StreamState, _ bytes: UnsafeRawBufferPointer, direction: TCPReassembler.Direction, into out: inout [UInt8]) -> Bool {
        guard var views = state.views else { return false }
        let side = direction.index
        let wasViewed = views.isViewed(side)
        var items: [ViewItem] = []
        let head = views.consume(bytes, side: side) { items.append($0) }
        state.views = views
        guard wasViewed || views.isViewed(side) else { return false }
        if head > 0 {
            appendChunk(UnsafeRawBufferPointer(rebasing: bytes[0..<min(head, bytes.count)]), number: state.number, direction: direction,
                        offset: state.directions[side].offset, into: &out)
        }
        for item in items { appendItem(item, number: state.number, direction: direction, into: &out) }
        return true
    }

    /// One view item on its marker line; a WebSocket data frame's payload follows as a message
    /// (a compressed message's once inflated).
    private mutating func appendItem(_ item: ViewItem, number: Int, direction: TCPReassembler.Direction, into out: inout [UInt8]) {
        appendMarker(number, direction, into: &out)
        out.append(0x20)
        if case .webSocketMessage(var message) = item, message.problem == nil, !message.payload.isEmpty {
            let payload = message.payload
            let complete = message.payloadComplete
            message.payload = []
            ViewItem.webSocketMessage(message).appendText(into: &out)
            if !complete { out += " (first \(plural(payload.count, "byte")) shown)".utf8 }
            out.append(0x0A)
            atLineStart = true
            payload.withUnsafeBytes { appendMessage($0, number: number, direction: direction, into: &out) }
            return
        }
        if case .webSocketFrame(var frame) = item, frame.compressed {
            // Its message follows inflated.
            frame.payload = []
            frame.payloadComplete = true
            ViewItem.webSocketFrame(frame).appendText(into: &out)
            out.append(0x0A)
            atLineStart = true
            lastChunk = nil
            return
        }
        if case .webSocketFrame(var frame) = item, frame.opcode <= 2, !frame.payload.isEmpty {
            let payload = frame.payload
            let complete = frame.payloadComplete
            frame.payload = []
            ViewItem.webSocketFrame(frame).appendText(into: &out)
            if !complete { out += " (first \(plural(payload.count, "byte")) shown)".utf8 }
            out.append(0x0A)
            atLineStart = true
            payload.withUnsafeBytes { appendMessage($0, number: number, direction: direction, into: &out) }
            return
        }
        item.appendText(into: &out)
        out.append(0x0A)
        atLineStart = true
        lastChunk = nil
    }

    // MARK: Pieces

    /// One message on its own marker-prefixed line(s).
    private mutating func appendMessage(_ bytes: UnsafeRawBufferPointer, number: Int, direction: TCPReassembler.Direction, into out: inout [UInt8]) {
        appendMarker(number, direction, into: &out)
        MessageRenderer.append(bytes, into: &out)
        atLineStart = true
        lastChunk = nil
    }

    /// One message cut with the framing: shown as HTTP for `http` (``MessageRenderer``).
    private mutating func appendMessage(_ message: ByteBuffer, number: Int, direction: TCPReassembler.Direction, into out: inout [UInt8]) {
        appendMarker(number, direction, into: &out)
        MessageRenderer.append(message, framing: framing, into: &out)
        atLineStart = true
        lastChunk = nil
    }

    /// `[N] >>` or `[N] <<` at the start of a line.
    private mutating func appendMarker(_ number: Int, _ direction: TCPReassembler.Direction, into out: inout [UInt8]) {
        endLine(into: &out)
        out += "[\(number)] ".utf8
        out += direction == .clientToServer ? ">>".utf8 : "<<".utf8
        atLineStart = false
    }

    /// Ends an unfinished text line, so the next output starts on its own line.
    mutating func endLine(into out: inout [UInt8]) {
        if !atLineStart {
            out.append(0x0A)
            atLineStart = true
        }
    }
}
