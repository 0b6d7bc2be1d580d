import SocketEngine

extension LoadPlan {
    /// One line for `-v`: `10 connections to 127.0.0.1:7000, closed loop, pipeline 1, for 10s, framing line, 2 event loops`.
    public var summary: String {
        let plan = self
        let targets = plan.endpoints.count == 1 ? plan.endpoint.description : "\(plan.endpoints.count) targets"
        var parts = ["\(plural(plan.connections, "connection")) to \(targets)"]
        if !plan.stages.isEmpty {
            parts.append("open loop, stages")
        } else if let rate = plan.rate {
            parts.append("open loop at \(ReportText.grouped(Int(rate)))/s")
        } else {
            parts.append("closed loop, pipeline \(plan.effectivePipeline)")
        }
        if let duration = plan.duration, plan.stages.isEmpty { parts.append("for \(duration.formatted)") }
        if let requests = plan.requests { parts.append("\(ReportText.grouped(requests)) requests") }
        if plan.warmup > .zero { parts.append("after \(plan.warmup.formatted) warm-up") }
        parts.append(plan.framing.map { "framing \($0)" } ?? "send-only")
        if plan.resolvedIO == .events {
            parts.append(plural(plan.threads, "event loop"))
        } else if plan.threadsSpin {
            parts.append("a thread per connection (polling for replies)")
        } else {
            parts.append("\(plural(plan.ioThreadCount, "thread")) of plain system calls")
        }
        return parts.joined(separator: ", ")
    }
}
