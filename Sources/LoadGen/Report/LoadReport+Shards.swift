import SocketEngine

/// What a merge requires of its parts beyond each one's validity (`report merge --expect N
/// --strict`).
public struct MergeRules: Sendable, Equatable {
    /// The shards the parts must be, exactly: `0/N` to `N-1/N`, each once (nil: any parts).
    public var expectedShards: Int?
    /// Refuse parts whose measured windows overlap by less than ``minimumOverlap`` of the
    /// shortest (otherwise a warning).
    public var strict = false

    /// The share of the shortest measured window the parts must share: 90 %.
    public static let minimumOverlap = 0.9

    /// Rules; by default none beyond each part's validity.
    public init(expectedShards: Int? = nil, strict: Bool = false) {
        self.expectedShards = expectedShards
        self.strict = strict
    }
}

extension LoadReport {
    /// What a merge found out about its parts as a whole: which shards they are, how long
    /// they ran together, and which of them cannot be trusted for corrected latency.
    public struct MergeFindings: Codable, Sendable {
        /// How many parts were merged.
        public var parts: Int
        /// The parts' shards (`K/N`), in order; empty when the parts are not shards.
        public var shards: [String]
        /// `--expect N`: the shards required.
        public var expected: Int?
        /// Seconds during which every part was measuring (0 when they did not all meet).
        public var overlapSeconds: Double
        /// ``overlapSeconds`` over the shortest part's measured time (1: fully overlapped).
        public var overlapShare: Double
        /// The parts that fell behind their schedule or ran out of descriptors, and why.
        public var behind: [Behind]
        /// False when any part fell behind: corrected latency assumes every message went out
        /// when it was due, which is not so for those parts.
        public var correctedLatencyValid: Bool
        /// What the merge warns of (too little overlap, parts behind); also in the merged
        /// report's warnings, not in its JSON section.
        public var warnings: [SettingText] = []

        /// One part that could not keep its schedule.
        public struct Behind: Codable, Sendable, Equatable {
            /// The part's name (its file).
            public var part: String
            /// Its shard, if it was one.
            public var shard: String?
            /// Why: one phrase each.
            public var reasons: [String]
        }

        /// The report's lines: the shards, the overlap, and the verdict on corrected latency.
        var lines: [String] {
            var lines: [String] = []
            var parts = "\(self.parts) parts"
            if !shards.isEmpty { parts += ", shards \(shards.joined(separator: ", "))" }
            if let expected { parts += " (all \(expected) expected)" }
            lines.append(parts + "; measured together \(decimal(overlapSeconds, places: 2)) s, \(Int((overlapShare * 100).rounded(.down)))% of the shortest part")
            if correctedLatencyValid {
                lines.append("every part kept its schedule: corrected latency is valid")
            } else {
                for part in behind {
                    lines.append("corrected latency NOT valid for \(part.part)\(part.shard.map { " (shard \($0))" } ?? ""): \(part.reasons.joined(separator: "; "))")
                }
            }
            return lines
        }

        enum CodingKeys: String, CodingKey {
            case parts, shards, expected, behind
            case overlapSeconds = "overlap_seconds"
            case overlapShare = "overlap_share"
            case correctedLatencyValid = "corrected_latency_valid"
        }
    }

    /// The warnings of the merge itself (``MergeFindings/warnings``), apart from its parts' own.
    public var mergeWarnings: [SettingText] { mergeFindings?.warnings ?? [] }

    /// Where each part's measured window lies, from the earliest start, in seconds.
    struct Window {
        var start: Double
        var length: Double
        var end: Double { start + length }
    }

