import SocketEngine

/// Figures as the load-test lines print them.
package enum ReportText {
    /// Microseconds as `14.2µs`, `3.41ms`, `1.203s`.
    package static func latency(_ micros: Double) -> String {
        if micros < 1000 { return "\(decimal(micros, places: micros < 100 ? 1 : 0))µs" }
        if micros < 1_000_000 { return "\(decimal(micros / 1000, places: micros < 10_000 ? 2 : 1))ms" }
        return "\(decimal(micros / 1_000_000, places: 3))s"
    }

    /// A rate or a count held as a Double, rounded to a whole number for printing; saturates
    /// at the ends of `Int` (and NaN is 0) rather than trapping.
    package static func whole(_ value: Double) -> Int {
        if value.isNaN { return 0 }
        if value >= 0x1p63 { return .max }
        if value <= -0x1p63 { return .min }
        return Int(value.rounded())
    }

    /// `1,234,567`.
    package static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }

    package static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
