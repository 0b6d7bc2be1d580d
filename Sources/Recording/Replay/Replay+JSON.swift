import NIOCore
import PacketDecoding
import SocketEngine

extension RecordedStream {
    /// One `replay --list --json` line: the stream's number, protocol, ends (as `host:port`,
    /// IPv6 in brackets), packets and bytes each way, bytes the capture lacks, duration and how
    /// it ended (`null` for a UDP flow, which has no end of its own).
    public var json: JSONValue {
        func side(_ counters: SideCounters) -> JSONValue {
            .object([("packets", .int(counters.packets)), ("bytes", .int(counters.bytes)), ("missing_bytes", .int(counters.missingBytes))])
        }
        return .object([
            ("stream", .int(index)),
            ("transport", .string(transport.rawValue)),
            ("client", .string(Self.hostPort(client))),
            ("server", .string(Self.hostPort(server))),
            ("from_client", side(clientCounters)),
            ("from_server", side(serverCounters)),
            ("duration_ms", .double(Double(duration) / 1e6)),
            ("end", transport == .udp ? .null : .string(end.description)),
        ])
    }

    /// `127.0.0.1:7000`, `[::1]:7000`.
    private static func hostPort(_ endpoint: TCPReassembler.Endpoint) -> String {
        if case .v6 = endpoint.address { return "[\(endpoint.address)]:\(endpoint.port)" }
        return "\(endpoint.address):\(endpoint.port)"
    }
}

extension ReplayClient.Outcome {
    /// Whether the replay did what was asked: no error, not stopped, and with `verify` every
    /// answer as recorded and complete.
    public func succeeded(verify: Bool) -> Bool {
        error == nil && !interrupted && !(verify && (verifier?.mismatch != nil || timedOut))
    }

    /// The `replay --json` document: what was sent and received, what `--verify` found (the
    /// first mismatch with both frames), the timing drift, and how the run ended. `unit`: `frame`
    /// or `segment`; `expectedBytes`: what the recorded server sent; `naming` words the settings
    /// the error names (plain names unless the caller has its own, as the CLI has its flags).
    public func json(stream: RecordedStream, target: Endpoint, unit: String, verify: Bool, expectedBytes: Int,
                     naming: (SettingKey) -> String = \.plainName) -> JSONValue {
        var verification: JSONValue = .null
        if verify, let verifier {
            let first: JSONValue = verifier.mismatch.map { mismatch in
                .object([
                    ("frame", .int(mismatch.frame)), ("reason", .string(mismatch.reason)),
                    ("recorded", JSONValue.body(ByteBuffer(bytes: mismatch.expected))),
                    ("received", JSONValue.body(ByteBuffer(bytes: mismatch.received))),
                ])
            } ?? .null
            verification = .object([
                ("unit", .string(unit)), ("expected", .int(verifier.expectedFrames)), ("matched", .int(verifier.matched)),
                ("mismatched", .int(verifier.mismatch == nil ? 0 : 1)), ("first_mismatch", first),
            ])
        }
        return .object([
            ("ok", .bool(succeeded(verify: verify))),
            ("stream", .int(stream.index)),
            ("transport", .string(stream.transport.rawValue)),
            ("target", .string(target.description)),
            ("messages_sent", .int(messagesSent)),
            ("bytes_sent", .int(bytesSent)),
            ("bytes_received", .int(bytesReceived)),
            ("bytes_recorded", .int(expectedBytes)),
            ("duration_ms", .double(duration.milliseconds)),
            ("drift_ms", .object([("max", .double(maximumDrift.milliseconds)), ("mean", .double(meanDrift.milliseconds))])),
            ("verify", verification),
            ("timed_out", .bool(timedOut)),
            ("interrupted", .bool(interrupted)),
            ("error", error.map { .string($0.text.rendered(naming)) } ?? .null),
        ])
    }
}
