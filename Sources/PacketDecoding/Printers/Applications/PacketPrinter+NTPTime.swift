/// NTP's fixed-point numbers as tcpdump 4.99.3 prints them (`p_sfix`, `p_ntp_time`,
/// `p_ntp_delta`), with the UTC calendar date tcpdump gets from `gmtime` and `strftime`
/// (``Swift/Array/appendUTCDateTime(_:)``, computed without the C library).
extension PacketPrinter {
    /// Seconds from the NTP era (1900-01-01) to the Unix epoch.
    private static let ntpToUnixSeconds: Int64 = 2_208_988_800

    /// tcpdump's `p_sfix`: a 16.16 fixed-point number as `SECONDS.MICROSECONDS`, the fraction
    /// truncated to millionths through a `double` as tcpdump computes it.
    func appendNTPShortFixedPoint(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let integer = try cursor.u16(offset)
        let fraction = Double(try cursor.u16(offset + 2)) / 65536.0
        out.appendDecimal(integer)
        out.append(".")
        out.appendDecimal(UInt64(fraction * 1_000_000.0), minimumDigits: 6)
    }

    /// tcpdump's `p_ntp_time`: a 32.32 timestamp as `SECONDS.NANOSECONDS` and, when the
    /// seconds are not zero, ` (YYYY-MM-DDTHH:MM:SSZ)` in UTC (NTP era 0: 1900 to 2036).
    func appendNTPTimestamp(_ cursor: ByteCursor, at offset: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let seconds = try cursor.u32(offset)
        let fraction = try cursor.u32(offset + 4)
        out.appendDecimal(seconds)
        out.append(".")
        out.appendDecimal(Self.ntpNanoseconds(fraction), minimumDigits: 9)
        if seconds != 0 {
            out.append(" (")
            out.appendUTCDateTime(Int64(seconds) - Self.ntpToUnixSeconds)
            out.append("Z)")
        }
    }

    /// tcpdump's `p_ntp_delta`: the timestamp at `later` minus the one at `earlier` as
    /// `+S.NNNNNNNNN` or `-S.NNNNNNNNN`; when `earlier` is zero, the later timestamp itself.
    func appendNTPDifference(_ cursor: ByteCursor, from earlier: Int, to later: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let newSeconds = try cursor.u32(later)
        let oldSeconds = try cursor.u32(earlier)
        let newFraction = try cursor.u32(later + 4)
        let oldFraction = try cursor.u32(earlier + 4)
        if oldSeconds == 0 && oldFraction == 0 {
            try appendNTPTimestamp(cursor, at: later, into: &out)
            return
        }
        let negative: Bool
        var seconds: UInt32
        let fraction: UInt32
        if newSeconds > oldSeconds {
            negative = false
            seconds = newSeconds &- oldSeconds
            fraction = newFraction &- oldFraction
            if oldFraction > newFraction { seconds &-= 1 }
        } else if newSeconds < oldSeconds {
            negative = true
            seconds = oldSeconds &- newSeconds
            fraction = oldFraction &- newFraction
            if newFraction > oldFraction { seconds &-= 1 }
        } else {
            seconds = 0
            negative = newFraction <= oldFraction
            fraction = negative ? oldFraction &- newFraction : newFraction &- oldFraction
        }
        out.append(negative ? "-" : "+")
        out.appendDecimal(seconds)
        out.append(".")
        out.appendDecimal(Self.ntpNanoseconds(fraction), minimumDigits: 9)
    }

    /// A 32-bit binary fraction in billionths, truncated through a `double` as tcpdump does.
    private static func ntpNanoseconds(_ fraction: UInt32) -> UInt64 {
        UInt64(Double(fraction) / 4_294_967_296.0 * 1_000_000_000.0)
    }
}
