import SocketEngine

extension LogLine {
    /// What `-q` (listen, proxy) keeps of a client-log line: warnings and `-v` events, not the
    /// per-client notes (connected, disconnected, refused).
    var keptWhenQuiet: LogLine? {
        level == .note ? nil : self
    }
}
