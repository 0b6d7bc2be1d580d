/// When to try again after a connection is lost or cannot be made (`--reconnect`).
///
/// The n-th consecutive attempt waits `initialDelay × 2^(n-1)` — 1 s, 2 s, 4 s, … — capped at
/// `maximumDelay` when one is set, and scaled by a random factor in `1 ± jitter` when jitter is
/// set. After `maximumAttempts` consecutive failures the policy gives up. A connection that
/// comes up resets the count.
public struct ReconnectPolicy: Sendable, Equatable {
    public var maximumAttempts: Int
    public var initialDelay: Duration
    public var maximumDelay: Duration?
    /// 0 … 1: the fraction by which a delay may randomly grow or shrink.
    public var jitter: Double

    public init(maximumAttempts: Int = 5, initialDelay: Duration = .seconds(1), maximumDelay: Duration? = nil, jitter: Double = 0) {
        self.maximumAttempts = max(0, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = min(1, max(0, jitter))
    }

    /// The delay before consecutive attempt `attempt` (1-based), before jitter.
    public func baseDelay(forAttempt attempt: Int) -> Duration {
        let exponent = min(max(attempt - 1, 0), 40)
        var delay = initialDelay * (1 << exponent)
        if let maximumDelay, delay > maximumDelay { delay = maximumDelay }
        return delay
    }
}

/// Counts consecutive failures and turns each into "wait this long, then try" or "give up".
public struct ReconnectStateMachine: Sendable {
    public enum Action: Sendable, Equatable {
        /// Wait `delay`, then make attempt `attempt` of `of`.
        case reconnect(after: Duration, attempt: Int, of: Int)
        /// `attempts` consecutive attempts failed; stop.
        case giveUp(attempts: Int)
    }

    public let policy: ReconnectPolicy
    public private(set) var consecutiveFailures = 0

    public init(policy: ReconnectPolicy) {
        self.policy = policy
    }

    /// A connection came up: the next loss starts again at the initial delay.
    public mutating func connected() {
        consecutiveFailures = 0
    }

    /// A connection was lost or an attempt failed.
    public mutating func disconnected<R: RandomNumberGenerator>(using random: inout R) -> Action {
        consecutiveFailures += 1
        guard consecutiveFailures <= policy.maximumAttempts else {
            return .giveUp(attempts: policy.maximumAttempts)
        }
        var delay = policy.baseDelay(forAttempt: consecutiveFailures)
        if policy.jitter > 0 {
            let factor = 1 + Double.random(in: -policy.jitter...policy.jitter, using: &random)
            delay = delay * factor
        }
        return .reconnect(after: delay, attempt: consecutiveFailures, of: policy.maximumAttempts)
    }

    public mutating func disconnected() -> Action {
        var random = SystemRandomNumberGenerator()
        return disconnected(using: &random)
    }
}
