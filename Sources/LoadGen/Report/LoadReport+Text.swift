import SocketEngine

extension LoadReport {
    /// The final report as `loadtest` prints it: one labelled row per topic (target, plan,
    /// duration, connections, messages, throughput, latency percentiles, TLS, errors with an
    /// example of each, thresholds, memory).
    public var text: String {
        let report = self
        var lines: [String] = []
        func row(_ label: String, _ text: String) { lines.append(ReportText.pad(label, 12) + text) }
        let hosts = report.hosts > 1 ? " (\(report.hosts) runs merged)" : ""
        row("target", "\(report.target) (\(report.transport)\(report.address.map { ", \($0)" } ?? ""))\(hosts)")
        var plan = "\(plural(report.config.connections, "connection"))"
        if let stages = report.config.stages {
            plan += ", open loop, stages \(stages)"
        } else if let rate = report.config.rate {
            plan += ", open loop at \(ReportText.grouped(ReportText.whole(rate)))/s"
        } else {
            plan += ", closed loop"
        }
        if report.config.framing != nil { plan += ", pipeline \(report.config.pipeline == LoadReport.Config.unlimitedPipeline ? "unlimited" : String(report.config.pipeline))" }
        plan += ", \(report.config.framing.map { "framing \($0)" } ?? "send-only"), \(report.config.messageBytes)-byte messages"
        if report.config.io == "threads" {
            let threads = report.config.threads
            plan += threads >= report.config.connections ? ", a thread per connection" : ", \(plural(threads, "thread")) of plain system calls"
        }
        row("plan", report.replay?.plan(report.config) ?? plan)
        var elapsed = "\(decimal(report.elapsedSeconds, places: 2)) s measured"
        if report.config.warmupSeconds > 0 { elapsed += " after \(decimal(report.config.warmupSeconds, places: 2)) s warm-up (\(ReportText.grouped(report.messages.warmupSent)) messages, not counted)" }
        row("duration", elapsed)
        if report.interrupted == true { row("interrupted", "stopped before its end: the figures cover the run until the stop") }
        let c = report.connections
        row("connections", "\(ReportText.grouped(c.requested)) requested, \(ReportText.grouped(c.established)) established, \(ReportText.grouped(c.failed)) failed, \(ReportText.grouped(c.lost)) lost, peak \(ReportText.grouped(c.peakOpen)) open")
        let m = report.messages
        var messages = "sent \(ReportText.grouped(m.sent))"
        if report.config.framing != nil {
            messages += ", received \(ReportText.grouped(m.received)), timed out \(ReportText.grouped(m.timedOut)), lost \(ReportText.grouped(m.lost))"
            if let unmatched = m.unmatched { messages += "; \(ReportText.grouped(unmatched)) unmatched replies (by \(report.config.correlate ?? "key"))" }
        }
        if let intended = m.intended { messages += ", unsent \(ReportText.grouped(m.unsent)) of \(ReportText.grouped(intended)) due" }
        row("messages", messages)
        if let http = report.http { row("responses", http.line) }
        for (label, text) in report.replay?.rows ?? [] { row(label, text) }
        let t = report.throughput
        var throughput = ""
        if let offered = t.offeredPerSecond { throughput += "offered \(ReportText.grouped(ReportText.whole(offered)))/s, " }
        throughput += "sent \(ReportText.grouped(ReportText.whole(t.sentPerSecond)))/s"
        if report.config.framing != nil { throughput += ", received \(ReportText.grouped(ReportText.whole(t.receivedPerSecond)))/s" }
        throughput += "; \(formatBytes(report.bytes.sent)) out (\(formatBytes(ReportText.whole(t.sentBytesPerSecond.rounded(.down))))/s), \(formatBytes(report.bytes.received)) in"
        row("throughput", throughput)
        if let latency = report.latency {
            let openLoop = report.config.rate != nil || report.config.stages != nil
            row("latency", openLoop ? "from the time each message was due (corrected for coordinated omission):" : "send to reply:")
            lines.append(ReportText.pad("", 12) + Self.percentiles(latency.corrected))
            if openLoop {
                lines.append(ReportText.pad("", 12) + "from the time each message was actually sent (uncorrected):")
                lines.append(ReportText.pad("", 12) + Self.percentiles(latency.uncorrected))
            }
        } else if report.config.framing != nil {
            row("latency", "none measured (no reply came back)")
        }
        for (index, line) in report.labelLines.enumerated() { lines.append(ReportText.pad(index == 0 ? "labels" : "", 12) + line) }
        if let handshake = report.tlsHandshake {
            row("tls", "\(ReportText.grouped(handshake.count)) handshakes: " + Self.percentiles(handshake))
        }
        if let tunnel = report.proxyTunnel {
            row("proxy", "\(report.proxy.map { "\($0): " } ?? "")\(ReportText.grouped(tunnel.count)) tunnels opened: " + Self.percentiles(tunnel))
        }
        if report.errors.isEmpty {
            row("errors", "none")
        } else {
            let sorted = report.errors.sorted { (ErrorKind(rawValue: $0.key) ?? .other) < (ErrorKind(rawValue: $1.key) ?? .other) }
            row("errors", sorted.map { "\($0.key) \(ReportText.grouped($0.value))" }.joined(separator: ", "))
            for (kind, _) in sorted {
                if let example = report.errorExamples[kind] { lines.append(ReportText.pad("", 12) + "\(kind): \(example)") }
            }
        }
        if !report.thresholds.isEmpty {
            row("thresholds", report.thresholds.map { result in
                "\(result.threshold) \(result.passed ? "passed" : "VIOLATED") (\(Self.measuredText(result)))"
            }.joined(separator: "; "))
        }
        row("memory", "peak RSS \(formatBytes(report.peakRSSBytes))")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func percentiles(_ p: LoadReport.Percentiles) -> String {
        "min \(ReportText.latency(p.min))  p50 \(ReportText.latency(p.p50))  p90 \(ReportText.latency(p.p90))  p99 \(ReportText.latency(p.p99))  p99.9 \(ReportText.latency(p.p99_9))  p99.99 \(ReportText.latency(p.p99_99))  max \(ReportText.latency(p.max))"
    }

    private static func measuredText(_ result: ThresholdResult) -> String {
        guard let value = result.measured else { return result.reason ?? "not measured" }
        let name = result.threshold.prefix { $0.isLetter || $0.isNumber || $0 == "." }
        switch name {
        case "errors", "unmatched", "status1xx", "status2xx", "status3xx", "status4xx", "status5xx", "non2xx": return result.threshold.contains("%") ? "\(decimal(value * 100, places: 3))%" : ReportText.grouped(ReportText.whole(value))
        case "rate": return "\(ReportText.grouped(ReportText.whole(value)))/s"
        default: return ReportText.latency(value)
        }
    }
}
