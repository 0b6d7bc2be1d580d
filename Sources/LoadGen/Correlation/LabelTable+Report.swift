extension LoadReport.Labels {
    /// The report's section from the run's table.
    init(rule: String, table: LabelTable) {
        self.init(rule: rule, values: Self.values(of: table.entries))
    }

    /// The table's entries as report values, in the report's order (``ordered(_:)``).
    static func values(of entries: [LabelTable.Entry]) -> [Value] {
        ordered(entries.map { entry in
            Value(
                label: entry.name, sent: entry.sent, received: entry.received, timedOut: entry.timedOut, lost: entry.lost,
                latency: entry.corrected.flatMap { LoadReport.Percentiles($0) },
                histogram: entry.corrected.flatMap { $0.totalCount > 0 ? HistogramCodec.encode($0) : nil })
        })
    }
}

extension LoadReport {
    /// The `--label` section as table entries (histograms decoded; one that does not decode is
    /// left out), for the final metrics.
    var labelEntries: [LabelTable.Entry] {
        (labels?.values ?? []).map { value in
            var entry = LabelTable.Entry(name: value.label)
            entry.sent = value.sent
            entry.received = value.received
            entry.timedOut = value.timedOut
            entry.lost = value.lost
            entry.corrected = value.histogram.flatMap { try? HistogramCodec.decode($0) }
            return entry
        }
    }
}
