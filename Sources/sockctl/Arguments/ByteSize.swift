import ArgumentParser

/// A size on the command line: `1048576`, `64k`, `64KiB`, `16M`, `16MiB`, `1G` (multiples of
/// 1024; `b` and the `kb`/`mb`/`gb` spellings are accepted too). Shown back in the largest unit
/// that divides it: `16MiB`. Ranges are checked by the option that takes it.
struct ByteSize: ExpressibleByArgument, Sendable, Equatable, CustomStringConvertible {
    let bytes: Int

    init(bytes: Int) {
        self.bytes = bytes
    }

    static func mebibytes(_ count: Int) -> ByteSize { ByteSize(bytes: count << 20) }

    init?(argument: String) {
        let lowered = argument.lowercased()
        let suffixes: [(suffix: String, factor: Int)] = [
            ("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("kb", 1 << 10), ("mb", 1 << 20), ("gb", 1 << 30),
            ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("b", 1),
        ]
        var digits = Substring(lowered)
        var factor = 1
        for unit in suffixes where lowered.hasSuffix(unit.suffix) {
            digits = lowered.dropLast(unit.suffix.count)
            factor = unit.factor
            break
        }
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits) else {
            return nil
        }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: factor)
        guard !overflow else { return nil }
        self.bytes = bytes
    }

    var description: String {
        for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return "\(bytes)"
    }

    var defaultValueDescription: String { description }

    /// The size, or a usage error naming `option` when it is outside `range`.
    func checked(_ option: String, within range: ClosedRange<Int>) throws -> Int {
        guard range.contains(bytes) else {
            throw UsageError("\(option) \(self) is out of range (\(range.lowerBound)-\(range.upperBound) bytes)")
        }
        return bytes
    }
}
