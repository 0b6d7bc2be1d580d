import NIOCore

/// `send --correlate`: each message waits for its own reply, found by key.
extension Exchange {
    /// The key of each message (``ExchangeConfiguration/correlate``), checked before anything
    /// connects: every message needs one, of its own, and the replies must come as messages.
    /// Empty without `--correlate`.
    func messageKeys() throws(SocketEngineError) -> [String] {
        guard let correlate = configuration.correlate else { return [] }
        if configuration.responses != 1 {
            throw SocketEngineError(.invalidConfiguration, "\(.correlate) waits for each message's own reply: drop \(.responses)")
        }
        if configuration.readsUntilClose {
            throw SocketEngineError(
                .invalidConfiguration, "\(.correlate) needs \(.framing) (line, crlf, null, length:N, fixed:N) to cut the replies into messages")
        }
        var keys: [String] = []
        for (index, message) in configuration.messages.enumerated() {
            guard let key = correlate(message) else {
                throw SocketEngineError(.invalidConfiguration, "\(.correlate) finds no key in message \(index + 1)")
            }
            if let other = keys.firstIndex(of: key) {
                throw SocketEngineError(
                    .invalidConfiguration, "\(.correlate): messages \(other + 1) and \(index + 1) have the same key '\(key)', so their replies cannot be told apart")
            }
            keys.append(key)
        }
        return keys
    }

    /// Reads responses until every message of the round has the one with its key, within the
    /// exchange's deadline. Replies go to `onResponse` in the order of the messages (a reply
    /// that comes early waits for those before it); responses that answer no waiting message
    /// are counted as unmatched.
    func readOwnReplies(
        _ connection: Connection,
        keys: [String],
        sentAt: [EngineClock.Instant],
        correlate: @Sendable (ByteBuffer) -> String?,
        deadline: EngineClock.Instant,
        clock: EngineClock,
        sendStarted: EngineClock.Instant?,
        result: inout ExchangeResult,
        onResponse: @Sendable (ByteBuffer) async throws -> Void
    ) async throws {
        var waiting = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($0.element, $0.offset) })
        var replies = [(ByteBuffer, Duration)?](repeating: nil, count: keys.count)
        var delivered = 0
        while !waiting.isEmpty {
            let missing = keys.filter { waiting[$0] != nil }
            let (framing, maximumFrameSize) = (configuration.framing, configuration.maximumFrameSize)
            let frame = try await withDeadline(deadline, on: clock, expired: { [timeout = configuration.timeout, label = connection.label, count = keys.count] in
                SocketEngineError(
                    .readTimeout,
                    "\(label): timed out after \(timeout.formatted) waiting for the replies with key \(Self.list(missing)) (\(count - missing.count) of \(count) answered)")
            }) {
                try await connection.readFrame(framing, maxFrameSize: maximumFrameSize)
            }
            guard let frame else {
                throw SocketEngineError(
                    .connectionClosed, "\(connection.label): connection closed before the replies with key \(Self.list(missing)) (\(keys.count - missing.count) of \(keys.count) answered)")
            }
            if result.firstByte == nil, let sendStarted { result.firstByte = clock.elapsed(since: sendStarted) }
            result.responsesReceived += 1
            guard let key = correlate(frame), let index = waiting.removeValue(forKey: key), index < replies.count, index < sentAt.count else {
                result.unmatched += 1
                continue
            }
            replies[index] = (frame, clock.elapsed(since: sentAt[index]))
            while delivered < replies.count, let (reply, latency) = replies[delivered] {
                result.correlated.append(ExchangeResult.CorrelatedReply(key: keys[delivered], latency: latency))
                keep(reply, in: &result)
                try await onResponse(reply)
                delivered += 1
            }
        }
    }

    /// `1, 2 and 3` (the first five).
    static func list(_ keys: [String]) -> String {
        let shown = keys.prefix(5).map { "'\($0)'" }
        let more = keys.count > 5 ? " and \(keys.count - 5) more" : ""
        return shown.joined(separator: ", ") + more
    }
}
