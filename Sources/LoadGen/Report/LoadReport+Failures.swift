import SocketEngine

extension LoadReport {
    /// Why the run fails (exit 1), one phrase each, naming settings by key: every violated
    /// threshold, a replay's mismatches and unopened stream connections, and — for a plain run
    /// that asked for `requestedConnections` — connections that could never be opened. Empty:
    /// it passed.
    public func failures(requestedConnections: Int? = nil) -> [SettingText] {
        var failures = thresholds.filter { !$0.passed }.map { SettingText("threshold \($0.threshold) violated") } + replayFailures
        if replay == nil, let requested = requestedConnections, connections.peakOpen < requested {
            failures.append("only \(connections.peakOpen) of \(requested) connections could be opened")
        }
        return failures
    }
}
