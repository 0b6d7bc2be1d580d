/// UTC calendar dates computed without the C library.
extension Array where Element == UInt8 {
    /// `YYYY-MM-DDTHH:MM:SS` for `unixSeconds` (which may be before 1970) in the proleptic
    /// Gregorian calendar, UTC: what `gmtime` and `strftime("%Y-%m-%dT%H:%M:%S")` give, as
    /// tcpdump's `p_ntp_time` prints NTP timestamps, and the `time` key of `--json`. The year has
    /// at least four digits, with a `-` before it when it is negative. The callers add the
    /// fraction and the `Z`.
    mutating func appendUTCDateTime(_ unixSeconds: Int64) {
        var days = unixSeconds / 86_400
        var secondOfDay = unixSeconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        // Days since 1970-01-01 to a civil date (Howard Hinnant's civil-from-days algorithm):
        // days since 0000-03-01, split into 400-year eras.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        if year < 0 { append("-") }
        appendDecimal(UInt64(year.magnitude), minimumDigits: 4)
        append("-")
        appendDecimal(UInt64(truncatingIfNeeded: month), minimumDigits: 2)
        append("-")
        appendDecimal(UInt64(truncatingIfNeeded: day), minimumDigits: 2)
        append("T")
        appendDecimal(UInt64(truncatingIfNeeded: secondOfDay / 3_600), minimumDigits: 2)
        append(":")
        appendDecimal(UInt64(truncatingIfNeeded: secondOfDay / 60 % 60), minimumDigits: 2)
        append(":")
        appendDecimal(UInt64(truncatingIfNeeded: secondOfDay % 60), minimumDigits: 2)
    }
}
