import NIOCore

extension SessionEvent {
    /// The log lines of a client session event (`connect`, `send`, `replay`). `webSocket`: the
    /// session runs over WebSocket, so its end is a close frame rather than a FIN; `datagrams`:
    /// over UDP, which has no FIN at all.
    public func logLines(webSocket: Bool = false, datagrams: Bool = false) -> [LogLine] {
        switch self {
        case .connected(let report, let local, let remote):
            return Self.connectedLines(report, local: local, remote: remote)
        case .connectFailed(let error):
            return [.event("connect failed: \(error.text)")]
        case .inputFinished(let end):
            switch end {
            case .halfClose where webSocket: return [.event("end of input: closing the WebSocket")]
            case .halfClose where datagrams: return [.event("end of input: nothing more to send (UDP has no FIN); reading replies until they stop")]
            case .halfClose: return [.event("end of input: write side shut down (FIN sent)")]
            case .keepOpen: return [.event("end of input: connection kept open (\(.noShutdown))")]
            case .close: return [.event("end of input: closing (\(.closeOnEOF))")]
            }
        case .inputRejected(let error):
            return [.warning(error.text)]
        case .peerFinished:
            return [.event(webSocket ? "peer finished (WebSocket closed)" : datagrams ? "peer finished" : "peer finished sending (FIN received)")]
        case .connectionLost(let error):
            return [.event("connection lost: \(error?.text ?? "closed")")]
        case .reconnecting(let delay, let attempt, let total):
            return [.note("reconnecting in \(delay.formatted) (attempt \(attempt) of \(total))")]
        case .heartbeatSent:
            return [.event("heartbeat sent")]
        case .peerUnresponsive(let silence):
            return [.note("peer unresponsive: nothing received for \(silence.formatted)")]
        case .idleTimeout(let idle):
            return [.event("idle for \(idle.formatted): ending the session")]
        }
    }

    /// How the connection was made: the resolution, each failed or abandoned attempt, the
    /// connection, the proxy's tunnel and how long it took, TLS (with a warning when nothing was verified) and the WebSocket upgrade.
    private static func connectedLines(_ report: ConnectReport, local: SocketAddress?, remote: SocketAddress?) -> [LogLine] {
        var lines: [LogLine] = []
        if report.resolved.count > 0 && report.resolveDuration > .zero {
            let names = report.resolved.map { $0.ipAddress ?? $0.displayString }.joined(separator: ", ")
            lines.append(.event("resolved to \(names) in \(report.resolveDuration.formatted)"))
        }
        for attempt in report.attempts {
            switch attempt.outcome {
            case .failed(let reason):
                lines.append(.event("\(attempt.address.displayString) failed (started at \(attempt.startedAfter.formatted)): \(reason)"))
            case .abandoned:
                lines.append(.event("\(attempt.address.displayString) (started at \(attempt.startedAfter.formatted)) had not answered: cancelled"))
            case .connected:
                break
            }
        }
        let family = remote.map { " (\($0.familyName))" } ?? ""
        // A Unix client's own end has no name: nothing to say it is from.
        let from = local?.isUnnamed == true ? "" : " from \(local?.displayString ?? "?")"
        let spread = report.resolved.count > 1 ? " (\(plural(report.attempts.count, "attempt")) over \(plural(report.resolved.count, "address")))" : ""
        lines.append(.event(
            "connected to \(remote?.displayString ?? "?")\(family)\(from) in \(report.connectDuration.formatted)\(spread)"
        ))
        if let tunnel = report.tunnel {
            lines.append(.event("\(tunnel.proxy.kind.protocolName) proxy \(tunnel.proxy) opened the tunnel to \(tunnel.target) in \(tunnel.duration.formatted)"))
        }
        if let security = report.security {
            lines.append(.event("TLS: \(security.summary)"))
            if security.verification.description.hasPrefix("not verified") {
                lines.append(.warning("\(.insecure): the server's certificate was not verified; anyone on the path could be reading this"))
            }
        }
        if let handshake = report.webSocket {
            lines.append(.event("WebSocket open (\(handshake.summary))"))
        }
        return lines
    }
}
