/// The checks a report read from a file goes through before anything of it is added: each
/// refusal is one line naming the file and the field (`b.json: messages.sent: -5 is negative`,
/// `b.json: messages.sent: 9223372036854775807 + 5 overflows`).
///
/// Fields are named as the JSON file spells them (`connections.peak_open`, `timeline[3].sent`).
struct ReportCheck {
    /// The file the figures come from (or `report N` when the caller has no file names).
    let name: String

    /// The refusal of `field`, for `problem`.
    func failure(_ field: String, _ problem: String) -> LoadGenError {
        LoadGenError(.invalidReport, "\(name): \(field): \(problem)")
    }

    /// A count: zero or more.
    func count(_ value: Int, _ field: String) throws(LoadGenError) {
        if value < 0 { throw failure(field, "\(value) is negative") }
    }

    /// A count when present.
    func count(_ value: Int?, _ field: String) throws(LoadGenError) {
        if let value { try count(value, field) }
    }

    /// A rate, a share or a latency: a finite number, zero or more.
    func amount(_ value: Double, _ field: String) throws(LoadGenError) {
        if value.isNaN { throw failure(field, "not a number") }
        if !value.isFinite { throw failure(field, "\(value) is not finite") }
        if value < 0 { throw failure(field, "\(value) is negative") }
    }

    /// An amount when present.
    func amount(_ value: Double?, _ field: String) throws(LoadGenError) {
        if let value { try amount(value, field) }
    }

    /// A duration of a run: an amount of at most ``LoadReport/maximumSeconds``.
    func seconds(_ value: Double, _ field: String) throws(LoadGenError) {
        try amount(value, field)
        if value > Double(LoadReport.maximumSeconds) {
            throw failure(field, "\(value) s is longer than any run (at most \(LoadReport.maximumSeconds) s, ten years)")
        }
    }

    /// Seconds when present.
    func seconds(_ value: Double?, _ field: String) throws(LoadGenError) {
        if let value { try seconds(value, field) }
    }

    /// `a + b`, refused when it does not fit.
    func sum(_ a: Int, _ b: Int, _ field: String) throws(LoadGenError) -> Int {
        let (total, overflow) = a.addingReportingOverflow(b)
        if overflow { throw failure(field, "\(a) + \(b) overflows") }
        return total
    }

    /// `a + b` when both are present, else the one that is.
    func sum(_ a: Int?, _ b: Int?, _ field: String) throws(LoadGenError) -> Int? {
        guard let a, let b else { return a ?? b }
        return try sum(a, b, field)
    }

    /// `a + b`, refused when it is no longer finite.
    func sum(_ a: Double, _ b: Double, _ field: String) throws(LoadGenError) -> Double {
        let total = a + b
        if !total.isFinite { throw failure(field, "\(a) + \(b) overflows") }
        return total
    }

    /// `a + b` when both are present, else the one that is.
    func sum(_ a: Double?, _ b: Double?, _ field: String) throws(LoadGenError) -> Double? {
        guard let a, let b else { return a ?? b }
        return try sum(a, b, field)
    }

    /// `a + b` of histogram totals, refused when it does not fit.
    func sum(_ a: UInt64, _ b: UInt64, _ field: String, _ what: String) throws(LoadGenError) -> UInt64 {
        let (total, overflow) = a.addingReportingOverflow(b)
        if overflow { throw failure(field, "\(what) \(a) + \(b) overflows") }
        return total
    }
}
