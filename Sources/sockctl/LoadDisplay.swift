import LoadGen
import SocketEngine
import Synchronization

/// What a load test shows while it runs and when it ends.
///
/// On a terminal one line is redrawn each second:
/// `  12s/30s   100 open   52,310 sent/s   52,310 recv/s   p50 31µs   p99 92µs   0 errors`;
/// elsewhere (CI logs) nothing, unless `--report-every DUR` asks for one such line per period.
final class LoadDisplay: Sendable {
    private let live: Bool
    private let every: Duration?
    private let output: FileDescriptorWriter
    private let state = Mutex(State())

    private struct State {
        var lastPrinted: Duration?
        var drawn = false
    }

    init(live: Bool, every: Duration?, output: FileDescriptorWriter) {
        self.live = live
        self.every = every
        self.output = output
    }

    func update(_ progress: LoadRunner.Progress) {
        let line = Self.progressLine(progress)
        if live {
            output.write("\r\u{1B}[K" + line)
            state.withLock { $0.drawn = true }
            return
        }
        guard let every, !progress.warmingUp else { return }
        let due = state.withLock { state -> Bool in
            if let last = state.lastPrinted, progress.elapsed - last < every - .milliseconds(100) { return false }
            state.lastPrinted = progress.elapsed
            return true
        }
        if due { output.write(line + "\n") }
    }

    /// Removes the live line before the report is printed.
    func clear() {
        let drawn = state.withLock { state -> Bool in
            defer { state.drawn = false }
            return state.drawn
        }
        if drawn { output.write("\r\u{1B}[K") }
    }

    static func progressLine(_ progress: LoadRunner.Progress) -> String {
        let seconds = Int((Double(progress.elapsed.components.seconds) + Double(progress.elapsed.components.attoseconds) * 1e-18).rounded())
        var clock = progress.warmingUp ? "warm-up" : "\(seconds)s"
        if let total = progress.total, !progress.warmingUp { clock += "/\(total.components.seconds)s" }
        return [
            pad(clock, 9), pad("\(grouped(progress.open)) open", 10),
            pad("\(grouped(Int(progress.sentPerSecond))) sent/s", 16), pad("\(grouped(Int(progress.receivedPerSecond))) recv/s", 16),
            pad("p50 \(progress.p50.map(latency) ?? "-")", 12), pad("p99 \(progress.p99.map(latency) ?? "-")", 12),
            plural(progress.errors, "error"),
        ].joined(separator: " ")
    }

    static func describePlan(_ plan: LoadPlan) -> String {
        let targets = plan.endpoints.count == 1 ? plan.endpoint.description : "\(plan.endpoints.count) targets"
        var parts = ["\(plural(plan.connections, "connection")) to \(targets)"]
        if !plan.stages.isEmpty {
            parts.append("open loop, stages")
        } else if let rate = plan.rate {
            parts.append("open loop at \(grouped(Int(rate)))/s")
        } else {
            parts.append("closed loop, pipeline \(plan.effectivePipeline)")
        }
        if let duration = plan.duration, plan.stages.isEmpty { parts.append("for \(duration)") }
        if let requests = plan.requests { parts.append("\(grouped(requests)) requests") }
        if plan.warmup > .zero { parts.append("after \(plan.warmup) warm-up") }
        parts.append(plan.framing.map { "framing \($0)" } ?? "send-only")
        parts.append(plan.resolvedIO == .threads ? "a thread per connection\(plan.threadsSpin ? " (polling for replies)" : "")" : "\(plural(plan.threads, "event loop"))")
        return parts.joined(separator: ", ")
    }

    // MARK: The report

