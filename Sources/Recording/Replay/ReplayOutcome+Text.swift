import SocketEngine

extension ReplayClient.Outcome {
    /// The replay's summary line: what was sent and received, what `--verify` found, and how
    /// far the sends drifted from the recorded times. `unit`: `frame` or `segment`.
    public func summary(target: Endpoint, unit: String, verify: Bool) -> String {
        var text = (interrupted ? "stopped early: " : "") + "sent \(plural(messagesSent, "message")) (\(plural(bytesSent, "byte"))) to \(target)"
            + " in \(duration.formatted); received \(plural(bytesReceived, "byte"))"
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
            let reason: SettingText = error.map { ": \($0.text)" } ?? ""
            return .note("client \(id) from \(peer) disconnected after \(after.formatted) (\(plural(bytesIn, "byte")) in, \(plural(bytesOut, "byte")) out)\(reason)")
        }
    }
}

extension ReplayServer.Totals {
    /// The `--as-server` shutdown summary line.
    public var text: String {
        "summary: \(plural(clients, "client")), \(plural(bytesIn, "byte")) in, \(plural(bytesOut, "byte")) out" + (errors > 0 ? ", \(errors) failed" : "")
    }
}
