import NIOCore

/// `send http://`: each message (or one request without a body) goes out as an HTTP/1.1
/// request and waits for its final response, one at a time.
extension Exchange {
    /// Sends the round's requests and reads each final response; `onResponse` gets each final
    /// response's body, de-chunked. Interim (1xx) responses are kept in the line, not passed on.
    func exchangeHTTP(
        _ connection: Connection,
        spec: HTTPRequestSpec,
        deadline: EngineClock.Instant,
        clock: EngineClock,
        sendStarted: inout EngineClock.Instant?,
        result: inout ExchangeResult,
        onResponse: @Sendable (ByteBuffer) async throws -> Void
    ) async throws {
        let bodies: [ByteBuffer?] = configuration.messages.isEmpty ? [nil] : configuration.messages
        let timeout = configuration.timeout
        let label = connection.label
        for (index, body) in bodies.enumerated() {
            let head = spec.head(to: configuration.endpoint, bodyLength: body?.readableBytes)
            let isHEAD = spec.method(hasBody: body != nil) == "HEAD"
            var request = ByteBuffer(string: head)
            if let body { request.writeImmutableBuffer(body) }
            let wire = request
            if sendStarted == nil { sendStarted = clock.now }
            try await withDeadline(deadline, on: clock, expired: {
                SocketEngineError(.writeTimeout, "\(label): write not completed within \(timeout.formatted)")
            }) {
                try await connection.write(wire)
            }
            result.messagesSent += 1
            var line = HTTPExchangeLine(request: head, responses: [], bodyBytes: 0)
            while true {
                let maximum = configuration.maximumFrameSize
                let frame = try await withDeadline(deadline, on: clock, expired: {
                    SocketEngineError(.readTimeout, "\(label): timed out after \(timeout.formatted) waiting for the response to request \(index + 1)")
                }) {
                    try await connection.read(.httpResponse(toHEAD: isHEAD, maxFrameSize: maximum))
                }
                guard let frame else {
                    throw SocketEngineError(.connectionClosed, "\(label): connection closed before the response to request \(index + 1)")
                }
                if result.firstByte == nil, let sendStarted { result.firstByte = clock.elapsed(since: sendStarted) }
                let message = try HTTPMessage(parsing: frame)
                line.responses.append(HTTPExchangeLine.Head(statusLine: message.startLine, status: message.status, headers: message.headers))
                // 1xx but 101 is not the answer: the final one follows.
                if (100..<200).contains(message.status) && message.status != 101 { continue }
                line.bodyBytes = message.body.readableBytes
                result.http.append(line)
                result.responsesReceived += 1
                keep(message.body, in: &result)
                try await onResponse(message.body)
                if !message.keepAlive && index + 1 < bodies.count {
                    throw SocketEngineError(
                        .connectionClosed, "\(label): the server closed the connection after response \(index + 1) of \(bodies.count)")
                }
                break
            }
        }
    }
}
