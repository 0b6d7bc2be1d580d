/// `send http://`: one request and the final response to it, as `-v`, `--json` and `--fail`
/// see them.
public struct HTTPExchangeLine: Sendable {
    /// The request head as sent (request line and headers, CRLF-separated, ending in an empty line).
    public var request: String
    /// The response heads in order: interim ones (1xx) first, then the final one.
    public var responses: [Head]
    /// The final response's body length, de-chunked.
    public var bodyBytes: Int

    /// One response head.
    public struct Head: Sendable {
        /// `HTTP/1.1 200 OK`.
        public var statusLine: String
        /// The status code.
        public var status: Int
        /// The header fields in order, as received.
        public var headers: [(name: String, value: String)]
    }

    /// The final response's status.
    public var status: Int { responses.last?.status ?? 0 }
    /// The final response's head.
    public var final: Head? { responses.last }
}
