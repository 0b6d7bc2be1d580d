import NIOCore

/// The one place a `Duration` becomes something else — NIO's `TimeAmount`, whole nanoseconds,
/// seconds for display, the short text the command line prints (`250ms`, `2s`) — and is read
/// back from that text.
extension Duration {
    /// Reads the command line's durations: `250ms`, `2s`, `1.5s`, `1m`, `1h`, `100us`, `10ns`; a
    /// bare number is seconds. Refuses signs, exponents, and anything over ten years.
    public init(parsing text: String) throws(SocketEngineError) {
        let units: [(suffix: String, seconds: Double)] = [
            ("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600),
        ]
        var number = Substring(text)
        var scale = 1.0
        for unit in units.sorted(by: { $0.suffix.count > $1.suffix.count }) where text.hasSuffix(unit.suffix) {
            number = text.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        guard !number.isEmpty,
              number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              number.filter({ $0 == "." }).count <= 1,
              let value = Double(number), value.isFinite
        else {
            throw SocketEngineError(.invalidConfiguration, "invalid duration '\(text)' (expected a duration such as 500ms, 2s, 1m)")
        }
        let seconds = value * scale
        guard seconds <= 315_360_000 else {
            throw SocketEngineError(.invalidConfiguration, "duration '\(text)' is too long (at most ten years)")
        }
        self = .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// The duration as a NIO `TimeAmount`, saturating at the largest representable amount.
    package var timeAmount: TimeAmount {
        .nanoseconds(nanosecondsClamped)
    }

    /// Whole nanoseconds, clamped to `Int64`.
    package var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }

    /// Seconds as a floating-point number, for display.
    package var secondsDouble: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// `250ms`, `2s`, `1.5s`, `2m`, `16µs` (µs everywhere outside tcpdump's own output).
    public var formatted: String {
        let nanoseconds = nanosecondsClamped
        if nanoseconds == 0 { return "0s" }
        if nanoseconds < 1_000 { return "\(nanoseconds)ns" }
        if nanoseconds < 1_000_000 { return Self.trim(Double(nanoseconds) / 1e3) + "µs" }
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

extension Duration {
    /// Milliseconds as a double, for reports and JSON.
    public var milliseconds: Double { Double(nanosecondsClamped) / 1e6 }
}
