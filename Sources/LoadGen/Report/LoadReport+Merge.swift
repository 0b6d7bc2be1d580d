import Histogram

extension LoadReport {
    /// Adds up the reports of runs that loaded the same target at the same time (N copies of
    /// one load test on N machines): counters add, histograms add (so percentiles are exact,
    /// not averaged), rates are the totals over the longest run, peak connections add (the
    /// runs overlapped). Per-second timelines add their counts; their latency columns cannot be
    /// added and are dropped. Thresholds are not carried over (evaluate them on the result).
    ///
    /// Refused: an empty list, another schema, reports of different targets or transports, or
    /// histograms that do not decode.
    public static func merge(_ reports: [LoadReport]) throws(LoadGenError) -> LoadReport {
        guard var merged = reports.first else { throw LoadGenError(.unmergeableReports, "nothing to merge") }
        for report in reports where report.schema != schemaVersion {
            throw LoadGenError(.unmergeableReports, "a report has schema '\(report.schema)', expected '\(schemaVersion)'")
        }
        var corrected: Histogram<UInt64>?
        var uncorrected: Histogram<UInt64>?
        var handshakes: Histogram<UInt64>?
        for (index, report) in reports.enumerated() {
            if report.transport != merged.transport || report.target != merged.target {
                throw LoadGenError(.unmergeableReports, "report \(index + 1) loaded \(report.transport) \(report.target), report 1 \(merged.transport) \(merged.target)")
            }
            do {
                if let encoded = report.tlsHandshakeHistogram {
                    let decoded = try HistogramCodec.decode(encoded)
                    if handshakes == nil { handshakes = decoded } else { handshakes?.add(decoded) }
                }
                if let pair = try report.decodedHistograms() {
                    if corrected == nil {
                        corrected = pair.corrected
                        uncorrected = pair.uncorrected
                    } else {
                        corrected?.add(pair.corrected)
                        uncorrected?.add(pair.uncorrected)
                    }
                }
            } catch {
                throw LoadGenError(.unmergeableReports, "report \(index + 1): \(error.description)")
            }
        }
        for report in reports.dropFirst() {
            merged.hosts += report.hosts
            if let interrupted = report.interrupted { merged.interrupted = merged.interrupted == true || interrupted }
            merged.startedAt = min(merged.startedAt, report.startedAt)
            merged.elapsedSeconds = max(merged.elapsedSeconds, report.elapsedSeconds)
            merged.config.connections += report.config.connections
            if merged.config.io != report.config.io { merged.config.io = "mixed" }
            merged.config.rate = sum(merged.config.rate, report.config.rate)
            merged.config.requests = sum(merged.config.requests, report.config.requests)
            merged.connections.requested += report.connections.requested
            merged.connections.attempted += report.connections.attempted
            merged.connections.established += report.connections.established
            merged.connections.failed += report.connections.failed
            merged.connections.lost += report.connections.lost
            merged.connections.peakOpen += report.connections.peakOpen
            merged.messages.intended = sum(merged.messages.intended, report.messages.intended)
            merged.messages.sent += report.messages.sent
            merged.replay = Replay.merged(merged.replay, report.replay)
            merged.messages.received += report.messages.received
            merged.messages.timedOut += report.messages.timedOut
            merged.messages.lost += report.messages.lost
            merged.messages.unsent += report.messages.unsent
            merged.messages.warmupSent += report.messages.warmupSent
            merged.messages.unmatched = sum(merged.messages.unmatched, report.messages.unmatched)
            merged.bytes.sent += report.bytes.sent
            merged.bytes.received += report.bytes.received
            for (kind, count) in report.errors { merged.errors[kind, default: 0] += count }
            for (kind, text) in report.errorExamples where merged.errorExamples[kind] == nil { merged.errorExamples[kind] = text }
            merged.peakRSSBytes = max(merged.peakRSSBytes, report.peakRSSBytes)
            merged.warnings += report.warnings
            merged.timeline = mergeTimelines(merged.timeline, report.timeline)
        }
        if reports.count > 1 {
            merged.timeline = merged.timeline.map { entry in
                var entry = entry
                entry.p50 = nil
                entry.p99 = nil
                return entry
            }
        }
        let seconds = max(merged.elapsedSeconds, 1e-6)
        merged.throughput = Throughput(
            offeredPerSecond: merged.throughput.offeredPerSecond == nil ? nil : merged.messages.intended.map { Double($0) / seconds },
            sentPerSecond: Double(merged.messages.sent) / seconds,
            receivedPerSecond: Double(merged.messages.received) / seconds,
            sentBytesPerSecond: Double(merged.bytes.sent) / seconds,
            receivedBytesPerSecond: Double(merged.bytes.received) / seconds)
        if let corrected, let uncorrected {
            merged.setLatency(corrected: corrected, uncorrected: uncorrected)
        } else {
            merged.latency = nil
            merged.histograms = nil
        }
        if let handshakes { merged.setHandshakes(handshakes) }
        do {
            merged.labels = try Labels.merge(reports.compactMap(\.labels))
        } catch {
            throw LoadGenError(.unmergeableReports, "--label section: \(error.description)")
        }
        merged.thresholds = []
        return merged
    }

    private static func sum<T: AdditiveArithmetic>(_ a: T?, _ b: T?) -> T? {
        guard let a, let b else { return a ?? b }
        return a + b
    }

    private static func mergeTimelines(_ a: [Interval], _ b: [Interval]) -> [Interval] {
        var bySecond: [Int: Interval] = [:]
        for entry in a + b {
            if var existing = bySecond[entry.second] {
                existing.span = max(existing.span, entry.span)
                existing.open += entry.open
                existing.sent += entry.sent
                existing.received += entry.received
                existing.errors += entry.errors
                bySecond[entry.second] = existing
            } else {
                bySecond[entry.second] = entry
            }
        }
        return bySecond.values.sorted { $0.second < $1.second }
    }
}
