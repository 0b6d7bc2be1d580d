import Recording

extension ReplaySpeed {
    /// The speed `--speed X` and `--topspeed` choose (replay, loadtest --from-pcap), both read
    /// as given (`--speed` a number, parsed by the argument parser, so that `--speed abc` is
    /// refused with the factor's expected form); the range and the two together are checked by
    /// ``ReplaySpeed`` itself, its refusal worded with the flags (exit status 2).
    static func chosen(_ speed: Double?, topspeed: Bool) throws -> ReplaySpeed {
        try validating { try ReplaySpeed(timesRecorded: speed, topspeed: topspeed) }
    }
}
