import Testing
@testable import SocketEngine
import TestSupport

/// A clock instant that only moves when a test says so.
struct MockInstant: InstantProtocol, Hashable, Sendable {
    var offset: Duration
    func advanced(by duration: Duration) -> MockInstant { MockInstant(offset: offset + duration) }
    func duration(to other: MockInstant) -> Duration { other.offset - offset }
    static func < (lhs: MockInstant, rhs: MockInstant) -> Bool { lhs.offset < rhs.offset }
    static let zero = MockInstant(offset: .zero)
}

@Suite(.hangGuard) struct HappyEyeballsStateMachineTests {
    typealias Machine = HappyEyeballsStateMachine<String>

    @Test func interleavingStartsWithIPv6AndAlternatesFamilies() {
        let ordered = Machine.interleave(["4a", "4b", "6a", "6b", "6c"]) { $0.hasPrefix("6") }
        #expect(ordered == ["6a", "4a", "6b", "4b", "6c"])
        #expect(Machine.interleave(["4a", "4b"]) { $0.hasPrefix("6") } == ["4a", "4b"])
    }

    @Test func firstAttemptStartsAtOnceAndTheNextAfterTheDelay() {
        var machine = Machine(addresses: ["::1", "127.0.0.1"])
        let start = machine.start()
        #expect(start.count == 2)
        guard case .startAttempt(0) = start[0], case .startTimer(let generation) = start[1] else {
            Issue.record("unexpected actions \(start)")
            return
        }
        let afterDelay = machine.timerFired(generation: generation)
        guard case .startAttempt(1)? = afterDelay.first else {
            Issue.record("second attempt not started: \(afterDelay)")
            return
        }
        #expect(afterDelay.count == 1)
    }

    @Test func aFailureStartsTheNextAttemptWithoutWaiting() {
        var machine = Machine(addresses: ["::1", "127.0.0.1"])
        _ = machine.start()
        let actions = machine.attemptFailed(index: 0)
        guard case .startAttempt(1)? = actions.first else {
            Issue.record("expected the IPv4 attempt, got \(actions)")
            return
        }
    }

    @Test func aStaleTimerIsIgnored() {
        var machine = Machine(addresses: ["a", "b", "c"])
        let first = machine.start()
        guard case .startTimer(let stale) = first[1] else { Issue.record("no timer"); return }
        let second = machine.attemptFailed(index: 0)
        #expect(second.contains { if case .startTimer = $0 { true } else { false } })
        #expect(machine.timerFired(generation: stale).isEmpty)
    }

    @Test func firstToConnectWinsAndTheOthersAreCancelled() {
        var machine = Machine(addresses: ["a", "b", "c"])
        _ = machine.start()
        _ = machine.timerFired(generation: 1)
        _ = machine.timerFired(generation: 2)
        let actions = machine.attemptSucceeded(index: 1)
        guard case .succeed(let index, let cancel)? = actions.first else { Issue.record("\(actions)"); return }
        #expect(index == 1)
        #expect(cancel == [0, 2])
        #expect(machine.attemptSucceeded(index: 0).isEmpty)
        #expect(machine.attemptFailed(index: 2).isEmpty)
    }

    @Test func everyAttemptFailingFailsOnce() {
        var machine = Machine(addresses: ["a", "b"])
        _ = machine.start()
        _ = machine.attemptFailed(index: 0)
        let last = machine.attemptFailed(index: 1)
        guard case .fail? = last.first else { Issue.record("\(last)"); return }
        #expect(machine.isFinished)
        #expect(machine.started == [0, 1])
    }

    @Test func noAddressesFailsImmediately() {
        var machine = Machine(addresses: [])
        guard case .fail? = machine.start().first else { Issue.record("expected failure"); return }
    }
}

