/// Relative times in tcpdump's compact form.
extension Array where Element == UInt8 {
    /// tcpdump's `unsigned_relts_print` (util-print.c): `seconds` as years, weeks, days, hours,
    /// minutes and seconds with the units that are not zero (`1y2w3d4h5m6s`, `1h30s`), `0s` for
    /// zero. Used for DNS TTLs, IGMPv3 maximum response times and DVMRP prune timers.
    mutating func appendRelativeSeconds(_ seconds: UInt32) {
        if seconds == 0 {
            append("0s")
            return
        }
        var rest = seconds
        for (size, unit) in relativeTimeUnits where rest >= size {
            appendDecimal(rest / size)
            append(unit)
            rest %= size
        }
    }
}

/// The units of ``Swift/Array/appendRelativeSeconds(_:)``, largest first: seconds in a year
/// (365 days), a week, a day, an hour, a minute, a second.
private let relativeTimeUnits: [(UInt32, UInt8)] = [
    (31_536_000, UInt8(ascii: "y")), (604_800, UInt8(ascii: "w")), (86_400, UInt8(ascii: "d")),
    (3_600, UInt8(ascii: "h")), (60, UInt8(ascii: "m")), (1, UInt8(ascii: "s")),
]
