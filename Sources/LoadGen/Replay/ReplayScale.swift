import SocketEngine

/// How many copies of each recorded stream a load test plays, each on its own connection:
/// from 1 to ``ReplayLoadOptions/maximumCopies``, checked when the scale is made.
public struct ReplayScale: Sendable, Hashable {
    /// One copy of each stream.
    public static let one = ReplayScale(checked: 1)

    /// Copies of each stream.
    public let copies: Int

    private init(checked copies: Int) {
        self.copies = copies
    }

    /// `copies` copies of each stream. A count outside 1…``ReplayLoadOptions/maximumCopies``
    /// throws ``LoadGenError/Code/invalidPlan`` naming the scale setting.
    public init(copies: Int) throws(LoadGenError) {
        let allowed = 1...ReplayLoadOptions.maximumCopies
        guard allowed.contains(copies) else {
            throw LoadGenError(.invalidPlan, "\(.scale) must be a whole number from \(allowed.lowerBound) to \(allowed.upperBound), not \(copies)")
        }
        self.init(checked: copies)
    }
}
