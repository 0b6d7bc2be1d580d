/// Sizes as people write them: `1048576`, `64k`, `64KiB`, `16M`, `16MiB`, `1G` (multiples of
/// 1024; `b` and the `kb`/`mb`/`gb` spellings are accepted too), shown back in the largest unit
/// that divides them (`16MiB`). The command line's sizes and the relay's fault specifications
/// both read them here.
package enum ByteCount {
    /// The number of bytes `text` names, or nil when it is not a size (or overflows).
    package static func parse(_ text: some StringProtocol) -> Int? {
        let lowered = text.lowercased()
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
        return overflow ? nil : bytes
    }

    /// `bytes` in the largest binary unit that divides it: `16MiB`, `1536`.
    package static func format(_ bytes: Int) -> String {
        for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return "\(bytes)"
    }
}
