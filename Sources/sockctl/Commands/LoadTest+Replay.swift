import LoadGen
import Recording

/// `loadtest --from-pcap FILE`: the replay settings, checked together with the rest of the
/// command line. A replay flag without `--from-pcap` is refused, and so is a plain load test's
/// flag with it (the recorded messages are sent, at their recorded pace, on one connection per
/// stream copy).
extension LoadTest {
    /// The replay flags, each with whether it was given.
    private var replayFlags: [(String, Bool)] {
        [
            ("--streams", streams != nil), ("--speed", speed != nil), ("--topspeed", topspeed), ("--scale", scale != nil),
            ("--loop", loop), ("--verify-sample", verifySample != nil), ("--ignore", !ignore.isEmpty),
        ]
    }

    /// The plain load test's flags that have no meaning with `--from-pcap`, each with whether
    /// it was given.
    private var plainLoadFlags: [(String, Bool)] {
        [
            ("--connections", connections != nil), ("--message", message != nil || messageFile != nil),
            ("--pipeline", pipeline != nil), ("--rate", rate != nil || stages != nil), ("--warmup", warmup > .zero),
        ]
    }

    /// The replay's options; nil without `--from-pcap` (and then without any replay flag).
    func replayOptions() throws -> ReplayLoadOptions? {
        guard let fromPcap else {
            if let flag = replayFlags.first(where: \.1)?.0 { throw UsageError("\(flag) needs --from-pcap FILE") }
            return nil
        }
        if let flag = plainLoadFlags.first(where: \.1)?.0 {
            throw UsageError("\(flag) does not apply to --from-pcap (the recorded messages are sent)")
        }
        var options = ReplayLoadOptions(path: fromPcap)
        options.streams = try validating { try streams.map { try StreamList(parsing: $0) } }
        options.speed = try ReplaySpeed.chosen(speed, topspeed: topspeed)
        if let scale { options.scale = try validating { try ReplayScale(copies: scale) } }
        if loop && duration == nil && requests == nil { throw UsageError("--loop needs --duration or --requests (when to stop)") }
        options.loop = loop
        options.duration = duration
        options.verifySample = try validating { try verifySample.map { try VerifySample(parsing: $0) } }
        options.ignore = try validating { try IgnorePatterns(parsing: ignore) }
        if !ignore.isEmpty && options.verifySample == nil { throw UsageError("--ignore applies to --verify-sample") }
        return options
    }
}
