import Histogram
import SocketEngine

extension LoadReport {
    /// Adds up the reports of runs that loaded the same target at the same time (N copies of
    /// one load test on N machines): counters add, histograms add (so percentiles are exact,
    /// not averaged), rates are the totals over the longest run, peak connections add (the
    /// runs overlapped). Per-second timelines add their counts; their latency columns cannot be
    /// added and are dropped. Thresholds are not carried over (evaluate them on the result).
    ///
    /// Every part is checked before anything of it is added (``validate(named:)``), its
    /// histograms are decoded and their layouts compared with the first part's, and every sum
    /// is checked: a report a hostile or broken file makes is refused with one line naming the
    /// part's `name` and the field (`.invalidReport`), never a trap. A merge of one report
    /// checks it the same way and gives it back with its figures recomputed from its histograms.
    ///
    /// Refused as well (`.unmergeableReports`): an empty list, reports of different targets or
    /// transports.
    public static func merge(named parts: [(name: String, report: LoadReport)]) throws(LoadGenError) -> LoadReport {
        guard let (_, first) = parts.first else { throw LoadGenError(.unmergeableReports, "nothing to merge") }
        var merged = first
        var corrected = HistogramSum(field: "histograms.corrected")
        var uncorrected = HistogramSum(field: "histograms.uncorrected")
        var handshakes = HistogramSum(field: "tls_handshake_histogram")
        var tunnels = HistogramSum(field: "proxy_tunnel_histogram")
        var timeline: [Int: Interval] = [:]
        for (index, (name, report)) in parts.enumerated() {
            try report.validate(named: name)
            if report.transport != first.transport || report.target != first.target {
                throw LoadGenError(.unmergeableReports, SettingText(differentTargets(parts)))
            }
            if let histograms = report.histograms {
                let correctedPart = try corrected.add(histograms.corrected, from: name)
                let uncorrectedPart = try uncorrected.add(histograms.uncorrected, from: name)
                // Each reply is recorded in both.
                if correctedPart.totalCount != uncorrectedPart.totalCount {
                    throw ReportCheck(name: name).failure("histograms.uncorrected", "\(uncorrectedPart.totalCount) values, histograms.corrected has \(correctedPart.totalCount)")
                }
            }
            if let encoded = report.tlsHandshakeHistogram { try handshakes.add(encoded, from: name) }
            if let encoded = report.proxyTunnelHistogram { try tunnels.add(encoded, from: name) }
            if index > 0 { try merged.add(report, check: ReportCheck(name: name)) }
            try Self.add(report.timeline, to: &timeline, check: ReportCheck(name: name))
        }
        merged.timeline = timeline.values.sorted { $0.second < $1.second }.map { entry in
            guard parts.count > 1 else { return entry }
            var entry = entry
            entry.p50 = nil
            entry.p99 = nil
            return entry
        }
        let seconds = max(merged.elapsedSeconds, 1e-6)
        merged.throughput = Throughput(
            offeredPerSecond: merged.throughput.offeredPerSecond == nil ? nil : merged.messages.intended.map { Double($0) / seconds },
            sentPerSecond: Double(merged.messages.sent) / seconds,
            receivedPerSecond: Double(merged.messages.received) / seconds,
            sentBytesPerSecond: Double(merged.bytes.sent) / seconds,
            receivedBytesPerSecond: Double(merged.bytes.received) / seconds)
        if let corrected = corrected.histogram, let uncorrected = uncorrected.histogram {
            merged.setLatency(corrected: corrected, uncorrected: uncorrected)
        } else {
            merged.latency = nil
            merged.histograms = nil
        }
        merged.tlsHandshake = nil
        merged.tlsHandshakeHistogram = nil
        if let handshakes = handshakes.histogram { merged.setHandshakes(handshakes) }
        merged.proxyTunnel = nil
        merged.proxyTunnelHistogram = nil
        if let tunnels = tunnels.histogram { merged.setTunnels(tunnels) }
        merged.labels = try Labels.merge(parts.compactMap { part in part.report.labels.map { (part.name, $0) } })
        merged.thresholds = []
        merged.schema = Self.schemaVersion
        return merged
    }

