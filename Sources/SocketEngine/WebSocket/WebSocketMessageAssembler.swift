import NIOCore
import NIOWebSocket
import WebSocketDeflate

/// The receiving half of RFC 6455 as a pure state machine: frames in, messages and control
/// events out, every rule NIO's frame decoder leaves to the application checked on the way.
///
/// ```
/// frames    | text fin=0 "Hel" | ping "p" | cont fin=0 "lo " | cont fin=1 "world" |
/// outputs   |       -          | .ping    |        -         | .message(text, "Hello world") |
/// ```
///
/// Checked here: RSV bits — RSV1 only on the first frame of a data message and only when
/// permessage-deflate was agreed, RSV2 and RSV3 never — and reserved opcodes (1002);
/// the masking direction (a server needs masked frames, a client unmasked ones: 1002);
/// fragment sequencing — a continuation with no message started, or a new message before the
/// last one finished (1002); UTF-8 of text messages, incrementally across fragments so that
/// an invalid byte fails the connection in the fragment that carries it (1007); the message
/// size limit, checked before a fragment is kept (1009); close payloads — one byte, a code not
/// allowed on the wire (1002), a reason that is not UTF-8 (1007). Control frames may arrive
/// between fragments; they are returned at once and do not disturb the message in progress.
/// NIO's decoder has already refused fragmented control frames, control payloads over 125
/// bytes and frames longer than the limit.
///
/// A compressed message (RSV1 on its first frame) is inflated fragment by fragment as it
/// arrives (``MessageInflater``): its inflated size is held to the limit (1009, however small
/// the compressed payload), its UTF-8 checked on the inflated bytes, and a payload that does
/// not inflate fails the connection (1002).
///
/// Not an error: an empty message, an empty close frame (no status: reported as nil), an
/// uncompressed message on a connection that agreed to compression.
package struct WebSocketMessageAssembler: Sendable {
    /// What ``receive(_:)`` makes of one frame.
    package enum Output: Sendable, Equatable {
        /// Nothing yet: a fragment was taken in.
        case none
        case message(WebSocketMessageKind, ByteBuffer)
        case ping(ByteBuffer)
        case pong(ByteBuffer)
        /// The peer closes; `code` nil when its close frame had no payload.
        case close(code: UInt16?, reason: String)
        /// The frame breaks the protocol: fail the connection with this close code and reason.
        case violation(WebSocketViolation)
    }

    /// True on the server, which must receive masked frames; false on the client.
    package let expectsMaskedFrames: Bool
    /// Largest message accepted, across all its fragments.
    package let maximumMessageSize: Int

    /// Inflates the peer's compressed messages (nil: permessage-deflate was not agreed).
    private let inflater: MessageInflater?
    private var kind: WebSocketMessageKind?
    /// The message in progress is compressed: its inflated bytes are in `inflated`.
    private var compressed = false
    private var inflated: [UInt8] = []
    private var buffer = ByteBuffer()
    private var size = 0
    private var validator = UTF8Validator()

    /// `inflater` reads the peer's compressed messages when permessage-deflate was agreed.
    package init(expectsMaskedFrames: Bool, maximumMessageSize: Int, inflater: MessageInflater? = nil) {
        self.expectsMaskedFrames = expectsMaskedFrames
        self.maximumMessageSize = maximumMessageSize
        self.inflater = inflater
    }

    /// True while a fragmented message has started and not finished.
    package var isInsideMessage: Bool { kind != nil }

    /// Takes in one frame; a frame that breaks the protocol is answered with `.violation`, the
    /// reason to fail the connection with.
    package mutating func receive(_ frame: WebSocketFrame) -> Output {
        if frame.rsv2 || frame.rsv3 {
            return .violation(.protocolError("reserved bits RSV2/RSV3 set, but no extension uses them"))
        }
        if frame.rsv1 {
            guard inflater != nil else {
                return .violation(.protocolError("reserved bit RSV1 set, but no extension was negotiated"))
            }
            guard frame.opcode == .text || frame.opcode == .binary else {
                return .violation(.protocolError(frame.opcode == .continuation
                    ? "RSV1 set on a continuation frame (only a message's first frame says it is compressed)"
                    : "RSV1 set on a control frame (control frames are never compressed)"))
            }
        }
        if (frame.maskKey != nil) != expectsMaskedFrames {
            return .violation(.protocolError(expectsMaskedFrames ? "unmasked frame from a client" : "masked frame from the server"))
        }
        let opcode = frame.opcode
        switch opcode {
        case .ping:
            return .ping(frame.unmaskedData)
        case .pong:
            return .pong(frame.unmaskedData)
        case .connectionClose:
            return Self.parseClose(frame.unmaskedData)
        case .text, .binary:
            guard kind == nil else { return .violation(.protocolError("a new message started before the previous one finished")) }
            let started: WebSocketMessageKind = opcode == .text ? .text : .binary
            compressed = frame.rsv1
            return take(frame, as: started)
        case .continuation:
            guard let kind else { return .violation(.protocolError("continuation frame with no message started")) }
            return take(frame, as: kind)
        default:
            return .violation(.protocolError("reserved opcode \(UInt8(webSocketOpcode: opcode))"))
        }
    }

    private mutating func take(_ frame: WebSocketFrame, as kind: WebSocketMessageKind) -> Output {
        let (total, overflow) = size.addingReportingOverflow(frame.length)
        guard !overflow, total <= maximumMessageSize else {
            return .violation(WebSocketViolation(WebSocketCloseCode.messageTooBig, "message over the limit of \(plural(maximumMessageSize, "byte"))"))
        }
        let data = WebSocketMasking.payload(of: frame)
        if compressed, let inflater {
            let start = inflated.count
            var output = inflated
            inflated = []
            let result = data.withUnsafeReadableBytes { bytes in
                Result { () throws(MessageInflater.Failure) in try inflater.inflate(bytes, last: frame.fin, into: &output) }
            }
            inflated = output
            switch result {
            case .success:
                break
            case .failure(.tooBig):
                return .violation(WebSocketViolation(WebSocketCloseCode.messageTooBig, "compressed message inflates beyond the limit of \(plural(maximumMessageSize, "byte"))"))
            case .failure(.corrupt(let reason)):
                return .violation(.protocolError("compressed message does not inflate (\(reason))"))
            }
            if kind == .text {
                let valid = inflated[start...].withUnsafeBytes { validator.feed($0) }
                guard valid else { return .violation(WebSocketViolation(WebSocketCloseCode.invalidPayload, "text message is not valid UTF-8")) }
                if frame.fin && !validator.isComplete {
                    return .violation(WebSocketViolation(WebSocketCloseCode.invalidPayload, "text message ends inside a UTF-8 sequence"))
                }
            }
            if frame.fin {
                let message = ByteBuffer(bytes: inflated)
                reset()
                return .message(kind, message)
            }
            if self.kind == nil { self.kind = kind }
            size = total
            return .none
        }
        if kind == .text {
            let valid = data.withUnsafeReadableBytes { validator.feed($0) }
            guard valid else { return .violation(WebSocketViolation(WebSocketCloseCode.invalidPayload, "text message is not valid UTF-8")) }
            if frame.fin && !validator.isComplete {
                return .violation(WebSocketViolation(WebSocketCloseCode.invalidPayload, "text message ends inside a UTF-8 sequence"))
            }
        }
        if frame.fin {
            let message: ByteBuffer
            if self.kind == nil {
                message = data
            } else {
                var joined = buffer
                joined.writeImmutableBuffer(data)
                message = joined
            }
            reset()
            return .message(kind, message)
        }
        if self.kind == nil {
            self.kind = kind
            buffer = data
        } else {
            buffer.writeImmutableBuffer(data)
        }
        size = total
        return .none
    }

    private mutating func reset() {
        kind = nil
        compressed = false
        inflated = []
        buffer = ByteBuffer()
        size = 0
        validator = UTF8Validator()
    }

    /// A close payload: empty, or a 2-byte code allowed on the wire and a UTF-8 reason.
    static func parseClose(_ payload: ByteBuffer) -> Output {
        var payload = payload
        guard payload.readableBytes > 0 else { return .close(code: nil, reason: "") }
        guard let code = payload.readInteger(as: UInt16.self) else {
            return .violation(.protocolError("close frame with a 1-byte payload"))
        }
        guard WebSocketCloseCode.isValidOnTheWire(code) else {
            return .violation(.protocolError("close code \(code) is not allowed on the wire"))
        }
        let reasonBytes = payload.readableBytesView
        guard UTF8Validator.isValid(reasonBytes) else {
            return .violation(WebSocketViolation(WebSocketCloseCode.invalidPayload, "close reason is not valid UTF-8"))
        }
        return .close(code: code, reason: String(decoding: reasonBytes, as: UTF8.self))
    }
}
