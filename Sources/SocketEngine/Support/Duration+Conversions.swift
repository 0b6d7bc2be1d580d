import NIOCore

/// The one place a `Duration` becomes something else: NIO's `TimeAmount`, whole nanoseconds,
/// seconds for display, or the short text the command line prints (`250ms`, `2s`).
extension Duration {
    /// The duration as a NIO `TimeAmount`, saturating at the largest representable amount.
    package var timeAmount: TimeAmount {
        .nanoseconds(nanosecondsClamped)
    }

    /// Whole nanoseconds, clamped to `Int64`.
    public var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }

    /// Seconds as a floating-point number, for display.
    public var secondsDouble: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// `250ms`, `2s`, `1.5s`, `2m`.
    public var formatted: String {
        let nanoseconds = nanosecondsClamped
        if nanoseconds == 0 { return "0s" }
        if nanoseconds < 1_000 { return "\(nanoseconds)ns" }
        if nanoseconds < 1_000_000 { return Self.trim(Double(nanoseconds) / 1e3) + "us" }
        if nanoseconds < 1_000_000_000 { return Self.trim(Double(nanoseconds) / 1e6) + "ms" }
        if nanoseconds < 60_000_000_000 || nanoseconds % 60_000_000_000 != 0 {
            return Self.trim(Double(nanoseconds) / 1e9) + "s"
        }
        return "\(nanoseconds / 60_000_000_000)m"
    }

    private static func trim(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var text = String(rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
