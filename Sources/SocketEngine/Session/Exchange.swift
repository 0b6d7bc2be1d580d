import Clocks
import NIOCore

/// Connects, sends framed messages, and collects the expected responses under a timeout: the
/// engine side of `sockctl send`, "curl for sockets".
///
/// The timeout is one budget for everything after the connection is up, kept on the
/// connection's ``EngineClock`` (``ConnectOptions/clock``): a test's virtual clock decides
/// exactly when it runs out.
///
/// ``stop()`` (SIGINT) ends a running exchange early and in order: it stops sending and
/// waiting, closes the connection and returns what it has, ``ExchangeResult/interrupted``.
public struct Exchange: Sendable {
    /// What is sent, where, and how many responses are awaited.
    public let configuration: ExchangeConfiguration
    /// Shared by every copy of this exchange.
    private let stopRequest = StopRequest()

    /// An exchange to run with ``run(onResponse:)``.
    public init(configuration: ExchangeConfiguration) {
        self.configuration = configuration
    }

    /// Ends a running exchange early (see the type's discussion); safe to call at any time.
    public func stop() {
        stopRequest.request()
    }

    /// Runs the exchange; `onResponse` sees each response (or, when reading until close, each
    /// chunk) as it arrives. Never throws: a failure is in ``ExchangeResult/error``.
    public func run(onResponse: @escaping @Sendable (ByteBuffer) async throws -> Void = { _ in }) async -> ExchangeResult {
        await stopRequest.cancelling { await exchange(onResponse: onResponse) }
    }

    /// The exchange, in a task that ``stop()`` cancels.
    private func exchange(onResponse: @Sendable (ByteBuffer) async throws -> Void) async -> ExchangeResult {
        let clock = configuration.connect.clock
        let started = clock.now
        var result = ExchangeResult()
        var keys: [String] = []
        do {
            keys = try messageKeys()
        } catch {
            result.error = error
            return result
        }
        let connection: Connection
        do {
            let attempt = Task { [configuration] in try await Connector(endpoint: configuration.endpoint, options: configuration.connect).connect() }
            guard let (opened, report) = try await stopRequest.value(of: attempt, abandoned: { await $0.0.close() }) else {
                result.interrupted = true
                result.total = clock.elapsed(since: started)
                return result
            }
            connection = opened
            result.report = report
            result.localAddress = opened.localAddress
            result.remoteAddress = opened.remoteAddress
        } catch {
            result.error = SocketEngineError.wrapping(error, context: "connect to \(configuration.endpoint)")
            result.total = clock.elapsed(since: started)
            return result
        }

        let deadline = clock.now.advanced(by: configuration.timeout)
        var sendStarted: EngineClock.Instant?
        /// While a message is being written: the connection's bytes sent once it has gone whole.
        var unconfirmed: Int?
        do {
            let isDatagram = connection.transport.isMessageOriented
            for round in 1...max(1, configuration.rounds) {
                if let http = configuration.http {
                    try await exchangeHTTP(
                        connection, spec: http, deadline: deadline, clock: clock, sendStarted: &sendStarted, result: &result, onResponse: onResponse)
                    continue
                }
                var sentAt: [EngineClock.Instant] = []
                for message in configuration.messages {
                    let wire = isDatagram ? message : try configuration.framing.encode(message)
                    if sendStarted == nil { sendStarted = clock.now }
                    sentAt.append(clock.now)
                    unconfirmed = connection.statistics.bytesSent + wire.readableBytes
                    try await withDeadline(deadline, on: clock, expired: { [timeout = configuration.timeout, label = connection.label] in
                        SocketEngineError(.writeTimeout, "\(label): write not completed within \(timeout.formatted)")
                    }) {
                        try await connection.write(wire)
                    }
                    unconfirmed = nil
                    result.messagesSent += 1
                }
                if let correlate = configuration.correlate {
                    try await readOwnReplies(
                        connection, keys: keys, sentAt: sentAt, correlate: correlate, deadline: deadline, clock: clock, sendStarted: sendStarted,
                        result: &result, onResponse: onResponse)
                    continue
                }
                if configuration.readsUntilClose {
                    if round == configuration.rounds {
                        try await readUntilClose(connection, deadline: deadline, clock: clock, sendStarted: sendStarted, result: &result, onResponse: onResponse)
                    }
                    continue
                }
                for index in 1...max(1, configuration.responses) where configuration.responses > 0 {
                    let (framing, maximumFrameSize) = (configuration.framing, configuration.maximumFrameSize)
                    let frame = try await withDeadline(deadline, on: clock, expired: { [configuration, label = connection.label] in
                        SocketEngineError(
                            .readTimeout,
                            "\(label): timed out after \(configuration.timeout.formatted) waiting for response \(index) of \(configuration.responses)"
                        )
                    }) {
                        try await connection.readFrame(framing, maxFrameSize: maximumFrameSize)
                    }
                    guard let frame else {
                        throw SocketEngineError(
                            .connectionClosed,
                            "\(connection.label): connection closed after \(index - 1) of \(configuration.responses) responses"
                        )
                    }
                    if result.firstByte == nil, let sendStarted { result.firstByte = clock.elapsed(since: sendStarted) }
                    result.responsesReceived += 1
                    keep(frame, in: &result)
                    try await onResponse(frame)
                }
            }
            try await connection.closeWrite()
        } catch is CancellationError where stopRequest.isRequested {
            // A stop can cut in after a message's bytes were all written but before its write
            // returned: it was sent, as the byte count says.
            if let unconfirmed, connection.statistics.bytesSent >= unconfirmed { result.messagesSent += 1 }
            result.interrupted = true
        } catch {
            result.error = SocketEngineError.wrapping(error, context: connection.label)
        }
        await connection.close()
        result.bytesSent = connection.statistics.bytesSent
        result.bytesReceived = connection.statistics.bytesReceived
        result.total = clock.elapsed(since: started)
        return result
    }

    private func readUntilClose(
        _ connection: Connection,
        deadline: EngineClock.Instant,
        clock: EngineClock,
        sendStarted: EngineClock.Instant?,
        result: inout ExchangeResult,
        onResponse: @Sendable (ByteBuffer) async throws -> Void
    ) async throws {
        try await connection.closeWrite()
        guard configuration.responses > 0 else { return }
        var collected = ByteBuffer()
        while true {
            let chunk = try await withDeadline(deadline, on: clock, expired: { [timeout = configuration.timeout, label = connection.label] in
                SocketEngineError(.readTimeout, "\(label): timed out after \(timeout.formatted) waiting for the peer to close")
            }) {
                try await connection.read(.available(maxLength: 1 << 20))
            }
            guard let chunk else { break }
            if result.firstByte == nil, let sendStarted { result.firstByte = clock.elapsed(since: sendStarted) }
            if configuration.collectLimit > 0 {
                if collected.readableBytes + chunk.readableBytes <= configuration.collectLimit {
                    collected.writeImmutableBuffer(chunk)
                } else {
                    result.responsesTruncated = true
                }
            }
            try await onResponse(chunk)
        }
        result.responsesReceived = 1
        if configuration.collectLimit > 0 { result.responses.append(collected) }
    }

    func keep(_ frame: ByteBuffer, in result: inout ExchangeResult) {
        guard configuration.collectLimit > 0 else { return }
        let kept = result.responses.reduce(0) { $0 + $1.readableBytes }
        if kept + frame.readableBytes <= configuration.collectLimit {
            result.responses.append(frame)
        } else {
            result.responsesTruncated = true
        }
    }
}
