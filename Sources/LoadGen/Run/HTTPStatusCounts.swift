/// The HTTP responses of a load test (`http://`, `https://`), counted by status code: the final
/// answers (codes 100…599, one slot each), the interim `1xx` responses that answer nothing,
/// and the connections the server closed (`Connection: close`, HTTP/1.0, a body until close).
///
/// Kept per event loop and per connection thread beside the other ``LoadCounters``: counting a
/// response is one increment in a slot made at the start (no allocation per response), and the
/// owners' counts are added at the end (``add(_:)``).
package struct HTTPStatusCounts: Sendable, Equatable, Codable {
    /// The lowest and highest status codes counted (RFC 9110, 15: three digits, 100…599).
    package static let codes = 100...599

    /// A count per code, `codes.lowerBound` first.
    private var byCode = [Int](repeating: 0, count: HTTPStatusCounts.codes.count)
    /// Responses that ended a connection: the server closed it, and it was opened again.
    package var serverCloses = 0
    /// Interim responses (1xx other than 101): they answer no request.
    package var interim = 0

    package init() {}

    /// The counts of a report's `statuses` (codes outside ``codes`` are not counted).
    package init(statuses: [Int: Int], serverCloses: Int = 0, interim: Int = 0) {
        for (code, count) in statuses where Self.codes.contains(code) { byCode[code - Self.codes.lowerBound] += count }
        self.serverCloses = serverCloses
        self.interim = interim
    }

    /// One final response with status `code` (a code outside ``codes`` is not counted: the
    /// scanner refuses such a response before it gets here).
    @inline(__always)
    package mutating func count(status code: Int) {
        let index = code &- Self.codes.lowerBound
        guard index >= 0 && index < byCode.count else { return }
        byCode[index] &+= 1
    }

    /// How many final responses had status `code`.
    package subscript(code: Int) -> Int {
        Self.codes.contains(code) ? byCode[code - Self.codes.lowerBound] : 0
    }

    /// Every final response counted.
    package var total: Int { byCode.reduce(0, &+) }

    /// The codes seen, with their counts, lowest code first.
    package var statuses: [(code: Int, count: Int)] {
        byCode.indices.compactMap { index in byCode[index] > 0 ? (index + Self.codes.lowerBound, byCode[index]) : nil }
    }

    /// The count of each class seen (`2xx`: 200…299), lowest first.
    package var classes: [(name: String, count: Int)] {
        var counts = [Int](repeating: 0, count: 5)
        for (index, count) in byCode.enumerated() { counts[index / 100] &+= count }
        return counts.indices.compactMap { index in counts[index] > 0 ? ("\(index + 1)xx", counts[index]) : nil }
    }

    /// The class of `code` as the report names it (`5xx`).
    package static func className(of code: Int) -> String { "\(code / 100)xx" }

    /// Adds another owner's counts (the report's collection).
    package mutating func add(_ other: HTTPStatusCounts) {
        for index in byCode.indices { byCode[index] &+= other.byCode[index] }
        serverCloses &+= other.serverCloses
        interim &+= other.interim
    }
}
