import SocketEngine

extension LoadRunner.Progress {
    /// The live line: `  12s/30s   100 open   52,310 sent/s   52,310 recv/s   p50 31µs   p99 92µs   0 errors`.
    public var line: String {
        let progress = self
        let seconds = Int((Double(progress.elapsed.components.seconds) + Double(progress.elapsed.components.attoseconds) * 1e-18).rounded())
        var clock = progress.warmingUp ? "warm-up" : "\(seconds)s"
        if let total = progress.total, !progress.warmingUp { clock += "/\(total.components.seconds)s" }
        return [
            ReportText.pad(clock, 9), ReportText.pad("\(ReportText.grouped(progress.open)) open", 10),
            ReportText.pad("\(ReportText.grouped(Int(progress.sentPerSecond))) sent/s", 16), ReportText.pad("\(ReportText.grouped(Int(progress.receivedPerSecond))) recv/s", 16),
            ReportText.pad("p50 \(progress.p50.map(ReportText.latency) ?? "-")", 12), ReportText.pad("p99 \(progress.p99.map(ReportText.latency) ?? "-")", 12),
            plural(progress.errors, "error"),
        ].joined(separator: " ")
    }
}
