import SocketEngine

extension LoadReport {
    /// `loadtest --from-pcap`: what was replayed, how, and what the sampled comparison found.
    /// Absent from other runs' reports.
    public struct Replay: Codable, Sendable {
        /// The capture file.
        public var capture: String
        /// Recorded streams replayed, and their numbers (`1-3,7`).
        public var streams: Int
        package var streamList: String
        /// Copies of each stream (`--scale`).
        public var scale: Int
        /// `--loop`: copies started again when they ended.
        public var loop: Bool
        /// Times faster than recorded; nil: top speed.
        package var speed: Double?
        /// Client messages in one round of every stream (one copy each).
        package var messagesPerRound: Int
        /// Copies started (a connection each, loops included), and those that ran to their end.
        public var runs: Int
        package var runsCompleted: Int
        /// Messages the recorded server did not answer: counted as answered when sent, without
        /// a latency.
        package var oneWay: Int
        /// `--verify-sample`; nil without it.
        public var verify: Verify?

        /// What the sampled comparison found.
        public struct Verify: Codable, Sendable {
            /// The share sampled, 0–100.
            public var samplePercent: Double
            /// Replies compared, and those that differed (or never came).
            public var checked: Int
            public var mismatched: Int
            /// The first mismatch (lowest stream, then message), as `replay --verify` shows one.
            public var firstMismatch: String?

            enum CodingKeys: String, CodingKey {
                case checked, mismatched
                case samplePercent = "sample_percent"
                case firstMismatch = "first_mismatch"
            }
        }

        enum CodingKeys: String, CodingKey {
            case capture, streams, scale, loop, speed, runs, verify
            case streamList = "stream_list"
            case messagesPerRound = "messages_per_round"
            case runsCompleted = "runs_completed"
            case oneWay = "one_way"
        }

        /// The report's `plan` row for a replay.
        func plan(_ config: LoadReport.Config) -> String {
            var text = "\(plural(streams, "stream")) of \(capture)"
            if scale > 1 { text += " × \(scale)" }
            text += " = \(plural(config.connections, "connection")), "
            if let speed {
                text += speed == 1 ? "recorded timing" : "recorded timing × \(speed == speed.rounded() && speed < 0x1p53 ? String(Int(speed)) : String(speed)) speed"
            } else {
                text += "top speed (each message once the previous reply is in)"
            }
            if loop { text += ", looped" }
            text += ", \(config.framing ?? "segments")"
            return text
        }

        /// The rows a replay adds to the report: `replay`, and `verify` when sampled.
        var rows: [(String, String)] {
            var rows = [("replay", "\(ReportText.grouped(runs)) \(runs == 1 ? "run" : "runs") started, \(ReportText.grouped(runsCompleted)) completed; \(ReportText.grouped(messagesPerRound)) messages a round, \(ReportText.grouped(oneWay)) of them expecting no reply")]
            if let verify {
                var text = "\(decimal(verify.samplePercent, places: verify.samplePercent == verify.samplePercent.rounded() ? 0 : 2))% of replies sampled: \(ReportText.grouped(verify.checked)) checked, \(ReportText.grouped(verify.mismatched)) mismatched"
                if verify.mismatched > 0 { text += " (the first is shown below)" }
                rows.append(("verify", text))
            }
            return rows
        }

        /// Adds another run's section (``LoadReport/merge(named:)``), its sums checked by `check`.
        static func merged(_ a: Replay?, _ b: Replay?, check: ReportCheck) throws(LoadGenError) -> Replay? {
            guard var merged = a, let b else { return a ?? b }
            merged.runs = try check.sum(merged.runs, b.runs, "replay.runs")
            merged.runsCompleted = try check.sum(merged.runsCompleted, b.runsCompleted, "replay.runs_completed")
            merged.oneWay = try check.sum(merged.oneWay, b.oneWay, "replay.one_way")
            if var verify = merged.verify, let other = b.verify {
                verify.checked = try check.sum(verify.checked, other.checked, "replay.verify.checked")
                verify.mismatched = try check.sum(verify.mismatched, other.mismatched, "replay.verify.mismatched")
                verify.firstMismatch = verify.firstMismatch ?? other.firstMismatch
                merged.verify = verify
            }
            return merged
        }
    }

    /// Why a replay run fails (exit 1) beyond its thresholds: a sampled reply that differs from
    /// the recording, a stream connection that could not be opened. Empty for other runs.
    public var replayFailures: [SettingText] {
        guard let replay else { return [] }
        var failures: [SettingText] = []
        if let verify = replay.verify, verify.mismatched > 0 {
            failures.append("\(.verifySample): \(verify.mismatched) of \(verify.checked) sampled replies differ from the recording")
        }
        if connections.failed > 0 {
            failures.append("\(connections.failed) of \(connections.attempted) stream connections could not be opened")
        }
        return failures
    }
}
