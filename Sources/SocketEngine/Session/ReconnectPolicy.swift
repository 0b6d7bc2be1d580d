/// When to try again after a connection is lost or cannot be made (`--reconnect`).
///
/// The n-th consecutive attempt waits `initialDelay × 2^(n-1)` — 1 s, 2 s, 4 s, … — capped at
/// `maximumDelay` when one is set, and scaled by a random factor in `1 ± jitter` when jitter is
/// set. After `maximumAttempts` consecutive failures the policy gives up. A connection that
/// comes up resets the count.
public struct ReconnectPolicy: Sendable, Equatable {
    /// Consecutive failures tolerated before giving up; 0: never try again.
    public var maximumAttempts: Int
    package var initialDelay: Duration
    /// The longest wait between attempts; nil: no cap.
    public var maximumDelay: Duration?
    /// 0 … 1: the fraction by which a delay may randomly grow or shrink.
    public var jitter: Double

    /// A policy of up to `maximumAttempts` retries (negative counts as 0) starting at `initialDelay`;
    /// `jitter` is clamped to 0 … 1.
    public init(maximumAttempts: Int = 5, initialDelay: Duration = .seconds(1), maximumDelay: Duration? = nil, jitter: Double = 0) {
        self.maximumAttempts = max(0, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = min(1, max(0, jitter))
    }

    /// The delay before consecutive attempt `attempt` (1-based), before jitter.
    package func baseDelay(forAttempt attempt: Int) -> Duration {
        let exponent = min(max(attempt - 1, 0), 40)
        var delay = initialDelay * (1 << exponent)
        if let maximumDelay, delay > maximumDelay { delay = maximumDelay }
        return delay
    }
}