    static func render(_ report: LoadReport) -> String {
        var lines: [String] = []
        func row(_ label: String, _ text: String) { lines.append(pad(label, 12) + text) }
        let hosts = report.hosts > 1 ? " (\(report.hosts) runs merged)" : ""
        row("target", "\(report.target) (\(report.transport)\(report.address.map { ", \($0)" } ?? ""))\(hosts)")
        var plan = "\(plural(report.config.connections, "connection"))"
        if let stages = report.config.stages {
            plan += ", open loop, stages \(stages)"
        } else if let rate = report.config.rate {
            plan += ", open loop at \(grouped(Int(rate)))/s"
        } else {
            plan += ", closed loop"
        }
        if report.config.framing != nil { plan += ", pipeline \(report.config.pipeline == LoadPlan.maximumPipeline ? "unlimited" : String(report.config.pipeline))" }
        plan += ", \(report.config.framing.map { "framing \($0)" } ?? "send-only"), \(report.config.messageBytes)-byte messages"
        if report.config.io == "threads" { plan += ", a thread per connection" }
        row("plan", plan)
        var elapsed = "\(decimal(report.elapsedSeconds, places: 2)) s measured"
        if report.config.warmupSeconds > 0 { elapsed += " after \(decimal(report.config.warmupSeconds, places: 2)) s warm-up (\(grouped(report.messages.warmupSent)) messages, not counted)" }
        row("duration", elapsed)
        let c = report.connections
        row("connections", "\(grouped(c.requested)) requested, \(grouped(c.established)) established, \(grouped(c.failed)) failed, \(grouped(c.lost)) lost, peak \(grouped(c.peakOpen)) open")
        let m = report.messages
        var messages = "sent \(grouped(m.sent))"
        if report.config.framing != nil {
            messages += ", received \(grouped(m.received)), timed out \(grouped(m.timedOut)), lost \(grouped(m.lost))"
        }
        if let intended = m.intended { messages += ", unsent \(grouped(m.unsent)) of \(grouped(intended)) due" }
        row("messages", messages)
        let t = report.throughput
        var throughput = ""
        if let offered = t.offeredPerSecond { throughput += "offered \(grouped(Int(offered.rounded())))/s, " }
        throughput += "sent \(grouped(Int(t.sentPerSecond.rounded())))/s"
        if report.config.framing != nil { throughput += ", received \(grouped(Int(t.receivedPerSecond.rounded())))/s" }
        throughput += "; \(formatBytes(report.bytes.sent)) out (\(formatBytes(Int(t.sentBytesPerSecond)))/s), \(formatBytes(report.bytes.received)) in"
        row("throughput", throughput)
        if let latency = report.latency {
            let openLoop = report.config.rate != nil || report.config.stages != nil
            row("latency", openLoop ? "from the time each message was due (corrected for coordinated omission):" : "send to reply:")
            lines.append(pad("", 12) + percentiles(latency.corrected))
            if openLoop {
                lines.append(pad("", 12) + "from the time each message was actually sent (uncorrected):")
                lines.append(pad("", 12) + percentiles(latency.uncorrected))
            }
        } else if report.config.framing != nil {
            row("latency", "none measured (no reply came back)")
        }
        if let handshake = report.tlsHandshake {
            row("tls", "\(grouped(handshake.count)) handshakes: " + percentiles(handshake))
        }
        if report.errors.isEmpty {
            row("errors", "none")
        } else {
            let sorted = report.errors.sorted { (ErrorKind(rawValue: $0.key) ?? .other) < (ErrorKind(rawValue: $1.key) ?? .other) }
            row("errors", sorted.map { "\($0.key) \(grouped($0.value))" }.joined(separator: ", "))
            for (kind, _) in sorted {
                if let example = report.errorExamples[kind] { lines.append(pad("", 12) + "\(kind): \(example)") }
            }
        }
        if !report.thresholds.isEmpty {
            row("thresholds", report.thresholds.map { result in
                "\(result.threshold) \(result.passed ? "passed" : "VIOLATED") (\(measuredText(result)))"
            }.joined(separator: "; "))
        }
        row("memory", "peak RSS \(formatBytes(report.peakRSSBytes))")
        return lines.joined(separator: "\n") + "\n"
    }

    static func percentiles(_ p: LoadReport.Percentiles) -> String {
        "min \(latency(p.min))  p50 \(latency(p.p50))  p90 \(latency(p.p90))  p99 \(latency(p.p99))  p99.9 \(latency(p.p99_9))  p99.99 \(latency(p.p99_99))  max \(latency(p.max))"
    }

    static func measuredText(_ result: ThresholdResult) -> String {
        guard let value = result.measured else { return "not measured" }
        let name = result.threshold.prefix { $0.isLetter || $0.isNumber || $0 == "." }
        switch name {
        case "errors": return result.threshold.contains("%") ? "\(decimal(value * 100, places: 3))%" : grouped(Int(value))
        case "rate": return "\(grouped(Int(value.rounded())))/s"
        default: return latency(value)
        }
    }

    /// Microseconds as `14.2µs`, `3.41ms`, `1.203s`.
    static func latency(_ micros: Double) -> String {
        if micros < 1000 { return "\(decimal(micros, places: micros < 100 ? 1 : 0))µs" }
        if micros < 1_000_000 { return "\(decimal(micros / 1000, places: micros < 10_000 ? 2 : 1))ms" }
        return "\(decimal(micros / 1_000_000, places: 3))s"
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
