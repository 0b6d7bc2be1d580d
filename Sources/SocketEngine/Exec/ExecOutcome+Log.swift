extension ExecOutcome {
    /// "`subject` exited with status 0", "… killed by signal 15 (SIGTERM) when its connection
    /// went" (a note), or the reason it could not be started (a warning).
    public func logLine(subject: String, level: LogLine.Level = .note) -> LogLine {
        guard let exit else {
            return .warning("\(subject) not started: \(error?.text ?? "unknown reason")")
        }
        let why = terminated ? " when its connection went" : ""
        let reason: SettingText = error.map { " (\($0.text))" } ?? ""
        let line: SettingText = "\(subject) \(exit.description)\(why)\(reason)"
        return LogLine(level, line)
    }
}