@Suite(.hangGuard) struct ReconnectStateMachineTests {
    @Test func delaysDoubleFromOneSecondUpToTheAttemptLimit() {
        var machine = ReconnectStateMachine(policy: ReconnectPolicy())
        var random = SplitMix64(seed: 1)
        var delays: [Duration] = []
        var action = machine.disconnected(using: &random)
        while case .reconnect(let delay, let attempt, let total) = action {
            #expect(attempt == delays.count + 1)
            #expect(total == 5)
            delays.append(delay)
            action = machine.disconnected(using: &random)
        }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)])
        #expect(action == .giveUp(attempts: 5))
        #expect(machine.disconnected(using: &random) == .giveUp(attempts: 5))
    }

    @Test func aSuccessfulConnectionResetsTheBackoff() {
        var machine = ReconnectStateMachine(policy: ReconnectPolicy(maximumAttempts: 3))
        _ = machine.disconnected()
        _ = machine.disconnected()
        machine.connected()
        #expect(machine.disconnected() == .reconnect(after: .seconds(1), attempt: 1, of: 3))
    }

    @Test func theCapLimitsEveryDelay() {
        let policy = ReconnectPolicy(maximumAttempts: 10, maximumDelay: .seconds(5))
        #expect((1...10).map(policy.baseDelay(forAttempt:)).max() == .seconds(5))
        #expect(policy.baseDelay(forAttempt: 3) == .seconds(4))
    }

    @Test func jitterStaysWithinItsFraction() {
        var machine = ReconnectStateMachine(policy: ReconnectPolicy(maximumAttempts: 1000, jitter: 0.5))
        var random = SplitMix64(seed: 42)
        var seen: Set<Duration> = []
        for _ in 0..<200 {
            machine.connected()
            guard case .reconnect(let delay, _, _) = machine.disconnected(using: &random) else { Issue.record("gave up"); return }
            #expect(delay >= .milliseconds(500) && delay <= .milliseconds(1500))
            seen.insert(delay)
        }
        #expect(seen.count > 100)
    }
}

@Suite(.hangGuard) struct HeartbeatStateMachineTests {
    typealias Machine = HeartbeatStateMachine<MockInstant>

    func at(_ milliseconds: Int) -> MockInstant { MockInstant(offset: .milliseconds(milliseconds)) }

    @Test func sendsEveryIntervalWhileThePeerAnswers() {
        var machine = Machine(interval: .seconds(5), allowedMisses: 3, now: .zero)
        #expect(machine.tick(now: at(0)) == [.wait(until: at(5000))])
        #expect(machine.tick(now: at(5000)) == [.sendHeartbeat, .wait(until: at(10000))])
        machine.received(at: at(5010))
        #expect(machine.tick(now: at(10000)) == [.sendHeartbeat, .wait(until: at(15000))])
        machine.received(at: at(10010))
        #expect(machine.tick(now: at(15000)) == [.sendHeartbeat, .wait(until: at(20000))])
        #expect(!machine.isDead)
    }

    @Test func silenceForKIntervalsDeclaresThePeerDead() {
        var machine = Machine(interval: .seconds(5), allowedMisses: 3, now: .zero)
        _ = machine.tick(now: at(5000))
        _ = machine.tick(now: at(10000))
        #expect(machine.tick(now: at(14999)) == [.wait(until: at(15000))])
        #expect(machine.tick(now: at(15000)) == [.declareDead(silentFor: .seconds(15))])
        #expect(machine.isDead)
        #expect(machine.tick(now: at(20000)).isEmpty)
    }

    @Test func anyReceivedDataPostponesDeath() {
        var machine = Machine(interval: .seconds(1), allowedMisses: 2, now: .zero)
        machine.received(at: at(1500))
        #expect(machine.tick(now: at(2000)) == [.sendHeartbeat, .wait(until: at(3000))])
        #expect(machine.tick(now: at(3400)) == [.sendHeartbeat, .wait(until: at(3500))])
        #expect(machine.tick(now: at(3500)) == [.declareDead(silentFor: .seconds(2))])
    }

    @Test func aLateTickSendsOnceAndKeepsTheSchedule() {
        var machine = Machine(interval: .seconds(1), allowedMisses: 100, now: .zero)
        #expect(machine.tick(now: at(3500)) == [.sendHeartbeat, .wait(until: at(4000))])
    }
}
