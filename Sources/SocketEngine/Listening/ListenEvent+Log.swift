extension ListenEvent {
    /// The client-log line of a `listen` event. `printMode`: datagram lines are always shown
    /// (the listener prints what it receives), otherwise only with `-v`.
    public func logLine(printMode: Bool) -> LogLine {
        switch self {
        case .clientConnected(let client):
            let handshake = client.webSocket.map { " (\($0.summary))" } ?? ""
            return .note("client \(client.id) connected from \(client.peer)\(handshake)")
        case .clientDisconnected(let client, let bytesIn, let bytesOut, let duration, let error):
            let reason: SettingText = error.map { ": \($0.text)" } ?? ""
            return .note("client \(client.id) from \(client.peer) disconnected after \(duration.formatted) (\(plural(bytesIn, "byte")) in, \(plural(bytesOut, "byte")) out)\(reason)")
        case .rejected(let peer, let reason):
            return .note("refused \(peer): \(reason)")
        case .datagram(let peer, let bytes):
            return LogLine(printMode ? .note : .event, "datagram from \(peer), \(plural(bytes, "byte"))")
        case .inputRejected(let error):
            return .warning(error.text)
        case .clientSecured(let client, let report):
            return .event("client \(client.id) TLS: \(report.summary)")
        case .httpRequest(let client, let method, let target, let status, let bodyBytes):
            return .note("\(client.peer) \(method) \(target) -> \(status) (\(plural(bodyBytes, "byte")))")
        case .childStarted(let client, let pid):
            return .event("client \(client.id): command started (pid \(pid))")
        case .childEnded(let client, let outcome):
            return outcome.logLine(subject: "client \(client.id): command")
        case .messagesDropped(let client, let count):
            return .warning("client \(client.id) (\(client.peer)) is not keeping up: \(plural(count, "broadcast message")) dropped")
        }
    }
}
