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

    /// True when no error ended the exchange.
    public var succeeded: Bool { error == nil }
}
