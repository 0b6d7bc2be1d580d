extension LoadReport {
    /// Adds what `--correlate` and `--label` measured: the rules, the unmatched replies, the
    /// per-label section, and a warning for what the figures do not show on their own.
    mutating func addCorrelation(plan: LoadPlan, counters: LoadCounters, labels table: LabelTable) {
        config.correlate = plan.correlation?.description
        config.label = plan.label?.description
        if plan.correlation != nil && plan.framing != nil {
            messages.unmatched = counters.unmatched
            if let warning = plan.correlationWarning { warnings.append(warning) }
            if counters.duplicateKeys > 0 {
                warnings.append(
                    "\(ReportText.grouped(counters.duplicateKeys)) messages had the key of an unanswered message on their connection: the older of each pair is counted as lost")
            }
        }
        if let rule = plan.label, plan.framing != nil {
            labels = Labels(rule: rule.description, table: table)
            if table.overflowed {
                warnings.append("\(.label) \(rule) had more than \(LabelTable.maximumLabels) values: the rest are counted together as \(LabelTable.otherName)")
            }
        }
    }
}
