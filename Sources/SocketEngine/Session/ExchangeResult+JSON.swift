extension ExchangeResult {
    /// What `send --json` prints: the outcome, the addresses, TLS, the timings in milliseconds,
    /// the counts and the responses kept; `naming` words the settings a text names (plain names
    /// unless the caller has its own, as the CLI has its flags).
    public func json(configuration: ExchangeConfiguration, naming: (SettingKey) -> String = \.plainName) -> JSONValue {
        let result = self
        func milliseconds(_ duration: Duration?) -> JSONValue {
            duration.map { .double($0.milliseconds) } ?? .null
        }
        let report = result.report
        var members: [(String, JSONValue)] = [
            ("ok", .bool(result.succeeded)),
            ("interrupted", .bool(result.interrupted)),
            ("endpoint", .string(configuration.endpoint.description)),
            ("remote", result.remoteAddress.map { .string($0.displayString) } ?? .null),
            ("local", result.localAddress.map { .string($0.displayString) } ?? .null),
            ("resolved", .array((report?.resolved ?? []).map { .string($0.ipAddress ?? $0.displayString) })),
            ("tls", report?.security.map { security in
                .object([
                    ("version", security.protocolVersion.map(JSONValue.string) ?? .null),
                    ("cipher", security.cipher.map(JSONValue.string) ?? .null),
                    ("peer", security.peerSubject.map(JSONValue.string) ?? .null),
                    ("verification", .string(security.verification.rendered(naming))),
                ])
            } ?? .null),
            ("timings_ms", .object([
                ("resolve", milliseconds(report?.resolveDuration)),
                ("connect", milliseconds(report?.connectDuration)),
                ("tls", milliseconds(report?.security?.handshakeDuration)),
                ("first_byte", milliseconds(result.firstByte)),
                ("total", .double(result.total.milliseconds)),
            ])),
            ("messages_sent", .int(result.messagesSent)),
            ("bytes_sent", .int(result.bytesSent)),
            ("responses_expected", .int(configuration.expectedResponses)),
            ("responses_received", .int(result.responsesReceived)),
            ("bytes_received", .int(result.bytesReceived)),
            ("responses", .array(result.responses.map(JSONValue.body))),
            ("responses_truncated", .bool(result.responsesTruncated)),
        ]
        if let tunnel = report?.tunnel {
            // Through a proxy: which, to where, and its part of the connect time.
            members.append(("proxy", .object([
                ("proxy", .string(tunnel.proxy.description)),
                ("address", .string(tunnel.proxyAddress)),
                ("target", .string(tunnel.target)),
                ("tunnel_ms", .double(tunnel.duration.milliseconds)),
            ])))
        }
        if configuration.correlate != nil {
            members.append(("replies", .array(result.correlated.map { .object([("key", .string($0.key)), ("ms", .double($0.latency.milliseconds))]) })))
            members.append(("unmatched", .int(result.unmatched)))
        }
        if configuration.http != nil {
            members.append(("status", result.http.last.map { .int($0.status) } ?? .null))
            members.append(("http", .array(result.http.map { line in
                .object([
                    ("status", .int(line.status)),
                    ("status_line", .string(line.final?.statusLine ?? "")),
                    ("headers", .array((line.final?.headers ?? []).map { .array([.string($0.name), .string($0.value)]) })),
                    ("interim", .array(line.responses.dropLast().map { .int($0.status) })),
                    ("body_bytes", .int(line.bodyBytes)),
                ])
            })))
        }
        if let error = result.error {
            members.append(("error", .object([("kind", .string(error.code.name)), ("message", .string(error.text.rendered(naming)))])))
        } else {
            members.append(("error", .null))
        }
        return .object(members)
    }
}
