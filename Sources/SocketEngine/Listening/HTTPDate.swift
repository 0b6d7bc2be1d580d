/// The `Date` header's value (RFC 9110 §5.6.7, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`).
package enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` since the Unix epoch as an IMF-fixdate (UTC); instants before the epoch are
    /// written as the epoch.
    package static func format(secondsSinceEpoch seconds: Int64) -> String {
        let seconds = max(0, seconds)
        let days = seconds / 86_400
        let inDay = seconds % 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let weekday = weekdays[Int(days % 7)]
        return "\(weekday), \(twoDigits(day)) \(months[month - 1]) \(year) "
            + "\(twoDigits(inDay / 3600)):\(twoDigits(inDay / 60 % 60)):\(twoDigits(inDay % 60)) GMT"
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01 (H. Hinnant's civil_from_days).
    private static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int, day: Int64) {
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, Int(month), day)
    }
}
