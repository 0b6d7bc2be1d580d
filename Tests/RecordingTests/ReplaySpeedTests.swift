import Recording
import SocketEngine
import TestSupport
import Testing

/// The replay speed `replay` and `loadtest --from-pcap` share: its factor checked when it is
/// made (a thousandth to a million times the recorded pace), top speed excluding a factor, and
/// offsets divided by the factor.
@Suite(.hangGuard)
struct ReplaySpeedTests {
    /// The text a command line shows, each setting as `--` and its key.
    static func flagged(_ error: RecordingError?) -> String? {
        error?.text.rendered { "--" + $0.rawValue }
    }

    @Test(arguments: [0.001, 0.5, 1, 2, 1_000_000])
    func factorsInRangeAreKept(factor: Double) throws {
        let speed = try ReplaySpeed(timesRecorded: factor)
        #expect(speed.factor == factor)
        #expect(!speed.isTopSpeed)
    }

    @Test(arguments: [0, 0.0009, -1, 1_000_000.5, .infinity, -.infinity, .nan])
    func factorsOutOfRangeAreRefusedNamingTheSpeed(factor: Double) {
        let error = #expect(throws: RecordingError.self) { try ReplaySpeed(timesRecorded: factor) }
        #expect(error?.code == .invalidSpeed)
        #expect(error?.isUsageError == true)
        #expect(error?.text.settings == [.speed])
        #expect(Self.flagged(error) == "--speed must be a number from 0.001 to 1000000, not \(factor)")
    }

    @Test func topSpeedExcludesAFactor() throws {
        #expect(try ReplaySpeed(timesRecorded: nil, topspeed: true) == .topspeed)
        #expect(try ReplaySpeed(timesRecorded: nil, topspeed: false) == .recorded)
        #expect(try ReplaySpeed(timesRecorded: 3, topspeed: false).factor == 3)
        // Together they contradict each other, whatever the factor (in range or not).
        for factor in [2.0, 0] {
            let error = #expect(throws: RecordingError.self) { try ReplaySpeed(timesRecorded: factor, topspeed: true) }
            #expect(error?.code == .invalidSpeed)
            #expect(error?.text.settings == [.speed, .topspeed])
            #expect(Self.flagged(error) == "--speed and --topspeed exclude each other")
        }
    }

    @Test func offsetsAreDividedByTheFactor() throws {
        #expect(ReplaySpeed.recorded.scaled(.milliseconds(250)) == .milliseconds(250))
        #expect(try ReplaySpeed(timesRecorded: 2).scaled(.milliseconds(250)) == .milliseconds(125))
        #expect(try ReplaySpeed(timesRecorded: 0.5).scaled(.milliseconds(250)) == .milliseconds(500))
        #expect(ReplaySpeed.topspeed.scaled(.seconds(60)) == .zero)
        // A thousandth of the pace on a very long offset saturates instead of trapping.
        #expect(try ReplaySpeed(timesRecorded: 0.001).scaled(.seconds(Int64.max / 1_000_000_000)) == .seconds(Int64.max / 1_000_000_000))
    }
}
