import Histogram

/// Counts and latency per `--label` value (e.g. per `op` of a JSON request), kept beside the
/// run's totals by each event loop or connection thread (``LoadStats``) and added up at the end.
///
/// A request's label is found in the request itself (``MessageField``), once per message as a
/// ``FieldKey``; the value's text is made only the first time it is seen. A request without a
/// value is counted under `(none)`. At most ``maximumLabels`` values are kept apart: later ones
/// are counted together under `(other)`, and the report says so once.
///
/// Each label's latency histogram (corrected, as the report's headline latency) has two
/// significant digits — 1 % resolution, a twelfth of the memory of the run's three-digit ones —
/// and is made when the label's first reply comes.
struct LabelTable: Sendable {
    /// The most label values kept apart (the report's limit).
    static let maximumLabels = LoadReport.Labels.maximumValues
    /// Where values past ``maximumLabels`` are counted.
    static let otherName = LoadReport.Labels.otherName
    /// Where requests without a value are counted.
    static let noneName = LoadReport.Labels.noneName

    /// One label value's figures.
    struct Entry: Sendable {
        var name: String
        var sent = 0
        var received = 0
        var timedOut = 0
        var lost = 0
        /// Corrected latency of the replies, ns (nil until the first one).
        var corrected: Histogram<UInt64>?

        init(name: String) { self.name = name }

        mutating func add(_ other: Entry) {
            sent += other.sent
            received += other.received
            timedOut += other.timedOut
            lost += other.lost
            if let latency = other.corrected {
                if corrected == nil { corrected = latency } else { corrected?.add(latency) }
            }
        }
    }

    private(set) var entries: [Entry] = []
    private var byKey: [FieldKey: Int32] = [:]
    private var byName: [String: Int32] = [:]
    /// Some values were counted under ``otherName``.
    private(set) var overflowed = false

    static func makeHistogram() -> Histogram<UInt64> {
        Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: LoadStats.highestTrackableNanos, numberOfSignificantValueDigits: .two)
    }

    /// The index of the label whose key is `key` (nil: the request has no value), adding it —
    /// named by `name()`, called only then — when it is new.
    @inline(__always)
    mutating func index(for key: FieldKey?, name: () -> String?) -> Int32 {
        guard let key else { return index(named: Self.noneName) }
        if let index = byKey[key] { return index }
        let index = index(named: name() ?? Self.noneName)
        byKey[key] = index
        return index
    }

    /// The index of the label `name`, adding it (or, past the limit, `(other)`).
    mutating func index(named name: String) -> Int32 {
        if let index = byName[name] { return index }
        var name = name
        if entries.count >= Self.maximumLabels && name != Self.noneName {
            overflowed = true
            name = Self.otherName
            if let index = byName[name] { return index }
        }
        let index = Int32(entries.count)
        entries.append(Entry(name: name))
        byName[name] = index
        return index
    }

    @inline(__always)
    mutating func countSent(_ index: Int32) {
        guard index >= 0, Int(index) < entries.count else { return }
        entries[Int(index)].sent += 1
    }

    @inline(__always)
    mutating func countReceived(_ index: Int32, correctedNanos: UInt64) {
        guard index >= 0, Int(index) < entries.count else { return }
        entries[Int(index)].received += 1
        if entries[Int(index)].corrected == nil { entries[Int(index)].corrected = Self.makeHistogram() }
        entries[Int(index)].corrected?.record(correctedNanos)
    }

    mutating func countTimedOut(_ index: Int32) {
        guard index >= 0, Int(index) < entries.count else { return }
        entries[Int(index)].timedOut += 1
    }

    mutating func countLost(_ index: Int32) {
        guard index >= 0, Int(index) < entries.count else { return }
        entries[Int(index)].lost += 1
    }

    /// Adds another table's figures, label by label (by name).
    mutating func add(_ other: LabelTable) {
        overflowed = overflowed || other.overflowed
        for entry in other.entries { add(entry) }
    }

    /// Adds one label's figures to the label of its name (or to `(other)`, past the limit).
    mutating func add(_ entry: Entry) {
        let index = Int(index(named: entry.name))
        if index < entries.count { entries[index].add(entry) }
    }
}
