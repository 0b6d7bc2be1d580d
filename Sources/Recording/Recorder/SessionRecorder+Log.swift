import SocketEngine

extension SessionRecorder {
    /// Closes the file (``finish()``) and says what it holds (`-v`) and, always, what it lost.
    public func finishAndReport() -> [LogLine] {
        let totals = finish()
        var lines: [LogLine] = [.event("recorded \(plural(totals.connections, "connection")), \(plural(totals.packets, "packet")) to \(name)")]
        if totals.droppedBytes > 0 {
            lines.append(.warning(
                "\(.record): \(plural(totals.droppedBytes, "byte")) in \(plural(totals.droppedEvents, "chunk")) \(totals.droppedBytes == 1 ? "was" : "were") not written to \(name)"
                    + " (the writer fell more than \(formatBytes(bufferLimit)) behind); the file shows them as missing" as SettingText
            ))
        }
        if let error = totals.writeError {
            lines.append(.warning("\(.record): writing \(name) failed: \(error); the file is incomplete"))
        }
        return lines
    }
}
