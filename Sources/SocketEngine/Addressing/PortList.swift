/// The ports of a port check, as `nc -z HOST 20-30 80` takes them: each word a port (`80`) or
/// an inclusive range (`20-30`, also written high to low), in the order given.
///
/// ```
/// 7000          one port
/// 7000-7010     eleven ports, 7000 first
/// 7010-7000     the same eleven, still low to high (as nc does)
/// ```
///
/// Ports are 1-65535; a word that is not a number or a range of numbers, and a list of more
/// than ``maximumCount`` ports in all, are errors whose message names the word. Ports given
/// twice are checked twice, as nc does.
public struct PortList: Sendable, Equatable, CustomStringConvertible {
    /// The ports, in the order they are checked.
    public let ports: [Int]

    /// At most this many ports in one list: every port once.
    public static let maximumCount = 65535

    /// Parses the words after the host.
    ///
    /// - Throws: ``SocketEngineError`` with code `.invalidEndpoint`.
    public init(parsing words: [String]) throws(SocketEngineError) {
        guard !words.isEmpty else {
            throw SocketEngineError(.invalidEndpoint, "no port to check (expected PORT or PORT-PORT, e.g. 7000 or 20-30)")
        }
        var ports: [Int] = []
        for word in words {
            let range = try Self.range(word)
            guard ports.count + range.count <= Self.maximumCount else {
                throw SocketEngineError(.invalidEndpoint, "more than \(Self.maximumCount) ports to check")
            }
            ports += range
        }
        self.ports = ports
    }

    /// `PORT` or `PORT-PORT`, low to high.
    private static func range(_ word: String) throws(SocketEngineError) -> ClosedRange<Int> {
        let parts = word.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 5, part.allSatisfy(\.isASCIIDigit), let number = Int(part) else {
                throw SocketEngineError(.invalidEndpoint, "invalid port '\(word)': expected a port or a range of ports, e.g. 7000 or 20-30")
            }
            guard (1...65535).contains(number) else {
                throw SocketEngineError(.invalidEndpoint, "invalid port '\(word)': \(number) is out of range (1-65535)")
            }
            numbers.append(number)
        }
        guard let low = numbers.min(), let high = numbers.max() else {
            throw SocketEngineError(.invalidEndpoint, "invalid port '\(word)': expected a port or a range of ports, e.g. 7000 or 20-30")
        }
        return low...high
    }

    /// The ports as given back: `7000-7002` for a run, a comma and a space between runs.
    public var description: String { numberRuns(ports, separator: ", ") }
}
