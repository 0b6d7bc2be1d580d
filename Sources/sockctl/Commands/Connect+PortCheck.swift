import SocketEngine

/// `connect -z`: nc's port check. Each port is connected to and closed, nothing sent; one line
/// per port on stderr; exit status 0 when at least one port is open, 1 when none is (as nc).
extension Connect {
    /// The check the words and options ask for; what does not apply to a check is refused.
    func makePortCheck() throws -> PortCheck {
        let given: [(Bool, String)] = [
            (recording.record != nil, "--record"), (reconnect != nil, "--reconnect"), (heartbeat != nil, "--heartbeat"),
            (sendOnly, "--send-only"), (recvOnly, "--recv-only"), (echoMessages, "--echo-messages"), (crlf, "--crlf"),
            (noShutdown, "--no-shutdown"), (closeOnEof, "--close-on-eof"), (idleTimeout != nil, "--idle-timeout"),
        ]
        if let (_, option) = given.first(where: \.0) {
            throw UsageError("-z only checks whether ports accept connections: \(option) does not apply")
        }
        let (endpoint, ports) = try NetcatArguments.checkTarget(target, udp: udp)
        var options = try client.transport.connectOptions(for: endpoint)
        if let wait, client.transport.connection.connectTimeout == nil {
            options.connectTimeout = try checkedPositive(wait, "-w")
        }
        return try PortCheck(target: endpoint, ports: ports, options: options)
    }

    func runPortCheck() async throws {
        let diagnostics = Diagnostics(command: "connect", verbose: client.verbose)
        let interruption = Interruption(diagnostics)
        let check = try makePortCheck()
        interruption.onStop { check.stop() }
        let summary = await check.run { diagnostics.log($0.logLine) }
        interruption.cancel()
        diagnostics.log(summary.logLines)
        if let error = summary.error { throw diagnostics.fail(error) }
        try interruption.exitIfInterrupted()
        if !summary.anyOpen { throw CommandFailed(status: 1) }
    }
}
