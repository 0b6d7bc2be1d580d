import SocketEngine

/// `--streams 1,3,5-9`: the recorded streams to replay, by the numbers `sockctl replay --list`
/// prints.
///
/// Numbers and inclusive ranges, separated by commas; spaces are ignored, order and repeats do
/// not matter. Refused with one line naming the bad part: an empty item, a number below 1 or
/// above ``maximum``, a range that runs backwards, anything that is not a number.
public struct StreamList: Sendable, Equatable {
    /// The chosen stream numbers, ascending, each once.
    public let numbers: [Int]
    /// The largest stream number accepted (``PacketDecoding/StreamExtractor/maximumStreams``).
    package static let maximum = 100_000

    /// Parses a `--streams` list.
    public init(parsing text: String) throws(LoadGenError) {
        var chosen = Set<Int>()
        let items = text.filter { !$0.isWhitespace }.split(separator: ",", omittingEmptySubsequences: false)
        for item in items {
            guard !item.isEmpty else { throw Self.invalid(text, "an empty item") }
            let bounds = item.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let low = Self.number(bounds[0]), let high = bounds.count == 2 ? Self.number(bounds[1]) : low else {
                throw Self.invalid(text, "'\(item)' is not a stream number or a range N-M")
            }
            guard low >= 1, high <= Self.maximum else { throw Self.invalid(text, "stream numbers run from 1 to \(Self.maximum)") }
            guard low <= high else { throw Self.invalid(text, "'\(item)' runs backwards") }
            chosen.formUnion(low...high)
        }
        numbers = chosen.sorted()
    }

    /// Compact text: `1-3,7`.
    public var description: String { numberRuns(numbers, separator: ",") }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy(\.isASCII), let value = Int(text) else { return nil }
        return value
    }

    private static func invalid(_ text: String, _ why: String) -> LoadGenError {
        LoadGenError(.invalidPlan, "invalid \(.streams) '\(text)': \(why) (expected e.g. 1,3,5-9)")
    }
}

extension StreamList {
    /// The list of these stream numbers.
    package init(numbers: [Int]) {
        self.numbers = Array(Set(numbers)).sorted()
    }
}
