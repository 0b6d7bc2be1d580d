import SocketEngine

extension ReplayClient.Outcome {
    /// The replay's summary line: what was sent and received, what `--verify` found, and how
    /// far the sends drifted from the recorded times. `unit`: `frame` or `segment`.
    public func summary(target: Endpoint, unit: String, verify: Bool) -> String {
        var text = (interrupted ? "stopped early: " : "") + "sent \(plural(messagesSent, "message")) (\(bytesSent) bytes) to \(target)"
            + " in \(duration.formatted); received \(bytesReceived) bytes"
        if let verifier, verify {
            let mismatched = verifier.mismatch == nil ? 0 : 1
            text += "; verify: \(plural(verifier.expectedFrames, unit)) expected, \(verifier.matched) matched, \(mismatched) mismatched"
        }
        return text + "; timing drift: max \(maximumDrift.formatted), mean \(meanDrift.formatted)"
    }
}

extension ReplayServer.Event {
    /// The client-log line of `replay --as-server`.
    public var logLine: LogLine {
        switch self {
        case .clientConnected(let id, let peer):
            return .note("client \(id) connected from \(peer)")
        case .clientDisconnected(let id, let peer, let after, let bytesIn, let bytesOut, let error):
            let reason = error.map { ": \($0.message)" } ?? ""
            return .note("client \(id) from \(peer) disconnected after \(after.formatted) (\(bytesIn) bytes in, \(bytesOut) bytes out)\(reason)")
        }
    }
}

extension ReplayServer.Totals {
    /// The `--as-server` shutdown summary line.
    public var text: String {
        "summary: \(plural(clients, "client")), \(bytesIn) bytes in, \(bytesOut) bytes out" + (errors > 0 ? ", \(errors) failed" : "")
    }
}
