import Recording

/// `loadtest --from-pcap FILE`: which recorded streams play as load, at what pace, in how many
/// copies, for how long, and which share of the replies is checked against the recording.
///
/// The rest of the run — target, connect options, `--framing`, `--max-frame`, `--reply-timeout`,
/// `--requests`, `--connect-rate`, thresholds, JSON — comes from the ``LoadPlan`` as for any
/// load test. What a plain load test sends (`--message`, `--rate`, `--stages`, `--pipeline`,
/// `--warmup`) has no meaning here and is refused, as are the replay flags without
/// `--from-pcap`.
public struct ReplayLoadOptions: Sendable {
    /// The capture (pcap or pcapng).
    public var path: String
    /// The streams chosen with `--streams`; nil: every stream of the target's kind (TCP for a
    /// stream target, UDP for `udp://`).
    public var streams: StreamList?
    /// How many times faster than recorded; nil: top speed (`--topspeed`).
    public var speed: Double? = 1
    /// Copies of each stream, each on its own connection (`--scale`).
    public var scale = 1
    /// Start each copy again when it ends, until `duration` or the plan's `requests`.
    public var loop = false
    /// When sending stops (`--duration` as given); nil: when every copy is done.
    public var duration: Duration?
    /// The share of replies compared with the recording; nil: none.
    public var verifySample: VerifySample?
    /// Cut out of both sides before a reply is compared (`--ignore`).
    public var ignore = IgnorePatterns()

    /// The most copies in a run (streams × scale).
    package static let maximumCopies = 100_000

    /// Options for the capture at `path`, everything else at its default.
    public init(path: String) {
        self.path = path
    }

    /// The options from the command line's values as given (nil: not given); nil when there is
    /// no `--from-pcap` and no replay flag either. `conflicting` names the plain load-test flags
    /// that were given (e.g. `["--message": true]`); any of them with `--from-pcap` is refused.
    public static func parse(
        path: String?, streams: String?, speed: Double?, topspeed: Bool, scale: Int?, loop: Bool, duration: Duration?,
        requests: Int?, verifySample: String?, ignore: [String], conflicting: [String: Bool]
    ) throws(LoadGenError) -> ReplayLoadOptions? {
        guard let path else {
            let given: [(String, Bool)] = [
                ("--streams", streams != nil), ("--speed", speed != nil), ("--topspeed", topspeed), ("--scale", scale != nil),
                ("--loop", loop), ("--verify-sample", verifySample != nil), ("--ignore", !ignore.isEmpty),
            ]
            if let flag = given.first(where: { $0.1 })?.0 { throw LoadGenError(.invalidPlan, "\(flag) needs --from-pcap FILE") }
            return nil
        }
        if let flag = conflicting.filter(\.value).keys.sorted().first {
            throw LoadGenError(.invalidPlan, "\(flag) does not apply to --from-pcap (the recorded messages are sent)")
        }
        var options = ReplayLoadOptions(path: path)
        options.streams = try streams.map { text throws(LoadGenError) in try StreamList(parsing: text) }
        if topspeed {
            if speed != nil { throw LoadGenError(.invalidPlan, "--speed and --topspeed exclude each other") }
            options.speed = nil
        } else if let speed {
            guard speed.isFinite, speed >= 0.001, speed <= 1_000_000 else {
                throw LoadGenError(.invalidPlan, "--speed must be a number from 0.001 to 1000000, not \(speed)")
            }
            options.speed = speed
        }
        if let scale {
            guard (1...maximumCopies).contains(scale) else {
                throw LoadGenError(.invalidPlan, "--scale must be a whole number from 1 to \(maximumCopies), not \(scale)")
            }
            options.scale = scale
        }
        options.loop = loop
        if loop && duration == nil && requests == nil {
            throw LoadGenError(.invalidPlan, "--loop needs --duration or --requests (when to stop)")
        }
        options.duration = duration
        options.verifySample = try verifySample.map { text throws(LoadGenError) in try VerifySample(parsing: text) }
        do {
            options.ignore = try IgnorePatterns(parsing: ignore)
        } catch {
            throw LoadGenError(.invalidPlan, error.text)
        }
        if !ignore.isEmpty && options.verifySample == nil { throw LoadGenError(.invalidPlan, "--ignore applies to --verify-sample") }
        return options
    }
}
