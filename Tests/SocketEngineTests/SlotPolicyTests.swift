import Testing
@testable import SocketEngine
import TestSupport

/// The rules that keep a listener's places (``SlotPolicy``), on a mock clock: who makes room for
/// a newcomer and when, idle deadlines to the instant, and what the refusal line says.
@Suite(.hangGuard) struct SlotPolicyTests {
    typealias Policy = SlotPolicy<MockInstant>

    func at(_ seconds: Double) -> MockInstant { MockInstant(offset: .milliseconds(Int64(seconds * 1000))) }

    func policy(_ configure: (inout SlotRules) -> Void = { _ in }) -> Policy {
        var rules = SlotRules()
        configure(&rules)
        return Policy(rules: rules)
    }

    // MARK: Making room

    /// Three clients a window old: the one moving 2 bytes a second goes for a newcomer, not the
    /// one moving 10 (slower than 500 too, but less slow) nor the busy one.
    @Test func aNewcomerTakesTheSlowestPlaceBelowTheMinimumRate() {
        var policy = policy()
        for id in 1...3 as ClosedRange<UInt64> { policy.admit(id, phase: .serving, at: at(0)) }
        policy.observe(1, .init(bytes: 100, last: at(9.5)))
        policy.observe(2, .init(bytes: 20, last: at(9)))
        policy.observe(3, .init(bytes: 50_000, last: at(9.9)))
        let shed = policy.makeRoom(at: at(10))
        #expect(shed?.id == 2)
        #expect(shed?.verdict == .slow(bytes: 20, span: .seconds(10)))
        #expect(!policy.holds(2) && policy.count == 2)
        #expect(shed?.verdict.text(rules: policy.rules) == "made room for a new client: 20 bytes in 10s, below 500 bytes/s")
    }

    /// Every client gets a whole window before it is judged: a silent one admitted at 0 is safe
    /// at 9.999 s and goes at 10 s.
    @Test func aClientYoungerThanTheWindowIsNeverJudged() {
        var policy = policy()
        policy.admit(1, phase: .serving, at: at(0))
        #expect(policy.makeRoom(at: at(9.999)) == nil)
        #expect(policy.makeRoom(at: at(10))?.id == 1)
    }

    /// Equally slow: the one idle longest goes, then the first admitted.
    @Test func amongEquallySlowClientsTheOneIdleLongestGoes() {
        var policy = policy()
        for id in 1...3 as ClosedRange<UInt64> { policy.admit(id, phase: .serving, at: at(0)) }
        policy.observe(1, .init(bytes: 10, last: at(8)))
        policy.observe(2, .init(bytes: 10, last: at(3)))
        policy.observe(3, .init(bytes: 10, last: at(3)))
        #expect(policy.makeRoom(at: at(10))?.id == 2)
        #expect(policy.makeRoom(at: at(10))?.id == 3)
        #expect(policy.makeRoom(at: at(10))?.id == 1)
    }

    /// A client at or above the minimum rate keeps its place, and with a minimum rate of 0
    /// nobody is ever made to leave.
    @Test func busyClientsAndARateOfZeroMakeNoRoom() {
        var busy = policy()
        busy.admit(1, phase: .serving, at: at(0))
        busy.observe(1, .init(bytes: 5000, last: at(10)))
        #expect(busy.makeRoom(at: at(10)) == nil)
        var off = policy { $0.minimumRate = 0 }
        off.admit(1, phase: .serving, at: at(0))
        #expect(off.makeRoom(at: at(3600)) == nil)
    }

    /// Windows roll when room is asked for: a client that sent 100 KB in its first seconds and
    /// then nothing is judged on its whole life at the first ask (fast enough), and on the last
    /// window at the next ask, a window later (silent: it goes).
    @Test func whilePlacesAreScarceRatesAreJudgedOverTheLastWindow() {
        var policy = policy()
        policy.admit(1, phase: .serving, at: at(0))
        policy.observe(1, .init(bytes: 100_000, last: at(2)))
        #expect(policy.makeRoom(at: at(20)) == nil, "100 KB over 20 s is 5 KB/s")
        #expect(policy.makeRoom(at: at(29)) == nil, "judged from 0 until a window has passed since the last ask")
        let shed = policy.makeRoom(at: at(30))
        #expect(shed?.verdict == .slow(bytes: 0, span: .seconds(10)))
    }

    // MARK: Idle timeout

    /// Idle counts from the last byte either way, or from when the client started serving (a
    /// handshake is the handshake timeout's business): exactly at the deadline, not before.
    @Test func idleClientsExpireExactlyAtTheirDeadline() {
        var policy = policy { $0.idleTimeout = .seconds(30) }
        policy.admit(1, phase: .serving, at: at(0))
        policy.admit(2, phase: .tlsHandshake, at: at(0))
        policy.observe(1, .init(bytes: 3, last: at(5)))
        #expect(policy.nextReview(after: nil) == at(35))
        #expect(policy.expireIdle(at: at(34.999)).isEmpty)
        policy.enter(.serving, id: 2, at: at(20))
        #expect(policy.expireIdle(at: at(35)).map(\.id) == [1])
        #expect(policy.nextReview(after: at(35)) == at(50))
        #expect(policy.expireIdle(at: at(49.999)).isEmpty)
        let expired = policy.expireIdle(at: at(50))
        #expect(expired.map(\.id) == [2])
        #expect(expired.first?.verdict.text(rules: policy.rules) == "idle for 30s")
        #expect(policy.nextReview(after: at(50)) == nil)
    }

    /// Clients going idle one after another are reviewed no more often than every sixteenth of
    /// the timeout; without a timeout there is nothing to review.
    @Test func reviewsComeNoMoreOftenThanASixteenthOfTheTimeout() {
        var policy = policy { $0.idleTimeout = .seconds(16) }
        policy.admit(1, phase: .serving, at: at(0))
        policy.admit(2, phase: .serving, at: at(0.1))
        #expect(policy.expireIdle(at: at(16)).map(\.id) == [1])
        #expect(policy.nextReview(after: at(16)) == at(17), "due at 16.1, batched to 17")
        #expect(policy.expireIdle(at: at(17)).map(\.id) == [2])
        var none = self.policy()
        none.admit(1, phase: .serving, at: at(0))
        #expect(none.nextReview(after: nil) == nil && none.expireIdle(at: at(1e6)).isEmpty)
    }

    // MARK: Census

    /// The refusal names what holds the places, each client once, in the first kind that fits.
    @Test func theCensusSaysWhatHoldsThePlaces() {
        var policy = policy { $0.minimumRate = 0 }
        policy.admit(1, phase: .tlsHandshake, at: at(0))
        policy.admit(2, phase: .webSocketHandshake, at: at(0))
        policy.admit(3, phase: .serving, at: at(0))
        policy.admit(4, phase: .serving, at: at(25))
        policy.admit(5, phase: .serving, at: at(0))
        policy.observe(5, .init(bytes: 90_000, last: at(29)))
        let census = policy.census(at: at(30))
        #expect(census == .init(tlsHandshake: 1, webSocketHandshake: 1, idle: 1, slow: 0, young: 1, active: 1))
        #expect(census.text(rules: policy.rules)
            == "1 in TLS handshake, 1 in WebSocket handshake, 1 idle for 10s or more, 1 connected less than 10s ago, 1 active")
        #expect(Policy.Census().text(rules: policy.rules) == "none")
        #expect(SlotRules.rateText(4096) == "4KiB/s")
    }
}
