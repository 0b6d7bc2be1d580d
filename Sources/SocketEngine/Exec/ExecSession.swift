import NIOCore

/// `connect --exec`: one connection and one command on it, its standard input and output the
/// connection (``ExecBridge``). The session ends when the command has exited (the connection
/// is then closed) or, when the connection goes first, once the command it signalled has
/// ended. ``stop()`` (SIGINT) closes the connection, which ends the command the same way.
public final class ExecSession: Sendable {
    private let configuration: ClientSessionConfiguration
    private let exec: ExecConfiguration
    private let onEvent: @Sendable (SessionEvent) -> Void
    private let stopRequest = StopRequest()

    /// A session that connects as `configuration` says (its endpoint, connect options, framing
    /// and message kind; the input settings do not apply) and runs `exec` on the connection;
    /// `onEvent` hears the connect or its failure.
    public init(configuration: ClientSessionConfiguration, exec: ExecConfiguration, onEvent: @escaping @Sendable (SessionEvent) -> Void = { _ in }) {
        self.configuration = configuration
        self.exec = exec
        self.onEvent = onEvent
    }

    /// Ends the session early: the connection is closed, the command signalled.
    public func stop() { stopRequest.request() }

    /// Connects and runs the command; the outcome's `exit` is nil when it never ran (the
    /// connect failed: its reason in `error`, or the session was stopped first).
    public func run() async -> ExecOutcome {
        var outcome = ExecOutcome()
        let connector = Connector(endpoint: configuration.endpoint, options: configuration.connect)
        let connection: Connection
        do {
            let attempt = Task { try await connector.connect() }
            guard let (opened, report) = try await stopRequest.value(of: attempt, abandoned: { await $0.0.close() }) else {
                return outcome
            }
            connection = opened
            onEvent(.connected(report, local: opened.localAddress, remote: opened.remoteAddress))
        } catch {
            let failure = SocketEngineError.wrapping(error, context: "connect to \(configuration.endpoint)")
            onEvent(.connectFailed(failure))
            outcome.error = failure
            return outcome
        }
        let token = stopRequest.onStop { Task { await connection.close() } }
        defer { stopRequest.remove(token) }
        outcome = await ExecBridge.run(
            exec,
            peer: .connection(connection, framing: configuration.framing, maximumFrameSize: configuration.maximumFrameSize),
            framing: configuration.framing,
            binaryMessages: configuration.connect.webSocket.messageKind == .binary,
            maximumFrameSize: configuration.maximumFrameSize,
            environment: ExecEnvironment(transport: connection.transport, local: connection.localAddress, peer: connection.remoteAddress)
        )
        await connection.close()
        return outcome
    }
}
