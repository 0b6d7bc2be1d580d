import SocketEngine

/// How fast recorded traffic is played again (`replay`, and a load test replaying a capture):
/// the recorded pace times a factor — each message at its recorded offset divided by the
/// factor — or top speed, each message as soon as what comes before it allows.
///
/// A factor is checked when the speed is made (``init(timesRecorded:)``), so every speed that
/// exists is one a replay can keep: from a thousandth of the recorded pace to a million times it.
public struct ReplaySpeed: Sendable, Hashable {
    /// The factors a speed may have.
    public static let factors: ClosedRange<Double> = 0.001...1_000_000

    /// The recorded pace (factor 1).
    public static let recorded = ReplaySpeed(factor: 1)
    /// No recorded gaps: each message as soon as possible.
    public static let topspeed = ReplaySpeed(factor: nil)

    /// Times faster than recorded (0.5: half as fast); nil at top speed.
    public let factor: Double?

    private init(factor: Double?) {
        self.factor = factor
    }

    /// `factor` times the recorded pace. A factor outside ``factors``, or not a number, throws
    /// ``RecordingError/Code/invalidSpeed`` naming the speed setting.
    public init(timesRecorded factor: Double) throws(RecordingError) {
        guard factor.isFinite, Self.factors.contains(factor) else {
            throw RecordingError(.invalidSpeed, "\(.speed) must be a number from 0.001 to 1000000, not \(factor)")
        }
        self.init(factor: factor)
    }

    /// The speed two settings choose: top speed when `topspeed` is set, else `factor` times the
    /// recorded pace (the recorded pace when nil). A factor and top speed together contradict
    /// each other: ``RecordingError/Code/invalidSpeed`` naming both settings.
    public init(timesRecorded factor: Double?, topspeed: Bool) throws(RecordingError) {
        if topspeed {
            guard factor == nil else { throw RecordingError(.invalidSpeed, "\(.speed) and \(.topspeed) exclude each other") }
            self = .topspeed
        } else if let factor {
            try self.init(timesRecorded: factor)
        } else {
            self = .recorded
        }
    }

    /// Whether messages go out as soon as possible, not at their recorded times.
    public var isTopSpeed: Bool { factor == nil }

    /// A recorded offset at this speed: divided by the factor (saturating); zero at top speed.
    public func scaled(_ offset: Duration) -> Duration {
        guard let factor else { return .zero }
        return Self.divide(offset, by: factor)
    }

    /// `offset` divided by `divisor` (a positive number), saturating at the longest duration.
    package static func divide(_ offset: Duration, by divisor: Double) -> Duration {
        let nanoseconds = Double(offset.nanosecondsClamped) / divisor
        guard nanoseconds.isFinite, nanoseconds < 9e18 else { return .seconds(Int64.max / 1_000_000_000) }
        return .nanoseconds(Int64(max(0, nanoseconds)))
    }
}
