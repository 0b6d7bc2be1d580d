import NIOCore

/// The outcome of an exchange, success or not, with its timings.
public struct ExchangeResult: Sendable {
    /// How the connection was made; nil when connecting failed.
    public var report: ConnectReport?
    /// The connection's local address; nil when connecting failed.
    public var localAddress: SocketAddress?
    /// The peer's address; nil when connecting failed.
    public var remoteAddress: SocketAddress?
    /// Messages written, counting each round.
    public var messagesSent = 0
    /// Responses read; reading until the peer closes counts as one.
    public var responsesReceived = 0
    /// Bytes handed to the kernel, framing included.
    public var bytesSent = 0
    /// Bytes received, framing included.
    public var bytesReceived = 0
    /// Responses kept for the caller (see ``ExchangeConfiguration/collectLimit``).
    public var responses: [ByteBuffer] = []
    /// True when responses arrived beyond the collect limit and were not kept.
    public var responsesTruncated = false
    /// From the first message written to the first response byte.
    public var firstByte: Duration?
    /// From the start of connecting to the end of the exchange (or to the failure).
    public var total: Duration = .zero
    /// Why the exchange failed; nil when it succeeded.
    public var error: SocketEngineError?
    /// True when ``Exchange/stop()`` ended the exchange before it was done (SIGINT, SIGTERM):
    /// the counts and responses are those of the part that ran.
    public var interrupted = false
    /// `--correlate`: each message's reply, in the order the messages were sent (round after
    /// round), with its key and the time from its message's write to its arrival.
    public var correlated: [CorrelatedReply] = []
    /// `--correlate`: responses that answered no waiting message (no key, or a key no message
    /// of the round was waiting for): pushed by the server, or repeated.
    public var unmatched = 0

    /// One message's own reply (``ExchangeConfiguration/correlate``).
    public struct CorrelatedReply: Sendable {
        /// The key the message and its reply share.
        public var key: String
        /// From the message's write to its reply's arrival.
        public var latency: Duration
    }

    /// `--correlate`: one line for `-v` — each reply's key and latency, and the unmatched
    /// responses (nil without `--correlate`).
    public var correlationSummary: String? {
        guard !correlated.isEmpty || unmatched > 0 else { return nil }
        let replies = correlated.prefix(20).map { "\($0.key) in \($0.latency.formatted)" }.joined(separator: ", ")
        let more = correlated.count > 20 ? " and \(correlated.count - 20) more" : ""
        return "replies by key: \(replies.isEmpty ? "none" : replies)\(more); \(unmatched) unmatched"
    }

    /// `send http://`: each request with its response heads, in order.
    public var http: [HTTPExchangeLine] = []

    /// True when the exchange ran to its end with no error.
    public var succeeded: Bool { error == nil && !interrupted }
}
