import Glibc

/// tcpdump's timestamp column (`ts_print`): the `-t` family, six or nine fraction digits, and
/// one trailing space.
///
/// Local time comes from `localtime_r` (so `TZ` decides it) and is cached per second, so a
/// capture pays for one conversion per second of traffic, not per packet. Seconds with the top
/// bit of their 32-bit value set print `[Error converting time]`, as in tcpdump. Fractions that
/// are out of range (≥ 10⁶ µs) print as they are, e.g. `.2000000`.
struct TimestampFormatter {
    private var cachedSecond: Int64 = .min
    private var cachedWithDate = false
    private var cachedText: [UInt8] = []
    /// Reference for `-ttt` (previous packet) and `-ttttt` (first packet), in output units.
    private var reference: (seconds: Int64, fraction: Int64)?

    init() {
        tzset()
    }

    mutating func append(_ header: PacketHeader, style: PrintOptions.TimestampStyle, nanoseconds: Bool, into out: inout [UInt8]) {
        let fraction = Self.fraction(header, nanoseconds: nanoseconds)
        switch style {
        case .none:
            return
        case .timeOfDay, .dateAndTime:
            appendLocal(header.seconds, fraction: fraction, withDate: style == .dateAndTime, nanoseconds: nanoseconds, into: &out)
        case .unixSeconds:
            if Self.isUnconvertible(header.seconds) {
                out.append("[Error converting time]")
            } else {
                out.appendDecimal(UInt32(truncatingIfNeeded: header.seconds))
                Self.appendFraction(fraction, nanoseconds: nanoseconds, into: &out)
            }
        case .sincePrevious, .sinceFirst:
            let now = (seconds: header.seconds, fraction: Int64(fraction))
            var base = reference ?? now
            if base.seconds == 0 && base.fraction == 0 { base = now }
            let negative = now.seconds < base.seconds || (now.seconds == base.seconds && now.fraction < base.fraction)
            let (later, earlier) = negative ? (base, now) : (now, base)
            var seconds = later.seconds &- earlier.seconds
            var part = later.fraction &- earlier.fraction
            if part < 0 {
                seconds &-= 1
                part &+= nanoseconds ? 1_000_000_000 : 1_000_000
            }
            out.append(negative ? "-" : " ")
            if Self.isUnconvertible(seconds) {
                out.append("[Error converting time]")
            } else {
                let day = Int64(UInt32(truncatingIfNeeded: seconds)) % 86_400
                Self.appendClock(hour: day / 3600, minute: day / 60 % 60, second: day % 60, into: &out)
                Self.appendFraction(UInt64(truncatingIfNeeded: part), nanoseconds: nanoseconds, into: &out)
            }
            reference = style == .sincePrevious ? now : base
        }
        out.append(" ")
    }

    /// The record's fraction in the output precision (libpcap's conversion: µs ← ns truncates).
    private static func fraction(_ header: PacketHeader, nanoseconds: Bool) -> UInt64 {
        let raw = UInt64(header.fraction)
        switch (header.precision, nanoseconds) {
        case (.microseconds, false), (.nanoseconds, true): return raw
        case (.nanoseconds, false): return raw / 1000
        case (.microseconds, true): return raw * 1000
        }
    }

    private static func isUnconvertible(_ seconds: Int64) -> Bool {
        UInt32(truncatingIfNeeded: seconds) & 0x8000_0000 != 0
    }

    private mutating func appendLocal(_ seconds: Int64, fraction: UInt64, withDate: Bool, nanoseconds: Bool, into out: inout [UInt8]) {
        if Self.isUnconvertible(seconds) {
            out.append("[Error converting time]")
            return
        }
        if seconds != cachedSecond || withDate != cachedWithDate {
            cachedText.removeAll(keepingCapacity: true)
            var time = time_t(Int32(truncatingIfNeeded: seconds))
            var parts = tm()
            if localtime_r(&time, &parts) == nil {
                out.append("[Error converting time]")
                return
            }
            if withDate {
                cachedText.appendDecimal(UInt64(max(0, Int(parts.tm_year) + 1900)), minimumDigits: 4)
                cachedText.append("-")
                cachedText.appendDecimal(UInt64(max(0, parts.tm_mon + 1)), minimumDigits: 2)
                cachedText.append("-")
                cachedText.appendDecimal(UInt64(max(0, parts.tm_mday)), minimumDigits: 2)
                cachedText.append(" ")
            }
            Self.appendClock(hour: Int64(parts.tm_hour), minute: Int64(parts.tm_min), second: Int64(parts.tm_sec), into: &cachedText)
            cachedSecond = seconds
            cachedWithDate = withDate
        }
        out.append(contentsOf: cachedText)
        Self.appendFraction(fraction, nanoseconds: nanoseconds, into: &out)
    }

    private static func appendClock(hour: Int64, minute: Int64, second: Int64, into out: inout [UInt8]) {
        out.appendDecimal(UInt64(max(0, hour)), minimumDigits: 2)
        out.append(":")
        out.appendDecimal(UInt64(max(0, minute)), minimumDigits: 2)
        out.append(":")
        out.appendDecimal(UInt64(max(0, second)), minimumDigits: 2)
    }

    private static func appendFraction(_ fraction: UInt64, nanoseconds: Bool, into out: inout [UInt8]) {
        out.append(".")
        out.appendDecimal(fraction, minimumDigits: nanoseconds ? 9 : 6)
    }
}
