import Histogram

/// Encoded histograms of one kind (say every part's `histograms.corrected`) added up, each
/// checked before it is added: it must decode (``HistogramCodec/decode(_:)-(String)``), have
/// the layout of the first one (lowest discernible and highest trackable value, significant
/// digits), and keep the total count and the sum of the recorded values within 64 bits — what
/// the histogram library needs to add and read them without trapping.
struct HistogramSum {
    /// The field the histograms come from (`histograms.corrected`), for messages.
    let field: String
    /// The sum so far; nil before the first.
    private(set) var histogram: Histogram<UInt64>?
    /// The part whose histogram set the layout.
    private var source = ""
    /// The sum of the recorded values (each at the top of its slot's range, as the library sums them).
    private var valueSum: UInt64 = 0

    init(field: String) { self.field = field }

    /// Decodes `encoded` (from the part `name`) and adds it; returns the decoded histogram.
    @discardableResult
    mutating func add(_ encoded: String, from name: String) throws(LoadGenError) -> Histogram<UInt64> {
        let decoded: Histogram<UInt64>
        do {
            decoded = try HistogramCodec.decode(encoded)
        } catch {
            throw ReportCheck(name: name).failure(field, error.message)
        }
        try add(decoded, from: name)
        return decoded
    }

    /// Adds a decoded histogram from the part `name`.
    mutating func add(_ other: Histogram<UInt64>, from name: String) throws(LoadGenError) {
        let otherSum = HistogramCodec.valueSum(of: other)
        guard var histogram else {
            self.histogram = other
            source = name
            valueSum = otherSum
            return
        }
        let check = ReportCheck(name: name)
        if other.numberOfSignificantValueDigits != histogram.numberOfSignificantValueDigits {
            throw check.failure(field, "\(other.numberOfSignificantValueDigits.rawValue) significant digits, \(source) has \(histogram.numberOfSignificantValueDigits.rawValue)")
        }
        if other.lowestDiscernibleValue != histogram.lowestDiscernibleValue {
            throw check.failure(field, "lowest discernible value \(other.lowestDiscernibleValue), \(source) has \(histogram.lowestDiscernibleValue)")
        }
        if other.highestTrackableValue != histogram.highestTrackableValue {
            throw check.failure(field, "highest trackable value \(other.highestTrackableValue), \(source) has \(histogram.highestTrackableValue)")
        }
        _ = try check.sum(histogram.totalCount, other.totalCount, field, "count")
        valueSum = try check.sum(valueSum, otherSum, field, "sum of the values")
        histogram.add(other)
        self.histogram = histogram
    }
}
