import Foundation
import SocketEngine

/// A wall-clock start for the shards of a load test on machines whose clocks are synchronised
/// (`--start-at 2026-11-28T10:00:00Z`, RFC 3339): each waits until then and starts.
///
/// The wait is taken from the wall clock once and then goes by the caller's clock (a
/// `TestClock` in tests). A time already past starts at once, and says by how much it was
/// missed (the merge's overlap check shows what that did to the test).
public struct StartTime: Sendable, Equatable {
    /// When to start.
    public let date: Date

    /// The latest start accepted: a day from now (a later one is a mistake in the date).
    public static let maximumWait: TimeInterval = 86_400

    /// A start at `date`.
    public init(_ date: Date) { self.date = date }

    /// Parses an RFC 3339 time with its offset (`2026-11-28T10:00:00Z`,
    /// `2026-11-28T11:00:00.250+01:00`).
    public init(parsing text: String) throws(LoadGenError) {
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = plain.date(from: text) ?? fractional.date(from: text) else {
            throw LoadGenError(.invalidPlan, "'\(text)' is not a time (expected RFC 3339 with its offset, such as 2026-11-28T10:00:00Z)")
        }
        self.init(date)
    }

    /// Waits on `clock` until ``date`` by the wall clock `now`, and returns how late the start
    /// is (zero when it was waited for). Throws `.invalidPlan` for a start more than
    /// ``maximumWait`` away, and `.startNotReached` when the wait is cancelled.
    public func wait(clock: EngineClock, now: Date) async throws(LoadGenError) -> Duration {
        let ahead = date.timeIntervalSince(now)
        guard ahead <= Self.maximumWait else {
            throw LoadGenError(.invalidPlan, "the start time \(Self.text(date)) is more than a day away")
        }
        guard ahead > 0 else { return .nanoseconds(Int64(min(-ahead, Self.maximumWait) * 1e9)) }
        do {
            try await clock.sleep(until: clock.now.advanced(by: .nanoseconds(Int64(ahead * 1e9))))
        } catch {
            throw LoadGenError(.startNotReached, "the wait for the start time \(Self.text(date)) was cancelled")
        }
        return .zero
    }

    /// `2026-11-28T10:00:00.000Z`.
    package static func text(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
