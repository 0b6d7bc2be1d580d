/// What ``HTTPMessageScanner`` learnt about one whole HTTP/1.1 message: enough to count it,
/// pair it with its request and decide what the connection does next, without keeping it.
package struct HTTPMessageInfo: Sendable, Equatable {
    /// How the body's end is found (RFC 9112 §6.3).
    package enum BodyLength: Sendable, Equatable {
        /// No body: a request without Content-Length or Transfer-Encoding, a response to HEAD,
        /// 1xx, 204 or 304.
        case none
        /// Exactly this many bytes.
        case contentLength(Int)
        /// `Transfer-Encoding: chunked`, trailers included.
        case chunked
        /// A response with neither length: everything until the server closes.
        case untilClose
    }

    /// A response (starts with `HTTP/`); false for a request.
    package var isResponse = false
    /// The status code of a response; 0 for a request.
    package var status = 0
    /// A request whose method is HEAD.
    package var isHEADRequest = false
    /// A 1xx response other than 101: not the final answer to its request.
    package var isInterim = false
    /// A 101 response: what follows on the connection is not HTTP any more.
    package var switchesProtocols = false
    /// The `x` of `HTTP/1.x`.
    package var minorVersion = 1
    /// Bytes of the start line and headers, the empty line included.
    package var headBytes = 0
    /// Bytes of the body as decoded (without chunk framing and trailers).
    package var bodyBytes = 0
    /// Bytes of the whole message on the wire.
    package var wireBytes = 0
    /// How the body's end was found.
    package var bodyLength = BodyLength.none
    /// The connection may carry another message after this one: false after `Connection:
    /// close`, an HTTP/1.0 message without `Connection: keep-alive`, a body that runs until
    /// close, or both Transfer-Encoding and Content-Length (RFC 9112 §6.3, item 3).
    package var keepAlive = true

    /// A message description with every field at its starting value.
    package init() {}
}
