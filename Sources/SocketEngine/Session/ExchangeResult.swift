import NIOCore

/// The outcome of an exchange, success or not, with its timings.
public struct ExchangeResult: Sendable {
    public var report: ConnectReport?
    public var localAddress: SocketAddress?
    public var remoteAddress: SocketAddress?
    public var messagesSent = 0
    public var responsesReceived = 0
    public var bytesSent = 0
    public var bytesReceived = 0
    /// Responses kept for the caller (see ``ExchangeConfiguration/collectLimit``).
    public var responses: [ByteBuffer] = []
    /// True when responses arrived beyond the collect limit and were not kept.
    public var responsesTruncated = false
    /// From the first message written to the first response byte.
    public var firstByte: Duration?
    public var total: Duration = .zero
    public var error: SocketEngineError?

    public var succeeded: Bool { error == nil }
}
