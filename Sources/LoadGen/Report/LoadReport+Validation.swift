extension LoadReport {
    /// The longest time a report may speak of, in seconds: ten years. Elapsed, warm-up, duration,
    /// timeout and timeline seconds beyond it are refused (no run lasts that long).
    package static let maximumSeconds = 315_360_000

    /// Checks every figure of a report read from a file before anything of it is added: counts
    /// are zero or more, rates and latencies finite and zero or more, times within
    /// ``maximumSeconds``, `started_at` a UTC time, `hosts` at least 1, the `labels` section at
    /// most ``Labels/maximumValues`` values plus `(none)` and `(other)`, the `http` responses adding
    /// up to the messages received.
    ///
    /// The histograms are checked where they are decoded, by ``merge(named:)``; the free text
    /// (target, warnings, error examples) and the thresholds (a merge drops them) are not
    /// checked. Throws `.invalidReport` naming `name` and the field.
    package func validate(named name: String) throws(LoadGenError) {
        let check = ReportCheck(name: name)
        guard Self.readableSchemas.contains(schema) else {
            let older = Self.readableSchemas.subtracting([Self.schemaVersion]).sorted().map { "'\($0)'" }.joined(separator: ", ")
            throw check.failure("schema", "'\(schema)', expected '\(Self.schemaVersion)' (or the older \(older))")
        }
        guard ReportTimestamp(startedAt) != nil else {
            throw check.failure("started_at", "'\(startedAt)' is not a UTC time such as 2026-11-23T08:00:00.000Z")
        }
        if hosts < 1 { throw check.failure("hosts", "\(hosts) is not a number of runs") }
        try check.seconds(elapsedSeconds, "elapsed_seconds")
        try config.validate(check)
        try check.count(connections.requested, "connections.requested")
        try check.count(connections.attempted, "connections.attempted")
        try check.count(connections.established, "connections.established")
        try check.count(connections.failed, "connections.failed")
        try check.count(connections.lost, "connections.lost")
        try check.count(connections.peakOpen, "connections.peak_open")
        try check.count(messages.intended, "messages.intended")
        try check.count(messages.sent, "messages.sent")
        try check.count(messages.received, "messages.received")
        try check.count(messages.timedOut, "messages.timed_out")
        try check.count(messages.lost, "messages.lost")
        try check.count(messages.unsent, "messages.unsent")
        try check.count(messages.warmupSent, "messages.warmup_sent")
        try check.count(messages.unmatched, "messages.unmatched")
        try check.count(bytes.sent, "bytes.sent")
        try check.count(bytes.received, "bytes.received")
        try check.amount(throughput.offeredPerSecond, "throughput.offered_per_second")
        try check.amount(throughput.sentPerSecond, "throughput.sent_per_second")
        try check.amount(throughput.receivedPerSecond, "throughput.received_per_second")
        try check.amount(throughput.sentBytesPerSecond, "throughput.sent_bytes_per_second")
        try check.amount(throughput.receivedBytesPerSecond, "throughput.received_bytes_per_second")
        try latency?.corrected.validate(check, "latency.corrected")
        try latency?.uncorrected.validate(check, "latency.uncorrected")
        if let histograms, histograms.unit != "ns" { throw check.failure("histograms.unit", "'\(histograms.unit)', expected 'ns'") }
        try tlsHandshake?.validate(check, "tls_handshake")
        try proxyTunnel?.validate(check, "proxy_tunnel")
        for (kind, count) in errors { try check.count(count, "errors.\(kind)") }
        for (index, interval) in timeline.enumerated() { try interval.validate(check, "timeline[\(index)]") }
        try check.count(peakRSSBytes, "peak_rss_bytes")
        try replay?.validate(check)
        try labels?.validate(check)
        try http?.validate(check, received: messages.received)
    }
}

extension LoadReport.Config {
    func validate(_ check: ReportCheck) throws(LoadGenError) {
        try check.count(connections, "config.connections")
        try check.amount(connectRate, "config.connect_rate")
        try check.seconds(durationSeconds, "config.duration_seconds")
        try check.count(requests, "config.requests")
        try check.amount(rate, "config.rate")
        if pipeline < 1 { throw check.failure("config.pipeline", "\(pipeline) is not a number of messages") }
        try check.count(threads, "config.threads")
        try check.seconds(warmupSeconds, "config.warmup_seconds")
        try check.count(messageBytes, "config.message_bytes")
        try check.seconds(timeoutSeconds, "config.timeout_seconds")
    }
}

extension LoadReport.Percentiles {
    func validate(_ check: ReportCheck, _ field: String) throws(LoadGenError) {
        try check.count(count, "\(field).count")
        for (name, value) in [("min", min), ("mean", mean), ("p50", p50), ("p90", p90), ("p99", p99), ("p99.9", p99_9), ("p99.99", p99_99), ("max", max)] {
            try check.amount(value, "\(field).\(name)")
        }
    }
}

extension LoadReport.Interval {
    func validate(_ check: ReportCheck, _ field: String) throws(LoadGenError) {
        if second < 0 || second > LoadReport.maximumSeconds {
            throw check.failure("\(field).second", "\(second) is not a second of a run (0 to \(LoadReport.maximumSeconds))")
        }
        try check.seconds(span, "\(field).span")
        try check.count(open, "\(field).open")
        try check.count(sent, "\(field).sent")
        try check.count(received, "\(field).received")
        try check.count(errors, "\(field).errors")
        try check.amount(p50, "\(field).p50")
        try check.amount(p99, "\(field).p99")
    }
}

extension LoadReport.Replay {
    func validate(_ check: ReportCheck) throws(LoadGenError) {
        try check.count(streams, "replay.streams")
        if scale < 1 { throw check.failure("replay.scale", "\(scale) is not a number of copies") }
        if let speed, !(speed.isFinite && speed > 0) { throw check.failure("replay.speed", "\(speed) is not a speed") }
        try check.count(messagesPerRound, "replay.messages_per_round")
        try check.count(runs, "replay.runs")
        try check.count(runsCompleted, "replay.runs_completed")
        try check.count(oneWay, "replay.one_way")
        if let verify {
            try check.amount(verify.samplePercent, "replay.verify.sample_percent")
            if verify.samplePercent > 100 { throw check.failure("replay.verify.sample_percent", "\(verify.samplePercent) is more than 100") }
            try check.count(verify.checked, "replay.verify.checked")
            try check.count(verify.mismatched, "replay.verify.mismatched")
        }
    }
}

extension LoadReport.Labels {
    func validate(_ check: ReportCheck) throws(LoadGenError) {
        if values.count > Self.maximumValues + 2 {
            throw check.failure("labels.values", "\(values.count) values, more than a run keeps (\(Self.maximumValues), \(Self.noneName) and \(Self.otherName))")
        }
        for (index, value) in values.enumerated() {
            let field = "labels.values[\(index)]"
            try check.count(value.sent, "\(field).sent")
            try check.count(value.received, "\(field).received")
            try check.count(value.timedOut, "\(field).timed_out")
            try check.count(value.lost, "\(field).lost")
            try value.latency?.validate(check, "\(field).latency")
        }
    }
}
