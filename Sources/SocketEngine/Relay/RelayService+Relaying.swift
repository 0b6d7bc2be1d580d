import NIOCore
import Synchronization

extension RelayService {
    /// How one client's relay ended.
    struct Outcome: Sendable {
        /// Why, when it was not an orderly end of both directions.
        var error: SocketEngineError?
        /// Whether the client and its upstream were reset.
        var reset = false
    }

    fileprivate enum Step: Sendable {
        case pump(RelayPump.End)
        /// A time-based fault came due (nil: the timer was cancelled).
        case timer(RelayPump.End?)
        /// A UDP flow was idle too long.
        case idle(Duration)
    }

    /// Relays both directions between `clientSide` and `upstream` until both have ended; closes
    /// both. `activity`: for relays with a UDP side, ends them after the idle timeout.
    func relay(
        _ client: RelayClient, _ clientSide: any RelayPeer, _ upstream: any RelayPeer,
        counters: RelayCounters, activity: RelayActivity?
    ) async -> Outcome {
        let configuration = self.configuration
        let faultsApply = configuration.faultsCanChange || !configuration.faults.isEmpty
        let clientFaults = faultsApply ? ClientFaults(set: faults, random: random, clock: configuration.clock) : nil
        let reports = RelayReports(data: configuration.reportsData, messages: configuration.reportsMessages, emit: onEvent)
        let path = RelayPath.choose(
            clientSide: clientSide, upstream: upstream, faults: clientFaults, reports: reports,
            framing: configuration.framing, activity: activity, epollLoop: configuration.epollLoop
        )
        if case .epollLoop(let loop, let from, let to) = path, let outcome = await relayOnEpollLoop(loop, client, from, to, counters: counters) {
            return outcome
        }
        let ending = RelayEnding()
        let httpCutter = configuration.framing == .http ? RelayHTTPCutter(maximumFrameSize: configuration.maximumFrameSize) : nil
        func pump(_ direction: RelayDirection, from source: any RelayPeer, to sink: any RelayPeer) -> RelayPump {
            RelayPump(
                client: client, direction: direction, source: source, sink: sink, framing: configuration.framing,
                maximumFrameSize: configuration.maximumFrameSize, httpCutter: httpCutter, clock: configuration.clock, reports: reports,
                counters: counters, faults: clientFaults, path: path, activity: activity, ending: ending
            )
        }
        let up = pump(.up, from: clientSide, to: upstream)
        let down = pump(.down, from: upstream, to: clientSide)
        let both: [any RelayPeer] = [clientSide, upstream]

        return await withTaskGroup(of: Step.self) { group in
            group.addTask { .pump(await up.run()) }
            group.addTask { .pump(await down.run()) }
            if let clientFaults { group.addTask { .timer(await self.faultTimer(clientFaults)) } }
            if let activity { group.addTask { await activity.waitUntilIdle(for: configuration.datagramIdleTimeout) } }
            var outcome = Outcome()
            var running = 2
            func note(_ error: SocketEngineError) { if outcome.error == nil { outcome.error = error } }
            func end(_ step: RelayPump.End) async {
                if case .finished = step { return }
                ending.begin()
                switch step {
                case .finished:
                    break
                case .reset(let error):
                    note(error)
                    outcome.reset = true
                    for side in both { await side.abort() }
                case .failed(let error):
                    note(error)
                    for side in both { await side.close() }
                case .faultClose(let name):
                    note(SocketEngineError(.faultInjected, "closed by \(name)"))
                    for side in both { try? await side.finish() }
                    for side in both { await side.close() }
                case .faultReset(let name):
                    note(SocketEngineError(.faultInjected, "reset by \(name)"))
                    outcome.reset = true
                    for side in both { await side.abort() }
                }
            }
            while running > 0, let step = await group.next() {
                switch step {
                case .pump(let pumpEnd):
                    running -= 1
                    await end(pumpEnd)
                case .timer(let due?):
                    await end(due)
                case .timer(nil):
                    break
                case .idle(let idle):
                    ending.begin()
                    note(SocketEngineError(.idleTimeout, "\(client.peer): no datagram either way for \(idle.formatted)"))
                    for side in both { await side.close() }
                }
            }
            group.cancelAll()
            for side in both { await side.close() }
            return outcome
        }
    }

    /// Waits for the first time-based fault of this client to come due (`reset-after=3s`,
    /// `timeout=10s`), following changes to the fault list; returns how the client must end.
    private func faultTimer(_ faults: ClientFaults) async -> RelayPump.End? {
        let clock = configuration.clock
        while !Task.isCancelled {
            let snapshot = faults.set.snapshot
            var earliest: (at: EngineClock.Instant, end: RelayPump.End)?
            for entry in faults.applying(snapshot.entries, to: nil) {
                let name = "fault \(entry.id): \(entry.fault)"
                let due: (EngineClock.Instant, RelayPump.End)
                switch entry.fault.kind {
                case .resetAfter(.time(let after)): due = (faults.firstSeen(entry.id).advanced(by: after), .faultReset(name))
                case .timeout(let after?): due = (faults.firstSeen(entry.id).advanced(by: after), .faultClose(name))
                default: continue
                }
                if let current = earliest, current.at <= due.0 { continue }
                earliest = due
            }
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await faults.set.changed(since: snapshot.version) }
                    if let earliest { group.addTask { try await clock.sleep(until: earliest.at, tolerance: nil) } }
                    _ = try await group.next()
                    group.cancelAll()
                }
            } catch {
                return nil
            }
            // The faults changed while waiting (maybe as the deadline came): what is due is
            // decided again from the new list — a fault removed before it acted never acts.
            if faults.set.version != snapshot.version { continue }
            if let earliest, earliest.at <= clock.now { return earliest.end }
        }
        return nil
    }
}

/// When a relay with a UDP side last forwarded anything, for its idle timeout.
final class RelayActivity: Sendable {
    private let clock: EngineClock
    private let last: Mutex<EngineClock.Instant>

    init(clock: EngineClock) {
        self.clock = clock
        self.last = Mutex(clock.now)
    }

    func touch() {
        let now = clock.now
        last.withLock { $0 = now }
    }

    /// Returns once nothing has moved for `idle` (exactly `idle` after the last unit).
    fileprivate func waitUntilIdle(for idle: Duration) async -> RelayService.Step {
        while true {
            let deadline = last.withLock { $0 }.advanced(by: idle)
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return .timer(nil)
            }
            if last.withLock({ $0 }).advanced(by: idle) <= clock.now { return .idle(idle) }
        }
    }
}
