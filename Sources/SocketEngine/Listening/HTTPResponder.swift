import NIOCore
import NIOHTTP1

/// `listen http://`: one response per request, made on the event loop. The request is a whole
/// HTTP/1.1 message as ``FrameDecoder`` cuts it (``Framing/http``).
///
/// - `respond(body)`: the template's status and headers, `Content-Length`, then the body (none
///   after a HEAD, the length still given);
/// - `echo`: the request's body, de-chunked, with its `Content-Type`;
/// - anything else (print): an empty 200 (the template's status).
///
/// A request with `Connection: close`, or HTTP/1.0 without keep-alive, gets its answer and the
/// connection ends. Every answer is reported as ``ListenEvent/httpRequest(_:method:target:status:bodyBytes:)``.
package struct HTTPResponder: Sendable {
    let mode: ListenMode
    let template: HTTPResponseTemplate
    let client: ClientInfo
    let onAnswer: @Sendable (ListenEvent) -> Void

    /// Answers for `client` in `mode`, around `template`; `onAnswer` hears of each answer.
    package init(mode: ListenMode, template: HTTPResponseTemplate, client: ClientInfo, onAnswer: @escaping @Sendable (ListenEvent) -> Void) {
        self.mode = mode
        self.template = template
        self.client = client
        self.onAnswer = onAnswer
    }

    /// The answer to one whole request.
    package func answer(_ request: ByteBuffer) -> Answer {
        guard let message = try? HTTPMessage(parsing: request), !message.isResponse else {
            return Answer(refusal(status: 400), closeAfter: true)
        }
        let keepAlive = message.keepAlive
        let isHTTP10 = message.minorVersion == 0
        var body = ByteBuffer()
        var contentType: String?
        switch mode {
        case .respond(let canned):
            body = canned
        case .echo:
            body = message.body
            contentType = message.value(of: "content-type")
        case .print, .discard, .broadcast:
            break
        }
        var extra: [(name: String, value: String)] = []
        if let contentType { extra.append(("Content-Type", contentType)) }
        if !keepAlive {
            extra.append(("Connection", "close"))
        } else if isHTTP10 {
            extra.append(("Connection", "keep-alive"))
        }
        if HTTPMessage.hasNoBody(status: template.status) { body = ByteBuffer() }
        var bytes = head(status: template.status, contentLength: body.readableBytes, extra: extra, own: template.headers)
        if message.method != "HEAD" { bytes.writeImmutableBuffer(body) }
        onAnswer(.httpRequest(client, method: message.method, target: message.target, status: template.status, bodyBytes: body.readableBytes))
        return Answer(bytes, closeAfter: !keepAlive)
    }

    /// `100 Continue` for a request whose head has arrived whole, without its body, and asks
    /// for it (`Expect: 100-continue`, HTTP/1.1); nil otherwise. `start` is the request as far
    /// as it has come.
    package func interim(_ start: ByteBuffer) -> ByteBuffer? {
        let view = start.readableBytesView
        let end = "\r\n\r\n".utf8
        guard let headEnd = view.firstRange(of: end) else { return nil }
        let head = String(decoding: view[view.startIndex..<headEnd.lowerBound], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let requestLine = lines.first, requestLine.hasSuffix(" HTTP/1.1") else { return nil }
        let asks = lines.dropFirst().contains { line in
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "expect" else { return false }
            return line[line.index(after: colon)...].lowercased().contains("100-continue")
        }
        return asks ? ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\n") : nil
    }

    /// The last words to a request that cannot be read: 413 for one over the size limit, 400
    /// for one that breaks HTTP/1.1; nil for other errors (a connection error: nothing to say).
    package func lastWords(for error: SocketEngineError) -> ByteBuffer? {
        switch error.code {
        case .frameTooLarge: return refusal(status: 413)
        case .httpProtocol: return refusal(status: 400)
        default: return nil
        }
    }

    /// A refusal: the status and an empty body, the connection closes.
    private func refusal(status: Int) -> ByteBuffer {
        onAnswer(.httpRequest(client, method: "-", target: "-", status: status, bodyBytes: 0))
        return head(status: status, contentLength: 0, extra: [("Connection", "close")], own: [])
    }

    /// A response head: status line, `Date`, `Content-Length`, `extra`, then `own` (the
    /// template's), each of `own` replacing one of the same name written by the server.
    private func head(status: Int, contentLength: Int, extra: [(name: String, value: String)], own: [(name: String, value: String)]) -> ByteBuffer {
        var headers: [(name: String, value: String)] = [
            ("Date", HTTPDate.format(secondsSinceEpoch: template.wallClock()))
        ]
        // 1xx and 204 carry no Content-Length (RFC 9110 §8.6).
        if !(100..<200).contains(status) && status != 204 { headers.append(("Content-Length", String(contentLength))) }
        headers += extra
        let ownNames = Set(own.map { $0.name.lowercased() })
        headers.removeAll { ownNames.contains($0.name.lowercased()) }
        headers += own
        let reason = HTTPResponseStatus(statusCode: status).reasonPhrase
        var text = "HTTP/1.1 \(status) \(reason)\r\n"
        for header in headers { text += "\(header.name): \(header.value)\r\n" }
        text += "\r\n"
        return ByteBuffer(string: text)
    }
}