    /// `the results are of different targets: a.json and c.json loaded 127.0.0.1:7000 (tcp),
    /// b.json loaded 127.0.0.1:7001 (tcp)`: every target, in the order the parts first name it,
    /// with the parts that hold it.
    private static func differentTargets(_ parts: [(name: String, report: LoadReport)]) -> String {
        var targets: [(target: String, names: [String])] = []
        for (name, report) in parts {
            let target = "\(report.target) (\(report.transport))"
            if let index = targets.firstIndex(where: { $0.target == target }) {
                targets[index].names.append(name)
            } else {
                targets.append((target, [name]))
            }
        }
        let held = targets.map { entry in
            let names = entry.names.count > 1 ? entry.names.dropLast().joined(separator: ", ") + " and " + (entry.names.last ?? "") : entry.names.joined()
            return "\(names) loaded \(entry.target)"
        }
        return "the results are of different targets: " + held.joined(separator: ", ")
    }

    /// The merge of reports without file names: messages name them
    /// `report 1`, `report 2`, …
    public static func merge(_ reports: [LoadReport]) throws(LoadGenError) -> LoadReport {
        try merge(named: reports.enumerated().map { (name: "report \($0.offset + 1)", report: $0.element) })
    }

    /// Adds the counters of `other` (already validated) with checked sums; `check` names it.
    private mutating func add(_ other: LoadReport, check: ReportCheck) throws(LoadGenError) {
        hosts = try check.sum(hosts, other.hosts, "hosts")
        if let interrupted = other.interrupted { self.interrupted = self.interrupted == true || interrupted }
        if let earliest = ReportTimestamp(startedAt), let theirs = ReportTimestamp(other.startedAt), theirs < earliest {
            startedAt = other.startedAt
        }
        elapsedSeconds = max(elapsedSeconds, other.elapsedSeconds)
        config.connections = try check.sum(config.connections, other.config.connections, "config.connections")
        if config.io != other.config.io { config.io = "mixed" }
        config.rate = try check.sum(config.rate, other.config.rate, "config.rate")
        config.requests = try check.sum(config.requests, other.config.requests, "config.requests")
        connections.requested = try check.sum(connections.requested, other.connections.requested, "connections.requested")
        connections.attempted = try check.sum(connections.attempted, other.connections.attempted, "connections.attempted")
        connections.established = try check.sum(connections.established, other.connections.established, "connections.established")
        connections.failed = try check.sum(connections.failed, other.connections.failed, "connections.failed")
        connections.lost = try check.sum(connections.lost, other.connections.lost, "connections.lost")
        connections.peakOpen = try check.sum(connections.peakOpen, other.connections.peakOpen, "connections.peak_open")
        messages.intended = try check.sum(messages.intended, other.messages.intended, "messages.intended")
        messages.sent = try check.sum(messages.sent, other.messages.sent, "messages.sent")
        messages.received = try check.sum(messages.received, other.messages.received, "messages.received")
        messages.timedOut = try check.sum(messages.timedOut, other.messages.timedOut, "messages.timed_out")
        messages.lost = try check.sum(messages.lost, other.messages.lost, "messages.lost")
        messages.unsent = try check.sum(messages.unsent, other.messages.unsent, "messages.unsent")
        messages.warmupSent = try check.sum(messages.warmupSent, other.messages.warmupSent, "messages.warmup_sent")
        messages.unmatched = try check.sum(messages.unmatched, other.messages.unmatched, "messages.unmatched")
        replay = try Replay.merged(replay, other.replay, check: check)
        if let theirs = other.http { http = try http.map { mine throws(LoadGenError) in try mine.adding(theirs, check: check) } ?? theirs }
        bytes.sent = try check.sum(bytes.sent, other.bytes.sent, "bytes.sent")
        bytes.received = try check.sum(bytes.received, other.bytes.received, "bytes.received")
        for (kind, count) in other.errors { errors[kind] = try check.sum(errors[kind] ?? 0, count, "errors.\(kind)") }
        for (kind, text) in other.errorExamples where errorExamples[kind] == nil { errorExamples[kind] = text }
        peakRSSBytes = max(peakRSSBytes, other.peakRSSBytes)
        warnings += other.warnings
    }

    /// Adds a part's timeline to the entries by second (the counts of a second already there
    /// added, checked by `check`).
    private static func add(_ entries: [Interval], to bySecond: inout [Int: Interval], check: ReportCheck) throws(LoadGenError) {
        for (index, entry) in entries.enumerated() {
            guard var existing = bySecond[entry.second] else {
                bySecond[entry.second] = entry
                continue
            }
            let field = "timeline[\(index)]"
            existing.span = max(existing.span, entry.span)
            existing.open = try check.sum(existing.open, entry.open, "\(field).open")
            existing.sent = try check.sum(existing.sent, entry.sent, "\(field).sent")
            existing.received = try check.sum(existing.received, entry.received, "\(field).received")
            existing.errors = try check.sum(existing.errors, entry.errors, "\(field).errors")
            bySecond[entry.second] = existing
        }
    }
}
