import SocketEngine

/// `-v` lines for a client session.
enum SessionEventRenderer {
    static func render(_ event: SessionEvent, diagnostics: Diagnostics, webSocket: Bool = false) {
        switch event {
        case .connected(let report, let local, let remote):
            if report.resolved.count > 0 && report.resolveDuration > .zero {
                let names = report.resolved.map { $0.ipAddress ?? $0.displayString }.joined(separator: ", ")
                diagnostics.event("resolved to \(names) in \(report.resolveDuration.formatted)")
            }
            for attempt in report.attempts {
                switch attempt.outcome {
                case .failed(let reason):
                    diagnostics.event("\(attempt.address.displayString) failed (started at \(attempt.startedAfter.formatted)): \(reason)")
                case .abandoned:
                    diagnostics.event("\(attempt.address.displayString) (started at \(attempt.startedAfter.formatted)) had not answered: cancelled")
                case .connected:
                    break
                }
            }
            let family = remote.map { " (\($0.familyName))" } ?? ""
            diagnostics.event(
                "connected to \(remote?.displayString ?? "?")\(family) from \(local?.displayString ?? "?")"
                    + " in \(report.connectDuration.formatted)"
                    + (report.resolved.count > 1 ? " (\(plural(report.attempts.count, "attempt")) over \(plural(report.resolved.count, "address")))" : "")
            )
            if let security = report.security {
                diagnostics.event("TLS: \(security.summary)")
                if security.verification.hasPrefix("not verified") {
                    diagnostics.warning("--insecure: the server's certificate was not verified; anyone on the path could be reading this")
                }
            }
            if let handshake = report.webSocket {
                diagnostics.event("WebSocket open (\(handshake.summary))")
            }
        case .connectFailed(let error):
            diagnostics.event("connect failed: \(error.message)")
        case .inputFinished(let end):
            switch end {
            case .halfClose where webSocket: diagnostics.event("end of input: closing the WebSocket")
            case .halfClose: diagnostics.event("end of input: write side shut down (FIN sent)")
            case .keepOpen: diagnostics.event("end of input: connection kept open (--no-shutdown)")
            case .close: diagnostics.event("end of input: closing (--close-on-eof)")
            }
        case .inputRejected(let error):
            diagnostics.warning(error.message)
        case .peerFinished where webSocket:
            diagnostics.event("peer finished (WebSocket closed)")
        case .peerFinished:
            diagnostics.event("peer finished sending (FIN received)")
        case .connectionLost(let error):
            diagnostics.event("connection lost: \(error?.message ?? "closed")")
        case .reconnecting(let delay, let attempt, let total):
            diagnostics.note("reconnecting in \(delay.formatted) (attempt \(attempt) of \(total))")
        case .heartbeatSent:
            diagnostics.event("heartbeat sent")
        case .peerUnresponsive(let silence):
            diagnostics.note("peer unresponsive: nothing received for \(silence.formatted)")
        case .idleTimeout(let idle):
            diagnostics.event("idle for \(idle.formatted): ending the session")
        }
    }
}