    /// The checks of a merge over its (already validated) parts as a whole: the shards against
    /// `rules` (a missing, duplicate or foreign shard refused, naming it), the overlap of the
    /// measured windows (too little: a warning, refused with `strict`), the parts that fell
    /// behind. Returns the findings, each part's window from the earliest start, and warnings.
    static func checkAsWhole(
        _ parts: [(name: String, report: LoadReport)], rules: MergeRules
    ) throws(LoadGenError) -> (findings: MergeFindings, windows: [Window], warnings: [SettingText]) {
        let shards = try checkShards(parts, expected: rules.expectedShards)
        let starts = parts.map { part in ReportTimestamp(part.report.startedAt).map { Double($0.seconds) + Double($0.nanoseconds) / 1e9 } ?? 0 }
        let earliest = starts.min() ?? 0
        let windows = zip(starts, parts).map { Window(start: $0 - earliest, length: $1.report.elapsedSeconds) }
        var warnings: [SettingText] = []
        let overlap = max(0, (windows.map(\.end).min() ?? 0) - (windows.map(\.start).max() ?? 0))
        let shortestIndex = windows.indices.min { windows[$0].length < windows[$1].length } ?? 0
        let shortest = windows.isEmpty ? 0 : windows[shortestIndex].length
        let share = shortest > 0 ? min(1, overlap / shortest) : 1
        if parts.count > 1 && share < MergeRules.minimumOverlap {
            let latest = windows.indices.max { windows[$0].start < windows[$1].start } ?? 0
            let text = "the parts were measured together for \(Self.seconds(overlap)) s, \(Int((share * 100).rounded(.down)))% of the shortest "
                + "(\(parts[shortestIndex].name), \(Self.seconds(shortest)) s), less than \(Int(MergeRules.minimumOverlap * 100))%: "
                + "\(parts[latest].name) started \(Self.seconds(windows[latest].start)) s after the first; their sums are not one test"
            if rules.strict { throw LoadGenError(.unmergeableReports, SettingText(text)) }
            warnings.append(SettingText(text))
        }
        var behind: [MergeFindings.Behind] = []
        for (name, report) in parts {
            let reasons = report.fellBehind
            guard !reasons.isEmpty else { continue }
            behind.append(MergeFindings.Behind(part: name, shard: report.shard, reasons: reasons))
            warnings.append(SettingText("\(name)\(report.shard.map { " (shard \($0))" } ?? ""): \(reasons.joined(separator: "; ")): its corrected latency is not valid"))
        }
        let findings = MergeFindings(
            parts: parts.count, shards: shards, expected: rules.expectedShards, overlapSeconds: (overlap * 1e6).rounded() / 1e6,
            overlapShare: (share * 1e4).rounded() / 1e4, behind: behind, correctedLatencyValid: behind.isEmpty, warnings: warnings)
        return (findings, windows, warnings)
    }

    /// Why this run's corrected latency cannot be trusted: it fell behind its schedule
    /// (messages due and never sent), or ran out of file descriptors. Empty: it kept up.
    var fellBehind: [String] {
        var reasons: [String] = []
        if config.rate != nil || config.stages != nil, messages.unsent > 0 {
            reasons.append("fell behind its schedule (\(ReportText.grouped(messages.unsent)) of \(ReportText.grouped(messages.intended ?? messages.unsent)) messages due were not sent)")
        }
        if let exhausted = errors[ErrorKind.descriptorsExhausted.rawValue], exhausted > 0 {
            reasons.append("ran out of file descriptors (\(ReportText.grouped(exhausted)) \(ErrorKind.descriptorsExhausted.rawValue) errors)")
        }
        return reasons
    }

    /// The parts' shards, checked: all shards of one split, each once, and with `expected`
    /// exactly `0/N` to `N-1/N`. Returns them in the parts' order (empty: no part is a shard).
    private static func checkShards(_ parts: [(name: String, report: LoadReport)], expected: Int?) throws(LoadGenError) -> [String] {
        var byIndex: [Int: String] = [:]
        var counts: Set<Int> = []
        var named: [String] = []
        for (name, report) in parts {
            guard let text = report.shard else {
                if expected != nil { throw LoadGenError(.unmergeableReports, SettingText("\(name) is not a shard (it has no shard K/N): cannot check it against the shards expected")) }
                continue
            }
            // Validated: it parses.
            guard let shard = try? Shard(parsing: text) else { continue }
            if let other = byIndex[shard.index] {
                throw LoadGenError(.unmergeableReports, SettingText("shard \(shard.index) is there twice: \(other) and \(name)"))
            }
            byIndex[shard.index] = name
            counts.insert(shard.count)
            named.append(text)
            if let expected, shard.count != expected {
                throw LoadGenError(.unmergeableReports, SettingText("\(name) is shard \(shard) of \(shard.count), not of the \(expected) expected"))
            }
        }
        if counts.count > 1 {
            throw LoadGenError(.unmergeableReports, SettingText("the parts are shards of different splits (of \(counts.sorted().map(String.init).joined(separator: ", ")))"))
        }
        if let expected {
            let missing = (0..<expected).filter { byIndex[$0] == nil }
            if !missing.isEmpty {
                let list = missing.prefix(10).map { "\($0)/\(expected)" }.joined(separator: ", ") + (missing.count > 10 ? ", …" : "")
                throw LoadGenError(.unmergeableReports, SettingText("\(missing.count) of the \(expected) shards expected \(missing.count == 1 ? "is" : "are") missing: \(list)"))
            }
        }
        return named
    }

    private static func seconds(_ value: Double) -> String { decimal(value, places: 2) }
}
