import Recording

/// A load test that replays a capture: which recorded streams play as load, at what pace, in
/// how many copies, for how long, and which share of the replies is checked against the
/// recording.
///
/// The rest of the run — target, connect options, framing, largest frame, reply timeout,
/// request count, connect rate, thresholds — comes from the ``LoadPlan`` as for any load test;
/// what a plain load test sends (its message, rate, stages, pipeline, warm-up) has no meaning
/// here. The command line checks which of its settings go together.
public struct ReplayLoadOptions: Sendable {
    /// The capture (pcap or pcapng).
    public var path: String
    /// The streams chosen; nil: every stream of the target's kind (TCP for a stream target,
    /// UDP for `udp://`).
    public var streams: StreamList?
    /// The recorded pace times a factor, or top speed.
    public var speed = ReplaySpeed.recorded
    /// Copies of each stream, each on its own connection.
    public var scale = ReplayScale.one
    /// Start each copy again when it ends, until `duration` or the plan's `requests`.
    public var loop = false
    /// When sending stops; nil: when every copy is done.
    public var duration: Duration?
    /// The share of replies compared with the recording; nil: none.
    public var verifySample: VerifySample?
    /// Cut out of both sides before a reply is compared.
    public var ignore = IgnorePatterns()

    /// The most copies in a run (streams × scale).
    package static let maximumCopies = 100_000

    /// Options for the capture at `path`, everything else at its default.
    public init(path: String) {
        self.path = path
    }
}
