extension RelayEvent {
    /// The client-log line of a relay event; nil for traffic (`data`, `message`), which the
    /// live view shows instead.
    public var logLine: LogLine? {
        switch self {
        case .clientConnected(let client):
            return .note("client \(client.id) connected from \(client.peer)")
        case .upstreamConnected(let client, let address):
            return .event("client \(client.id): upstream connected to \(address)")
        case .upstreamFailed(let client, let error):
            return .warning("client \(client.id): \(error.text)")
        case .fault(let client, let direction, let what):
            return .event("client \(client.id) \(direction.arrow) \(what)")
        case .finished(let client, let direction):
            return .event("client \(client.id) \(direction.arrow) finished (\(direction == .up ? "client" : "upstream") sent its end)")
        case .clientDisconnected(let client, let bytesUp, let bytesDown, let duration, let error):
            let reason: SettingText = error.map { ": \($0.text)" } ?? ""
            return .note("client \(client.id) from \(client.peer) disconnected after \(duration.formatted) (\(plural(bytesUp, "byte")) up, \(plural(bytesDown, "byte")) down)\(reason)")
        case .rejected(let peer, let reason):
            return .note("refused \(peer): \(reason)")
        case .data, .message:
            return nil
        }
    }

    /// The event as one `--json-log` object: `time` (as the caller stamps it), `event`, the
    /// client and what happened; `naming` words the settings a text names (plain names unless
    /// the caller has its own, as the CLI has its flags).
    public func json(time: String, naming: (SettingKey) -> String = \.plainName) -> JSONValue {
        var members: [(String, JSONValue)] = [("time", .string(time))]
        func add(_ event: String, _ client: RelayClient, _ direction: RelayDirection? = nil) {
            members += [("event", .string(event)), ("client", .int(client.id)), ("peer", .string(client.peer))]
            if let direction { members.append(("direction", .string(direction.rawValue))) }
        }
        switch self {
        case .clientConnected(let client):
            add("connect", client)
        case .upstreamConnected(let client, let address):
            add("upstream", client)
            members.append(("upstream", .string(address)))
        case .upstreamFailed(let client, let error):
            add("upstream-failed", client)
            members.append(("error", .string(error.text.rendered(naming))))
        case .data(let client, let direction, let bytes):
            add("data", client, direction)
            members.append(("data", JSONValue.body(bytes)))
        case .message(let client, let direction, let bytes):
            add("message", client, direction)
            members.append(("message", JSONValue.body(bytes)))
        case .fault(let client, let direction, let what):
            add("fault", client, direction)
            members.append(("fault", .string(what)))
        case .finished(let client, let direction):
            add("finish", client, direction)
        case .clientDisconnected(let client, let bytesUp, let bytesDown, let duration, let error):
            add("disconnect", client)
            members += [("bytes_up", .int(bytesUp)), ("bytes_down", .int(bytesDown)), ("duration_ms", .double(duration.milliseconds))]
            members.append(("error", error.map { .string($0.text.rendered(naming)) } ?? .null))
        case .rejected(let peer, let reason):
            members += [("event", .string("refused")), ("peer", .string(peer)), ("reason", .string(reason.rendered(naming)))]
        }
        return .object(members)
    }
}

extension RelaySummary {
    /// The shutdown summary line: `summary: 3 clients, 120 bytes up, … in 2.5s`.
    public var text: String {
        var parts = [plural(clients, "client"), "\(plural(bytesUp, "byte")) up", "\(plural(bytesDown, "byte")) down"]
        if upstreamFailures > 0 { parts.append("\(plural(upstreamFailures, "upstream connection")) failed") }
        if rejected > 0 { parts.append("\(rejected) refused") }
        if dropped > 0 { parts.append("\(dropped) dropped") }
        if discardedBytes > 0 { parts.append("\(plural(discardedBytes, "byte")) discarded by faults") }
        if resets > 0 { parts.append(plural(resets, "reset")) }
        return "summary: " + parts.joined(separator: ", ") + " in \(duration.formatted)"
    }

    /// The summary as the last `--json-log` object.
    public func json(time: String) -> JSONValue {
        .object([
            ("time", .string(time)), ("event", .string("summary")),
            ("clients", .int(clients)), ("bytes_up", .int(bytesUp)), ("bytes_down", .int(bytesDown)),
            ("upstream_failures", .int(upstreamFailures)), ("refused", .int(rejected)),
            ("dropped", .int(dropped)), ("discarded_bytes", .int(discardedBytes)), ("resets", .int(resets)),
            ("duration_ms", .double(duration.milliseconds)),
        ])
    }
}
