/// `--speed X` and `--topspeed` (replay, loadtest --from-pcap), checked in one place: how many
/// times faster than recorded, nil for top speed.
func replaySpeed(_ speed: Double?, topspeed: Bool) throws -> Double? {
    if topspeed {
        if speed != nil { throw UsageError("--speed and --topspeed exclude each other") }
        return nil
    }
    guard let speed else { return 1 }
    guard speed.isFinite, speed >= 0.001, speed <= 1_000_000 else {
        throw UsageError("--speed must be a number from 0.001 to 1000000, not \(speed)")
    }
    return speed
}
