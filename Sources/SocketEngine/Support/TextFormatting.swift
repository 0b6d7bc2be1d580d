/// Numbers and counts as the command line prints them, for every module's messages.

/// Human-readable byte counts for summaries.
package func formatBytes(_ count: Int) -> String {
    if count < 1024 { return "\(count) B" }
    let units = ["KiB", "MiB", "GiB", "TiB"]
    var value = Double(count) / 1024
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return "\(decimal(value, places: 1)) \(units[unit])"
}

/// `value` with exactly `places` decimals, without Foundation; a value too large for that
/// (2^63 and more once scaled) is printed as Swift prints a Double (`1e+30`).
package func decimal(_ value: Double, places: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    guard (abs(value) * scale).rounded() < 0x1p63 else { return "\(value)" }
    let scaled = Int64((abs(value) * scale).rounded())
    let whole = scaled / Int64(scale)
    var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
    if places > 0 {
        text += "." + padded(Int(scaled % Int64(scale)), places)
    }
    return text
}

/// `1 client`, `2 clients`, `2 addresses`: a noun ending in s, x, z, ch or sh takes "es".
package func plural(_ count: Int, _ noun: String) -> String {
    guard count != 1 else { return "1 \(noun)" }
    let sibilant = ["s", "x", "z", "ch", "sh"].contains { noun.hasSuffix($0) }
    return "\(count) \(noun)\(sibilant ? "es" : "s")"
}

/// `value` as text in `radix` (upper-case digits), left-padded with zeros to `width` digits.
package func padded(_ value: Int, _ width: Int, radix: Int = 10) -> String {
    let text = String(value, radix: radix, uppercase: true)
    return String(repeating: "0", count: max(0, width - text.count)) + text
}

extension StringProtocol {
    /// The text without the given characters at either end (the relay's fault specifications and
    /// control commands allow spaces around their parts).
    package func trimming(_ characters: Set<Character>) -> String {
        String(drop(while: { characters.contains($0) }).reversed().drop(while: { characters.contains($0) }).reversed())
    }
}

/// `numbers` written short, in their order: a run of consecutive numbers as `LOW-HIGH`, the runs
/// joined by `separator` (`7000-7002, 8080` for ports; `1-3,7` for stream numbers).
package func numberRuns(_ numbers: [Int], separator: String) -> String {
    var runs: [String] = []
    var index = numbers.startIndex
    while index < numbers.endIndex {
        var end = index
        while end + 1 < numbers.endIndex && numbers[end + 1] == numbers[end] + 1 { end += 1 }
        runs.append(end == index ? "\(numbers[index])" : "\(numbers[index])-\(numbers[end])")
        index = end + 1
    }
    return runs.joined(separator: separator)
}
