import NIOCore
import NIOWebSocket

/// Text or binary: the two kinds of WebSocket data message.
public enum WebSocketMessageKind: String, Sendable, Hashable {
    case text
    case binary

    var opcode: WebSocketOpcode { self == .text ? .text : .binary }
}

/// A reason to fail a WebSocket connection: the close code to send (RFC 6455 §7.4.1) and a
/// short reason for humans (also sent as the close reason).
public struct WebSocketViolation: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1002 protocol error, 1007 invalid payload data, 1009 message too big.
    public let closeCode: UInt16
    public let reason: String

    public init(_ closeCode: UInt16, _ reason: String) {
        self.closeCode = closeCode
        self.reason = reason
    }

    public var description: String { "\(reason) (close code \(closeCode))" }

    static func protocolError(_ reason: String) -> WebSocketViolation { .init(WebSocketCloseCode.protocolError, reason) }
}

/// Close codes by name, and which ones may appear on the wire.
public enum WebSocketCloseCode {
    public static let normal: UInt16 = 1000
    public static let goingAway: UInt16 = 1001
    public static let protocolError: UInt16 = 1002
    public static let invalidPayload: UInt16 = 1007
    public static let policyViolation: UInt16 = 1008
    public static let messageTooBig: UInt16 = 1009
    public static let internalError: UInt16 = 1011

    /// Codes an endpoint may send or receive in a close frame: 1000–1003, 1007–1014 (defined
    /// or registered with IANA) and 3000–4999 (libraries and applications). 1004 is reserved;
    /// 1005, 1006 and 1015 are only ever reported locally, never sent.
    public static func isValidOnTheWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// `1000 (normal)`, `1002 (protocol error)`, `4001`.
    public static func describe(_ code: UInt16) -> String {
        let names: [UInt16: String] = [
            1000: "normal", 1001: "going away", 1002: "protocol error", 1003: "unsupported data",
            1005: "no status", 1006: "abnormal closure", 1007: "invalid payload data", 1008: "policy violation",
            1009: "message too big", 1010: "mandatory extension", 1011: "internal error", 1012: "service restart",
            1013: "try again later", 1014: "bad gateway", 1015: "TLS handshake",
        ]
        return names[code].map { "\(code) (\($0))" } ?? "\(code)"
    }
}

/// The receiving half of RFC 6455 as a pure state machine: frames in, messages and control
/// events out, every rule NIO's frame decoder leaves to the application checked on the way.
///
/// ```
/// frames    | text fin=0 "Hel" | ping "p" | cont fin=0 "lo " | cont fin=1 "world" |
/// outputs   |       -          | .ping    |        -         | .message(text, "Hello world") |
/// ```
///
/// Checked here: RSV bits (no extension is ever negotiated) and reserved opcodes (1002);
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
/// Not an error: an empty message, an empty close frame (no status: reported as nil).
public struct WebSocketMessageAssembler: Sendable {
    public enum Output: Sendable, Equatable {
        /// Nothing yet: a fragment was taken in.
        case none
        case message(WebSocketMessageKind, ByteBuffer)
        case ping(ByteBuffer)
        case pong(ByteBuffer)
        /// The peer closes; `code` nil when its close frame had no payload.
        case close(code: UInt16?, reason: String)
    }

    /// True on the server, which must receive masked frames; false on the client.
    public let expectsMaskedFrames: Bool
    /// Largest message accepted, across all its fragments.
    public let maximumMessageSize: Int

    private var kind: WebSocketMessageKind?
    private var buffer = ByteBuffer()
    private var size = 0
    private var validator = UTF8Validator()

    public init(expectsMaskedFrames: Bool, maximumMessageSize: Int) {
        self.expectsMaskedFrames = expectsMaskedFrames
        self.maximumMessageSize = maximumMessageSize
    }

    /// True while a fragmented message has started and not finished.
    public var isInsideMessage: Bool { kind != nil }

    /// Takes in one frame.
    ///
    /// - Throws: the ``WebSocketViolation`` to fail the connection with.
    public mutating func receive(_ frame: WebSocketFrame) throws(WebSocketViolation) -> Output {
        if frame.rsv1 || frame.rsv2 || frame.rsv3 {
            throw .protocolError("reserved bits set, but no extension was negotiated")
        }
        if (frame.maskKey != nil) != expectsMaskedFrames {
            throw .protocolError(expectsMaskedFrames ? "unmasked frame from a client" : "masked frame from the server")
        }
        let opcode = frame.opcode
        switch opcode {
        case .ping:
            return .ping(frame.unmaskedData)
        case .pong:
            return .pong(frame.unmaskedData)
        case .connectionClose:
            return try Self.parseClose(frame.unmaskedData)
        case .text, .binary:
            guard kind == nil else { throw .protocolError("a new message started before the previous one finished") }
            let started: WebSocketMessageKind = opcode == .text ? .text : .binary
            return try take(frame, as: started)
        case .continuation:
            guard let kind else { throw .protocolError("continuation frame with no message started") }
            return try take(frame, as: kind)
        default:
            throw .protocolError("reserved opcode \(UInt8(webSocketOpcode: opcode))")
        }
    }

    private mutating func take(_ frame: WebSocketFrame, as kind: WebSocketMessageKind) throws(WebSocketViolation) -> Output {
        let (total, overflow) = size.addingReportingOverflow(frame.length)
        guard !overflow, total <= maximumMessageSize else {
            throw WebSocketViolation(WebSocketCloseCode.messageTooBig, "message over the limit of \(maximumMessageSize) bytes")
        }
        let data = WebSocketMasking.payload(of: frame)
        if kind == .text {
            let valid = data.withUnsafeReadableBytes { validator.feed($0) }
            guard valid else { throw WebSocketViolation(WebSocketCloseCode.invalidPayload, "text message is not valid UTF-8") }
            if frame.fin && !validator.isComplete {
                throw WebSocketViolation(WebSocketCloseCode.invalidPayload, "text message ends inside a UTF-8 sequence")
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
        buffer = ByteBuffer()
        size = 0
        validator = UTF8Validator()
    }

    /// A close payload: empty, or a 2-byte code allowed on the wire and a UTF-8 reason.
    static func parseClose(_ payload: ByteBuffer) throws(WebSocketViolation) -> Output {
        var payload = payload
        guard payload.readableBytes > 0 else { return .close(code: nil, reason: "") }
        guard let code = payload.readInteger(as: UInt16.self) else {
            throw .protocolError("close frame with a 1-byte payload")
        }
        guard WebSocketCloseCode.isValidOnTheWire(code) else {
            throw .protocolError("close code \(code) is not allowed on the wire")
        }
        let reasonBytes = payload.readableBytesView
        guard UTF8Validator.isValid(reasonBytes) else {
            throw WebSocketViolation(WebSocketCloseCode.invalidPayload, "close reason is not valid UTF-8")
        }
        return .close(code: code, reason: String(decoding: reasonBytes, as: UTF8.self))
    }
}
