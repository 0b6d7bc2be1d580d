/// A command run for a connection (`--exec`, `--sh-exec`) and how it is stopped.
public struct ExecConfiguration: Sendable, Equatable {
    /// What to run.
    public var command: ExecCommand
    /// When its connection goes, the child gets SIGTERM, and SIGKILL this long after if it is
    /// still there.
    public var terminationGrace: Duration = .seconds(2)

    /// Runs `command` for each connection.
    public init(command: ExecCommand) {
        self.command = command
    }
}

/// How one connection's child ended, and what went between them.
public struct ExecOutcome: Sendable, Equatable {
    /// The child's end; nil when it could not be started.
    public var exit: ChildExit?
    /// Why the child could not be started, or the connection's error.
    public var error: SocketEngineError?
    /// True when the child was signalled because its connection went first.
    public var terminated = false
    /// Bytes written to the child's standard input and read from its standard output.
    public var bytesToChild = 0
    public var bytesFromChild = 0

    /// Nothing yet.
    public init() {}
}
