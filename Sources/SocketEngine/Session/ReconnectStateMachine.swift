/// Counts consecutive failures and turns each into "wait this long, then try" or "give up".
package struct ReconnectStateMachine: Sendable {
    package enum Action: Sendable, Equatable {
        /// Wait `delay`, then make attempt `attempt` of `of`.
        case reconnect(after: Duration, attempt: Int, of: Int)
        /// `attempts` consecutive attempts failed; stop.
        case giveUp(attempts: Int)
    }

    package let policy: ReconnectPolicy
    package private(set) var consecutiveFailures = 0

    package init(policy: ReconnectPolicy) {
        self.policy = policy
    }

    /// A connection came up: the next loss starts again at the initial delay.
    package mutating func connected() {
        consecutiveFailures = 0
    }

    /// A connection was lost or an attempt failed.
    package mutating func disconnected<R: RandomNumberGenerator>(using random: inout R) -> Action {
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

    package mutating func disconnected() -> Action {
        var random = SystemRandomNumberGenerator()
        return disconnected(using: &random)
    }
}
