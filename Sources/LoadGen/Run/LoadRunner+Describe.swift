import SocketEngine

/// How a report names what a run was given: its targets and its rate stages.
extension LoadRunner {
    /// `127.0.0.1:7000`, or `127.0.0.1:7000 127.0.0.1:7001 127.0.0.1:7002`, or the first and
    /// how many more.
    static func describe(_ endpoints: [Endpoint]) -> String {
        if endpoints.count <= 3 { return endpoints.map(\.description).joined(separator: " ") }
        return "\(endpoints[0]) and \(endpoints.count - 1) more"
    }

    static func describe(_ stages: [RateSchedule.Stage]) -> String {
        stages.map { stage in
            let seconds = stage.duration.secondsDouble
            let rate = stage.endRate == stage.endRate.rounded() ? String(Int(stage.endRate)) : String(stage.endRate)
            return "\(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds))s:\(rate)"
        }.joined(separator: ",")
    }
}
