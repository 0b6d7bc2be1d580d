import Histogram

extension LoadReport {
    /// `--label`: the run's messages split by a value of each request (e.g. its `op`), each
    /// with its own counts and corrected latency. The label's histograms (two significant
    /// digits) are kept encoded, so that `sockctl report merge` adds them exactly.
    public struct Labels: Codable, Sendable {
        /// The `--label` rule (`json:$.op`).
        public var rule: String
        /// One entry per value, the most sent first; `(none)` for requests without a value,
        /// `(other)` for the values past the limit of ``LabelTable/maximumLabels``.
        package var values: [Value]

        /// One label value's figures.
        package struct Value: Codable, Sendable {
            package var label: String
            package var sent: Int
            package var received: Int
            package var timedOut: Int
            package var lost: Int
            /// Corrected latency, µs (nil when nothing came back).
            package var latency: Percentiles?
            /// The latency histogram (ns), HdrHistogram V2 compressed, base64.
            package var histogram: String?

            enum CodingKeys: String, CodingKey {
                case label, sent, received, lost, latency, histogram
                case timedOut = "timed_out"
            }
        }

        /// The report's section from the run's table.
        init(rule: String, table: LabelTable) {
            self.rule = rule
            values = Self.values(of: table.entries)
        }

        /// The table's entries as report values, the most sent first (then by name).
        static func values(of entries: [LabelTable.Entry]) -> [Value] {
            entries.sorted { $0.sent != $1.sent ? $0.sent > $1.sent : $0.name < $1.name }.map { entry in
                Value(
                    label: entry.name, sent: entry.sent, received: entry.received, timedOut: entry.timedOut, lost: entry.lost,
                    latency: entry.corrected.flatMap { Percentiles($0) },
                    histogram: entry.corrected.flatMap { $0.totalCount > 0 ? HistogramCodec.encode($0) : nil })
            }
        }

        /// Several reports' sections added up by label value (histograms decoded and added); the
        /// values past the limit are counted together under `(other)` again.
        static func merge(_ sections: [Labels]) throws(LoadGenError) -> Labels? {
            guard let first = sections.first else { return nil }
            var table = LabelTable()
            for section in sections {
                for value in section.values {
                    var entry = value.entry
                    if let encoded = value.histogram { entry.corrected = try HistogramCodec.decode(encoded) }
                    table.add(entry)
                }
            }
            return Labels(rule: first.rule, table: table)
        }
    }

    /// The per-label table of the text report: one row per value.
    var labelLines: [String] {
        guard let labels else { return [] }
        let width = min(24, max(5, labels.values.map(\.label.count).max() ?? 5))
        func cell(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        func name(_ text: String) -> String {
            let cut = text.count > width ? String(text.prefix(width - 1)) + "…" : text
            return cut + String(repeating: " ", count: max(0, width - cut.count))
        }
        var lines = ["by \(labels.rule), corrected latency:"]
        lines.append(name("label") + cell("sent", 12) + cell("received", 12) + cell("timed out", 11) + cell("lost", 9) + cell("p50", 10) + cell("p99", 10) + cell("max", 10))
        for value in labels.values {
            var line = name(value.label) + cell(ReportText.grouped(value.sent), 12) + cell(ReportText.grouped(value.received), 12)
            line += cell(ReportText.grouped(value.timedOut), 11) + cell(ReportText.grouped(value.lost), 9)
            if let latency = value.latency {
                line += cell(ReportText.latency(latency.p50), 10) + cell(ReportText.latency(latency.p99), 10) + cell(ReportText.latency(latency.max), 10)
            } else {
                line += cell("-", 10) + cell("-", 10) + cell("-", 10)
            }
            lines.append(line)
        }
        return lines
    }
}

extension LoadReport {
    /// The `--label` section as table entries (histograms decoded; one that does not decode is
    /// left out), for the final metrics.
    var labelEntries: [LabelTable.Entry] {
        (labels?.values ?? []).map { value in
            var entry = value.entry
            entry.corrected = value.histogram.flatMap { try? HistogramCodec.decode($0) }
            return entry
        }
    }
}

extension LoadReport.Labels.Value {
    /// The counts as a table entry (without the histogram, which the caller decodes).
    var entry: LabelTable.Entry {
        var entry = LabelTable.Entry(name: label)
        entry.sent = sent
        entry.received = received
        entry.timedOut = timedOut
        entry.lost = lost
        return entry
    }
}
