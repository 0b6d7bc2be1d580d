/// A report's `started_at`: a UTC time in ISO 8601 as `loadtest` writes it
/// (`2026-11-23T08:00:00.123Z`; the fraction, of 1 to 9 digits, may be left out), read without
/// Foundation so that a merge compares instants rather than strings and refuses text that is
/// not a time.
///
/// Only years 1970 to 9999 and the `Z` zone are taken: no run started before 1970, and
/// `loadtest` always writes UTC.
struct ReportTimestamp: Comparable {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    let seconds: Int64
    /// The fraction, in nanoseconds.
    let nanoseconds: Int64

    /// Nil for text that is not such a time (or names a day that does not exist).
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 30 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes.last == UInt8(ascii: "Z"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1970...9999).contains(year), (1...12).contains(month), hour < 24, minute < 60, second < 60,
              day >= 1, day <= Self.daysIn(month: month, year: year)
        else { return nil }
        var fraction: Int64 = 0
        if bytes.count > 20 {
            let digits = bytes.count - 21
            guard bytes[19] == UInt8(ascii: "."), (1...9).contains(digits), let value = number(20..<(bytes.count - 1)) else { return nil }
            fraction = value
            for _ in digits..<9 { fraction *= 10 }
        }
        seconds = Self.daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        nanoseconds = fraction
    }

    static func < (lhs: ReportTimestamp, rhs: ReportTimestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian; Howard Hinnant's days_from_civil).
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
