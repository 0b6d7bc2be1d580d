import NIOCore

/// One whole HTTP/1.1 message, parsed for display and comparison (RFC 9112).
///
/// ```
/// POST /echo HTTP/1.1\r\n                 startLine "POST /echo HTTP/1.1", method "POST", target "/echo"
/// Host: a\r\n                             headers [("Host", "a"), ("Transfer-Encoding", "chunked")]
/// Transfer-Encoding: chunked\r\n
/// \r\n
/// 3;ext=1\r\nabc\r\n0\r\n                 body "abc" (de-chunked, extensions dropped)
/// Checksum: 9\r\n\r\n                     trailers [("Checksum", "9")]
/// ```
///
/// The input is exactly one message, as `FrameDecoder(framing: .http)` cuts it: bytes after the
/// message's end are an error, and so is a body shorter than its `Content-Length`. Off the load
/// path (send, listen's echo, the views, the replay verifier): it allocates a `String` per field.
///
/// Not errors: lines ending in a bare LF, and empty lines before the start line (RFC 9112 §2.2
/// lets a recipient accept both; the scanner passes such lines on with the message); a
/// response that ends where its head ends has an empty body whatever its headers say (the
/// answer to a HEAD request, cut so by the framer that knew the method); a response with
/// neither `Content-Length` nor chunked `Transfer-Encoding` takes every byte after its head.
/// Names and values are decoded as UTF-8, a malformed sequence as U+FFFD.
package struct HTTPMessage: Sendable, Equatable {
    /// The first line without its line end: `GET / HTTP/1.1` or `HTTP/1.1 200 OK`.
    package var startLine: String
    /// The header fields in the order received, names as written, values without surrounding blanks.
    package var headers: [(name: String, value: String)]
    /// The body as the sender meant it: chunk sizes, extensions and the last chunk removed.
    package var body: ByteBuffer
    /// The trailer fields of a chunked body (empty otherwise).
    package var trailers: [(name: String, value: String)]
    /// True for a response (the start line begins with `HTTP/`).
    package var isResponse: Bool
    /// A response's status code; 0 for a request.
    package var status: Int
    /// A response's reason phrase (may be empty); empty for a request.
    package var reason: String
    /// A request's method (`GET`); empty for a response.
    package var method: String
    /// A request's target (`/path?query`); empty for a response.
    package var target: String
    /// The `x` of `HTTP/1.x`.
    package var minorVersion: Int
    /// The body came chunked (`Transfer-Encoding` with `chunked` last).
    package var isChunked: Bool
    /// The message carried both `Transfer-Encoding` and `Content-Length` (RFC 9112 §6.3: the
    /// connection must close after it).
    package var hadConflictingFraming: Bool

    /// Parses `whole`, which holds exactly one message (its readable bytes; the buffer is not moved).
    ///
    /// - Throws: an error naming the byte offset and what is wrong there, for a malformed start
    ///   line, field, `Content-Length` or chunk, a body shorter than announced, or bytes after the end.
    package init(parsing whole: ByteBuffer) throws(SocketEngineError) {
        let parsed = whole.withUnsafeReadableBytes { bytes -> Result<HTTPMessageParser.Parsed, SocketEngineError> in
            var parser = HTTPMessageParser(bytes: bytes)
            do throws(SocketEngineError) {
                return .success(try parser.parse())
            } catch {
                return .failure(error)
            }
        }
        let layout: HTTPMessageParser.Parsed
        switch parsed {
        case .success(let value): layout = value
        case .failure(let error): throw error
        }
        startLine = layout.startLine
        headers = layout.headers
        trailers = layout.trailers
        isResponse = layout.isResponse
        status = layout.status
        reason = layout.reason
        method = layout.method
        target = layout.target
        minorVersion = layout.minorVersion
        isChunked = layout.isChunked
        hadConflictingFraming = layout.hadConflictingFraming
        body = Self.gather(layout.body, from: whole)
    }

    /// The body's pieces (offsets into `whole`'s readable bytes) in one buffer: a slice when there
    /// is one piece, a copy of them one after the other otherwise.
    private static func gather(_ pieces: [Range<Int>], from whole: ByteBuffer) -> ByteBuffer {
        let start = whole.readerIndex
        if pieces.count == 1, let piece = pieces.first,
            let slice = whole.getSlice(at: start + piece.lowerBound, length: piece.count)
        {
            return slice
        }
        var body = ByteBuffer()
        body.reserveCapacity(pieces.reduce(0) { $0 + $1.count })
        for piece in pieces {
            if let slice = whole.getSlice(at: start + piece.lowerBound, length: piece.count) {
                body.writeImmutableBuffer(slice)
            }
        }
        return body
    }

    /// The first header named `name` (compared without case), or nil.
    package func value(of name: String) -> String? {
        headers.first { Self.sameName($0.name, name) }?.value
    }

    /// Every header named `name` (compared without case), in order.
    package func values(of name: String) -> [String] {
        headers.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// The comma-separated tokens of every `Connection` header, lowercased.
    package var connectionOptions: [String] {
        values(of: "connection").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingBlanks.lowercased() }
    }

    /// Whether the connection stays open after this message (RFC 9112 §9.3): HTTP/1.1 unless
    /// `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`; never after a message
    /// that had both `Transfer-Encoding` and `Content-Length`, nor after a response whose body
    /// runs until the close.
    package var keepAlive: Bool {
        let options = connectionOptions
        if options.contains("close") || hadConflictingFraming { return false }
        if minorVersion == 0 && !options.contains("keep-alive") { return false }
        if isResponse && !Self.hasNoBody(status: status) && !isChunked && value(of: "content-length") == nil
            && body.readableBytes > 0
        {
            return false
        }
        return true
    }

    /// Whether the whole message `frame` (as `FrameDecoder(framing: .http)` cuts it) is a HEAD
    /// request; nil when it is a response. Looks at the first bytes only (empty lines before
    /// the start line skipped): the views tell the other direction's decoder with it
    /// (``FrameDecoder/expectResponse(toHEAD:)``).
    package static func requestIsHEAD(_ frame: ByteBuffer) -> Bool? {
        let view = frame.readableBytesView
        guard let start = view.firstIndex(where: { $0 != 0x0D && $0 != 0x0A }) else { return false }
        let front = view[start...]
        if front.starts(with: "HTTP/".utf8) { return nil }
        return front.starts(with: "HEAD ".utf8)
    }

    /// 1xx, 204 and 304 responses never have a body (RFC 9112 §6.3 rule 1).
    package static func hasNoBody(status: Int) -> Bool {
        (100..<200).contains(status) || status == 204 || status == 304
    }

    /// Field names compare without ASCII case.
    static func sameName(_ left: String, _ right: String) -> Bool {
        left.utf8.count == right.utf8.count && left.lowercased() == right.lowercased()
    }

    /// Start lines, fields in order, bodies and trailers are equal.
    package static func == (left: HTTPMessage, right: HTTPMessage) -> Bool {
        left.startLine == right.startLine
            && left.headers.elementsEqual(right.headers) { $0.name == $1.name && $0.value == $1.value }
            && left.body == right.body
            && left.trailers.elementsEqual(right.trailers) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The error every malformed message raises: `malformed HTTP message at byte N: why`.
    static func malformed(at offset: Int, _ why: String) -> SocketEngineError {
        SocketEngineError(.httpProtocol, "malformed HTTP message at byte \(offset): \(why)")
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingBlanks: Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
