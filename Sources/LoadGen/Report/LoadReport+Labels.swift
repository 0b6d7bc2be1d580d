import Histogram

extension LoadReport {
    /// `--label`: the run's messages split by a value of each request (e.g. its `op`), each
    /// with its own counts and corrected latency. The label's histograms (two significant
    /// digits) are kept encoded, so that `sockctl report merge` adds them exactly.
    public struct Labels: Codable, Sendable {
        /// The `--label` rule (`json:$.op`).
        public var rule: String
        /// One entry per value, the most sent first; `(none)` for requests without a value,
        /// `(other)` for the values past ``maximumValues``.
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

        /// The most label values a run keeps apart (``LabelTable`` counts the rest together).
        package static let maximumValues = 100
        /// Where values past ``maximumValues`` are counted.
        package static let otherName = "(other)"
        /// Where requests without a value are counted.
        package static let noneName = "(none)"

        /// `values` in the report's order: the most sent first, then by name.
        static func ordered(_ values: [Value]) -> [Value] {
            values.sorted { $0.sent != $1.sent ? $0.sent > $1.sent : $0.label < $1.label }
        }

        /// Several reports' sections added up by label value (histograms decoded, their layouts
        /// compared and their totals checked, counts added with checked arithmetic); values
        /// past ``maximumValues`` are counted together under `(other)`, as the run does.
        /// Sections of other `--label` rules are refused.
        static func merge(_ sections: [(name: String, labels: Labels)]) throws(LoadGenError) -> Labels? {
            guard let (firstName, first) = sections.first else { return nil }
            var merged: [Value] = []
            var histograms: [HistogramSum] = []
            var indexByLabel: [String: Int] = [:]
            for (name, section) in sections {
                let check = ReportCheck(name: name)
                if section.rule != first.rule {
                    throw check.failure("labels.rule", "'\(section.rule)', \(firstName) has '\(first.rule)'")
                }
                for (position, value) in section.values.enumerated() {
                    let field = "labels.values[\(position)]"
                    var label = value.label
                    if indexByLabel[label] == nil && merged.count >= maximumValues && label != noneName { label = otherName }
                    let index: Int
                    if let known = indexByLabel[label] {
                        index = known
                    } else {
                        index = merged.count
                        indexByLabel[label] = index
                        merged.append(Value(label: label, sent: 0, received: 0, timedOut: 0, lost: 0, latency: nil, histogram: nil))
                        histograms.append(HistogramSum(field: "\(field).histogram"))
                    }
                    merged[index].sent = try check.sum(merged[index].sent, value.sent, "\(field).sent")
                    merged[index].received = try check.sum(merged[index].received, value.received, "\(field).received")
                    merged[index].timedOut = try check.sum(merged[index].timedOut, value.timedOut, "\(field).timed_out")
                    merged[index].lost = try check.sum(merged[index].lost, value.lost, "\(field).lost")
                    if let encoded = value.histogram { try histograms[index].add(encoded, from: name) }
                }
            }
            for index in merged.indices {
                let histogram = histograms[index].histogram
                merged[index].latency = histogram.flatMap { Percentiles($0) }
                merged[index].histogram = histogram.flatMap { $0.totalCount > 0 ? HistogramCodec.encode($0) : nil }
            }
            return Labels(rule: first.rule, values: ordered(merged))
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
