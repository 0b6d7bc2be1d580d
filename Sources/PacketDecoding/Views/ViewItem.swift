import ProxyProtocol

/// One thing a protocol view recognized in a TCP stream: a TLS record, a WebSocket upgrade step
/// or frame, an HTTP/2 preface or frame, an HTTP/1.1 message — or that the view lost its place (a gap or reordering
/// in the capture) and shows nothing more for that direction until it can realign.
///
/// Made by the stream decoders (``TLSStreamDecoder``, ``WebSocketStreamDecoder``,
/// ``HTTP2StreamDecoder``, ``HTTPStreamDecoder``); printed as text lines (``appendText(into:)``) by `capture --decode`
/// and `--follow`, and as JSON objects (``appendJSON(into:)``) by `--json`.
package enum ViewItem: Equatable, Sendable {
    case tls(TLSRecordSummary)
    case webSocketUpgrade(WebSocketUpgradeSummary)
    case webSocketFrame(WebSocketFrameSummary)
    /// A compressed (permessage-deflate) message, inflated — or why it could not be.
    case webSocketMessage(WebSocketMessageSummary)
    case http2Preface
    case http2Frame(HTTP2FrameSummary)
    /// A decoded header block (HEADERS or PUSH_PROMISE and its CONTINUATIONs).
    case http2Headers(HTTP2HeaderList)
    /// This direction's header blocks are not decoded from here on (said once).
    case http2HeadersNotDecoded(HTTP2HeadersNotDecoded)
    /// One gRPC length-prefixed message of a stream whose content-type is application/grpc.
    case grpcMessage(GRPCMessageSummary)
    /// One whole HTTP/1.1 message: start line, header fields, body length and framing.
    case httpMessage(HTTPMessageSummary)
    /// The direction's bytes stopped lining up (a gap, out-of-order data, something that is
    /// not the protocol): no more items for it until the decoder finds a boundary again
    /// (TLS: a plausible record header at a segment's start; the others: never).
    case lostSync(ProtocolViews)
    /// Decrypted TLS application data (`--keylog`) that no other view shows: its length and
    /// its first bytes (up to the payload limit).
    case tlsDecrypted(length: Int, bytes: [UInt8])
    /// A TLS connection that is not decrypted, and why (once per connection).
    case tlsNotDecrypted(TLSDecryptionFailure)
    /// The PROXY protocol header a direction begins with.
    case proxyHeader(ProxyProtocolHeader)
    /// A direction that begins like a PROXY protocol header but is not a valid one: why.
    case proxyHeaderMalformed(ProxyProtocolHeader.Failure)
}

/// One TLS record: its header and, for a plaintext handshake record, the messages in it and the
/// ClientHello/ServerHello fields people look for.
package struct TLSRecordSummary: Equatable, Sendable {
    /// 20 change_cipher_spec, 21 alert, 22 handshake, 23 application_data, 24 heartbeat.
    package var contentType: UInt8
    /// The record layer's version field (`0x0303` TLS 1.2; TLS 1.3 records say 1.2 too).
    package var version: UInt16
    /// The record's length field (its body, without the 5-byte header).
    package var length: Int
    /// Sent after this direction's change_cipher_spec: the body is not readable.
    package var encrypted = false
    /// The handshake message types that start in this record, in order.
    package var handshakeTypes: [UInt8] = []
    /// The last message goes on in the next record (a long Certificate).
    package var continues = false
    /// ClientHello: the server_name extension's host name.
    package var serverName: [UInt8]?
    /// ClientHello: the ALPN protocols offered; ServerHello: the one chosen (EncryptedExtensions
    /// carries it in TLS 1.3, so it is usually not visible there).
    package var alpn: [[UInt8]] = []
    /// ClientHello: the supported_versions extension, in the client's order.
    package var offeredVersions: [UInt16] = []
    /// ServerHello: the version chosen (supported_versions, else the hello's own field).
    package var selectedVersion: UInt16?
    /// ServerHello: the cipher suite chosen.
    package var cipherSuite: UInt16?
    /// A plaintext alert: level (1 warning, 2 fatal) and description.
    package var alertLevel: UInt8?
    package var alertDescription: UInt8?

    package init(contentType: UInt8, version: UInt16, length: Int) {
        self.contentType = contentType
        self.version = version
        self.length = length
    }
}

/// The HTTP side of a WebSocket upgrade (RFC 6455 §4).
package enum WebSocketUpgradeSummary: Equatable, Sendable {
    /// The client's `GET` with `Upgrade: websocket`: its request target.
    case request(target: [UInt8])
    /// The server's answer: its status code (101 means the connection is now WebSocket).
    case response(status: Int)
}

/// One WebSocket frame's header, its close code and reason, and the start of its payload
/// (unmasked), as far as the decoder was asked to keep it.
package struct WebSocketFrameSummary: Equatable, Sendable {
    package var fin: Bool
    /// The three RSV bits (non-zero only with an extension such as permessage-deflate).
    package var reserved: UInt8
    package var opcode: UInt8
    package var masked: Bool
    /// The payload length field.
    package var length: UInt64
    /// A close frame's status code, when its payload has one.
    package var closeCode: UInt16?
    /// The payload (a close frame's: after the code) up to the decoder's payload limit.
    package var payload: [UInt8] = []
    /// ``payload`` holds all of it.
    package var payloadComplete = true
    /// The frame carries part of a compressed message (RSV1 is on its first frame only).
    package var compressed = false
}

/// A compressed WebSocket message (RFC 7692) after inflating: its type, inflated length and
/// the start of its inflated payload; or, when it could not be inflated, why.
package struct WebSocketMessageSummary: Equatable, Sendable {
    /// 1 text, 2 binary.
    package var opcode: UInt8
    /// The inflated length (0 when ``problem`` is set).
    package var length: Int
    /// The inflated payload up to the decoder's payload limit.
    package var payload: [UInt8] = []
    /// ``payload`` holds all of it.
    package var payloadComplete = true
    /// Why the message was not inflated (said once per direction: what follows is not inflated either).
    package var problem: String?
}

/// One HTTP/2 frame's header and the fields of the control frames.
package struct HTTP2FrameSummary: Equatable, Sendable {
    package var type: UInt8
    package var flags: UInt8
    /// The stream identifier (the reserved bit cleared).
    package var stream: UInt32
    /// The payload length field.
    package var length: Int
    /// SETTINGS: identifier and value, in order.
    package var settings: [Setting] = []
    /// RST_STREAM and GOAWAY: the error code.
    package var errorCode: UInt32?
    /// GOAWAY: the last stream processed.
    package var lastStream: UInt32?
    /// WINDOW_UPDATE: the increment.
    package var increment: UInt32?
    /// PING: the 8 opaque bytes.
    package var opaque: UInt64?

    /// One SETTINGS parameter.
    package struct Setting: Equatable, Sendable {
        package var identifier: UInt16
        package var value: UInt32
    }
}
