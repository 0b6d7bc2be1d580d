import SocketEngine

/// What an HTTP load test sends to each `http://` or `https://` target: the method, the headers
/// and the body; the request line and `Host` come from the target.
///
/// ```
/// GET /item/{{seq}} HTTP/1.1        the target's path and query ({{seq}}/{{conn}} filled in)
/// Host: 127.0.0.1:8080              the target's host, and its port unless 80 (443 for https)
/// User-Agent: sockctl/1.2.0         unless a header gives one (an empty one: none)
/// X-Trace: {{conn}}                 the headers, in order
/// Content-Length: 11                with a body only: its length with this message's numbers
///
/// {"id":{{seq}}}                    the body
/// ```
public struct HTTPRequestTemplate: Sendable {
    /// The method (a token: `GET`, `POST`, `HEAD`…).
    public var method: String
    /// Headers, in order, as `name` and `value`.
    public var headers: [(name: String, value: String)]
    /// The body with its placeholders; nil: no body (and no Content-Length).
    public var body: [UInt8]?
    /// The `User-Agent` sent unless ``headers`` has one.
    public var userAgent: String

    /// A request of `method` with `headers` and `body`.
    public init(method: String = "GET", headers: [(name: String, value: String)] = [], body: [UInt8]? = nil, userAgent: String = "sockctl") {
        self.method = method
        self.headers = headers
        self.body = body
        self.userAgent = userAgent
    }

    /// The request is a HEAD: its response has no body whatever its headers say.
    package var isHEAD: Bool { method == "HEAD" }

    /// The message template of this request to `endpoint` (framing `http`): one prebuilt buffer
    /// when nothing in it changes, else rendered per message with the Content-Length computed.
    /// Throws ``LoadGenError/Code/invalidMessage`` for a method that is not a token, a header
    /// that breaks the message, or a Content-Length or Transfer-Encoding header (the length is
    /// computed from the body).
    package func template(for endpoint: Endpoint) throws(LoadGenError) -> MessageTemplate {
        guard HTTPRequestLines.isToken(method) else {
            throw LoadGenError(.invalidMessage, "invalid HTTP \(.method) '\(method)': not a token such as GET or POST")
        }
        let target = endpoint.resource.isEmpty ? "/" : endpoint.resource
        guard !target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw LoadGenError(.invalidMessage, "invalid HTTP request target '\(target)': no spaces or control characters")
        }
        for (name, value) in headers {
            let lowered = name.lowercased()
            guard HTTPRequestLines.isToken(name) else {
                throw LoadGenError(.invalidMessage, "invalid HTTP \(.header) name '\(name)'")
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw LoadGenError(.invalidMessage, "invalid HTTP \(.header) '\(name)': its value holds a line break")
            }
            if lowered == "content-length" || lowered == "transfer-encoding" {
                throw LoadGenError(.invalidMessage, "HTTP \(.header) '\(name)' is not set by hand: the Content-Length is computed from the body")
            }
        }
        // Placeholders may be in the target and in header values as well as in the body.
        let head = HTTPRequestLines.lines(method: method, target: target, to: endpoint, userAgent: userAgent, headers: headers)
        var parts: [MessageTemplate.Part]
        var shape = (literalBytes: 0, sequences: 0, connections: 0)
        if let body {
            parts = MessageTemplate.parse(Array((head + "Content-Length: ").utf8))
            let bodyParts = MessageTemplate.parse(body).filter { $0 != .literal([]) }
            for part in bodyParts {
                switch part {
                case .literal(let bytes): shape.literalBytes += bytes.count
                case .sequence: shape.sequences += 1
                case .connection: shape.connections += 1
                case .contentLength: break
                }
            }
            if shape.sequences == 0 && shape.connections == 0 {
                parts.append(.literal(Array("\(shape.literalBytes)\r\n\r\n".utf8)))
            } else {
                parts.append(.contentLength)
                parts.append(.literal(Array("\r\n\r\n".utf8)))
            }
            parts += bodyParts
        } else {
            parts = MessageTemplate.parse(Array((head + "\r\n").utf8))
        }
        // Adjacent literals joined: fewer writes per message.
        var joined: [MessageTemplate.Part] = []
        for part in parts {
            if case .literal(let bytes) = part, case .literal(let previous)? = joined.last {
                joined[joined.count - 1] = .literal(previous + bytes)
            } else {
                joined.append(part)
            }
        }
        return MessageTemplate(parts: joined, framing: .http, bodyShape: shape)
    }
}
