/// `CLOCK_MONOTONIC` as a Swift `Clock`, so timestamps taken on event loops
/// (``ConnectionStatistics``) and deadlines used by state machines share one time base.
public struct MonotonicClock: Clock, Sendable {
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Nanoseconds since an arbitrary, fixed point.
        public let nanoseconds: UInt64

        public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

        public func advanced(by duration: Duration) -> Instant {
            let delta = duration.nanosecondsClamped
            if delta >= 0 {
                let (sum, overflow) = nanoseconds.addingReportingOverflow(UInt64(delta))
                return Instant(nanoseconds: overflow ? .max : sum)
            }
            let magnitude = delta.magnitude
            return Instant(nanoseconds: magnitude > nanoseconds ? 0 : nanoseconds - magnitude)
        }

        public func duration(to other: Instant) -> Duration {
            if other.nanoseconds >= nanoseconds {
                return .nanoseconds(Int64(clamping: other.nanoseconds - nanoseconds))
            }
            return .nanoseconds(-Int64(clamping: nanoseconds - other.nanoseconds))
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

        public var description: String { "\(nanoseconds)ns" }
    }

    public init() {}

    public var now: Instant { Instant(nanoseconds: Monotonic.nanoseconds()) }
    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let current = now
        guard deadline > current else {
            try Task.checkCancellation()
            return
        }
        try await Task.sleep(nanoseconds: deadline.nanoseconds - current.nanoseconds)
    }
}
