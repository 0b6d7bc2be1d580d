/// One whole HTTP/1.1 message of the `--decode http` view: its start line, its header fields in
/// order, and how long its body was and how its end was found. Made by ``HTTPStreamDecoder``
/// when the message ends (as tshark shows a message on the packet that completes it).
package struct HTTPMessageSummary: Equatable, Sendable {
    /// How the body's end was found (RFC 9112 §6.3).
    package enum Framing: Equatable, Sendable {
        /// No body (a request without a length, a response to HEAD, 1xx, 204, 304).
        case none
        /// `Content-Length`.
        case contentLength
        /// `Transfer-Encoding: chunked` (the length is the de-chunked body's).
        case chunked
        /// A response with neither: it ran until the server closed.
        case untilClose
    }

    /// A response (its start line begins with `HTTP/`); false for a request.
    package var isResponse: Bool
    /// A request's method, target and version (`GET`, `/index.html`, `HTTP/1.1`); a
    /// response's version, status code and reason (`HTTP/1.1`, `200`, `OK`): the start line's
    /// three parts, the last one possibly empty.
    package var startLine: [[UInt8]]
    /// The header fields, in order, names as sent, values without surrounding spaces.
    package var fields: [HTTP2HeaderField]
    /// How the body's end was found.
    package var framing: Framing
    /// The body's length (de-chunked).
    package var bodyLength: Int

    /// A response's status code (0 for a request).
    package var status: Int {
        guard isResponse, startLine.count > 1 else { return 0 }
        return Int(String(decoding: startLine[1], as: UTF8.self)) ?? 0
    }

    /// The head's start line and fields, read from the bytes of a whole head (start line,
    /// fields, empty line) that ``HTTPMessageScanner`` accepted.
    init(head: ArraySlice<UInt8>, framing: Framing, bodyLength: Int) {
        var lines = head.split(separator: 0x0A, omittingEmptySubsequences: false).map { line -> ArraySlice<UInt8> in
            line.last == 0x0D ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        let first = lines.first ?? []
        isResponse = first.starts(with: Array("HTTP/".utf8))
        let parts = first.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        startLine = parts.map(Array.init)
        fields = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: 0x3A) else { return nil }
            let value = line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
            var end = value.endIndex
            while end > value.startIndex, value[end - 1] == 0x20 || value[end - 1] == 0x09 { end -= 1 }
            return HTTP2HeaderField(name: Array(line[..<colon]), value: Array(value[..<end]))
        }
        self.framing = framing
        self.bodyLength = bodyLength
    }
}

/// The `--decode http` line and JSON object:
///
/// ```
/// HTTP request GET /index.html HTTP/1.1 | Host: localhost, User-Agent: curl/8.14.1, Accept: */* | no body
/// HTTP response HTTP/1.1 200 OK | Server: nginx, Content-Length: 615 | body 615 bytes (Content-Length)
/// HTTP response HTTP/1.1 200 OK | Transfer-Encoding: chunked | body 2048 bytes (chunked)
/// {"proto":"http","type":"response","version":"HTTP/1.1","status":200,"reason":"OK",
///  "headers":[["Server","nginx"],…],"body_framing":"content-length","body_length":615}
/// ```
extension HTTPMessageSummary {
    func appendText(into out: inout [UInt8]) {
        out.append(isResponse ? "HTTP response " : "HTTP request ")
        for (index, part) in startLine.enumerated() {
            if index > 0 { out.append(" ") }
            out.appendEscapedText(part, limit: ViewItem.headerTextLimit)
        }
        var separator: StaticString = " | "
        for field in fields {
            out.append(separator)
            separator = ", "
            out.appendEscapedText(field.name, limit: ViewItem.headerTextLimit)
            out.append(": ")
            out.appendEscapedText(field.value, limit: ViewItem.headerTextLimit)
        }
        switch framing {
        case .none:
            out.append(" | no body")
            return
        case .contentLength, .chunked, .untilClose:
            out.append(" | body ")
            out.appendDecimal(bodyLength)
            out.append(bodyLength == 1 ? " byte (" : " bytes (")
        }
        switch framing {
        case .contentLength: out.append("Content-Length)")
        case .chunked: out.append("chunked)")
        case .untilClose, .none: out.append("until close)")
        }
    }

    func appendJSON(into out: inout [UInt8]) {
        out.append(isResponse ? "{\"proto\":\"http\",\"type\":\"response\"" : "{\"proto\":\"http\",\"type\":\"request\"")
        let names: [StaticString] = isResponse ? [",\"version\":", ",\"status\":", ",\"reason\":"] : [",\"method\":", ",\"target\":", ",\"version\":"]
        for (index, name) in names.enumerated() {
            out.append(name)
            let part = index < startLine.count ? startLine[index] : []
            if isResponse && index == 1 { out.appendDecimal(status) } else { out.appendJSONString(part) }
        }
        out.append(",\"headers\":[")
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(",") }
            out.append("[")
            out.appendJSONString(field.name)
            out.append(",")
            out.appendJSONString(field.value)
            out.append("]")
        }
        out.append("],\"body_framing\":")
        switch framing {
        case .none: out.append("\"none\"")
        case .contentLength: out.append("\"content-length\"")
        case .chunked: out.append("\"chunked\"")
        case .untilClose: out.append("\"until-close\"")
        }
        out.append(",\"body_length\":")
        out.appendDecimal(bodyLength)
        out.append("}")
    }
}
