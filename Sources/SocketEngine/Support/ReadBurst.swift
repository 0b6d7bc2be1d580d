import NIOCore

/// How much one connection makes of what it has read before the other channels of its event
/// loop get their turn: NIO bounds the reads per turn (`maxMessagesPerRead`), this bounds the
/// messages decoded and answered from them.
///
/// A handler counts each message (a frame cut, a WebSocket frame decoded) with ``count()``.
/// Once ``isSpent`` and bytes are still waiting, it stops and ``yield(on:_:)``s: the rest
/// waits for the loop's next poll (``LoopYield``), and the socket is not read meanwhile, so the
/// backlog stays what one turn read. A new burst ``begin()``s at the end of each read turn
/// (`channelReadComplete`) and when the yielded turn comes.
///
/// Not the limit: a single message is never split, whatever its size — bytes per turn stay
/// bounded by NIO's reads, messages per turn by this.
struct ReadBurst {
    /// Messages per burst: 256 keeps a turn to a few hundred microseconds of work even in a
    /// debug build, while the cost of yielding (one pipe byte per loop per turn) stays small
    /// beside the burst it follows.
    static let messageLimit = 256

    private(set) var used = 0
    /// The rest of the backlog waits for the loop's next poll: read nothing until it comes.
    private(set) var isYielding = false

    /// The burst's messages are used up.
    var isSpent: Bool { used >= Self.messageLimit }

    mutating func count() {
        used += 1
    }

    /// Ends this burst: `resume` runs after the loop's next poll (once, however often this is
    /// called before then). `resume` must call ``begin()``.
    mutating func yield(on loop: any EventLoop, _ resume: @escaping () -> Void) {
        guard !isYielding else { return }
        isYielding = true
        LoopYield.afterNextPoll(on: loop, resume)
    }

    /// A new turn: the next burst may use all its messages. A burst that yielded begins again
    /// only when its yielded turn comes.
    mutating func begin() {
        used = 0
        isYielding = false
    }

    /// End of a read turn: a burst that has not yielded begins again.
    mutating func readTurnEnded() {
        if !isYielding { used = 0 }
    }
}
