/// `--verify-sample P%`: the share of replies `loadtest --from-pcap` compares with the recording.
///
/// Which ones is decided by position, not by chance, so every run checks the same messages:
/// message `m` (from 0) of stream `s` is checked when `⌊(k + 1)·P/100⌋ > ⌊k·P/100⌋` with
/// `k = m + 7·s` — exactly P % of each stream's messages, spread evenly (every second one at
/// 50 %, every tenth at 10 %), starting at a different place in each stream. Every copy
/// (`--scale`) and every round (`--loop`) of a stream checks the same messages. A message the
/// recorded server did not answer has nothing to compare and is not checked.
public struct VerifySample: Sendable, Equatable {
    /// From 0 to 100.
    public let percent: Double

    /// Parses `25%` (the `%` may be left out); refuses anything outside 0…100.
    public init(parsing text: String) throws(LoadGenError) {
        let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let value = Double(digits), value.isFinite, value >= 0, value <= 100 else {
            throw LoadGenError(.invalidPlan, "invalid \(.verifySample) '\(text)' (expected a share from 0% to 100%, e.g. 10%)")
        }
        percent = value
    }

    /// Whether message `message` (from 0) of stream `stream` (its number) is checked.
    package func picks(stream: Int, message: Int) -> Bool {
        let k = Double(message) + 7 * Double(stream)
        return ((k + 1) * percent / 100).rounded(.down) > (k * percent / 100).rounded(.down)
    }
}
