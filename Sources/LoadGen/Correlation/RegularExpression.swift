import Foundation
import SocketEngine

/// The `regex:` rule: an ICU regular expression (NSRegularExpression) with at least one capture
/// group; the value is what the first group captured in the first match.
struct RegularExpression: @unchecked Sendable {
    /// Immutable once made, and documented as safe to use from several threads at once.
    let expression: NSRegularExpression

    init(parsing pattern: String, option: SettingKey) throws(LoadGenError) {
        let made: NSRegularExpression
        do {
            made = try NSRegularExpression(pattern: pattern)
        } catch {
            throw LoadGenError(.invalidPlan, "invalid \(option) regex:\(pattern): not a regular expression" as SettingText)
        }
        guard made.numberOfCaptureGroups >= 1 else {
            throw LoadGenError(.invalidPlan, "invalid \(option) regex:\(pattern): it has no capture group; the value is the first group's match, e.g. regex:id=(\\d+)" as SettingText)
        }
        expression = made
    }

    /// The UTF-8 bytes of the first group of the first match in `bytes` (read as UTF-8, an
    /// invalid sequence as U+FFFD); nil when nothing matches or the group took no part.
    func firstGroup(in bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        let text = String(decoding: bytes, as: UTF8.self)
        let whole = NSRange(text.startIndex..<text.endIndex, in: text)
        guard let match = expression.firstMatch(in: text, range: whole),
              match.numberOfRanges > 1,
              match.range(at: 1).location != NSNotFound,
              let range = Range(match.range(at: 1), in: text) else { return nil }
        return Array(text[range].utf8)
    }
}
