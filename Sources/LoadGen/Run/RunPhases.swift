import Histogram
import SocketEngine

/// The waits of a load run, on the caller's clock (``LoadPlan/connectOptions``' `clock`, the
/// one ``ReplayLoadRunner`` waits on too): the ramp-up's pacing and its wait for first
/// attempts, the once-a-second samples and the stall check, the drain.
///
/// Only offsets from the run's start cross to the connections, which stamp and schedule each
/// message on their transport's time (an event loop's `now`, a thread's `CLOCK_MONOTONIC`): the
/// runner's clock may be another (the system's `ContinuousClock` counts a suspend, the loops do
/// not), and a test's virtual clock runs these phases without a loop.
struct RunPhases: Sendable {
    let plan: LoadPlan
    let clock: EngineClock
    let stop: StopRequest
    /// `--metrics-listen`: set once a second.
    let metrics: LoadMetrics?

    /// Opens slots `0..<openable` spread over `workers`, slot `k` at `k / connectRate` after
    /// the start (all at once without a rate), then waits for each slot's first attempt to end,
    /// at most the connect timeout plus a second. A stop ends both.
    func rampUp(_ workers: [any LoadWorker], openable: Int) async throws {
        let rampStart = clock.now
        let perSecond = plan.connectRate ?? .infinity
        for slot in 0..<openable {
            if perSecond.isFinite {
                _ = try await stop.sleep(until: rampStart.advanced(by: .nanoseconds(Int64(Double(slot) / perSecond * 1e9))), on: clock)
            }
            if stop.isRequested { break }
            workers[slot % workers.count].open(slot: slot)
        }
        let rampDeadline = clock.now.advanced(by: plan.connectOptions.connectTimeout + .seconds(1))
        while clock.now < rampDeadline && !stop.isRequested {
            let attempted = try await LoadRunner.sum(workers) { try await $0.attemptedCount() }
            if attempted >= openable { break }
            try await clock.sleep(until: min(rampDeadline, clock.now.advanced(by: .milliseconds(10))))
        }
    }

    /// Waits, from now, up to the drain timeout for what the workers still have to do: messages
    /// due before the end that have not gone yet (their timers may run late on a busy loop),
    /// replies to what was sent.
    func drain(_ workers: [any LoadWorker]) async throws {
        let deadline = clock.now.advanced(by: plan.drainTimeout)
        while clock.now < deadline, try await LoadRunner.sum(workers, { try await $0.unfinishedCount() }) > 0 {
            try await clock.sleep(until: min(deadline, clock.now.advanced(by: .milliseconds(5))))
        }
    }

    /// Samples the workers once a second from `start` (the run's, on ``clock``) until sending is
    /// over (the context's stop offset, or every request answered). Returns warnings and the
    /// per-second entries.
    func measure(
        _ workers: [any LoadWorker], context: RunContext, start: EngineClock.Instant, progress: @Sendable (LoadRunner.Progress) -> Void
    ) async throws -> ([SettingText], [LoadReport.Interval]) {
        var timeline: [LoadReport.Interval] = []
        var previous = LoadCounters()
        /// Nanoseconds from `start`.
        func offset() -> Int64 { start.duration(to: clock.now).nanosecondsClamped }
        var lastActivity: Int64 = offset()
        let total = plan.sendingDuration.map { $0 - plan.warmup }
        let stallLimit = max(plan.replyTimeout * 2, .seconds(10))
        var second = 0
        var lastSample: Int64 = 0
        var interval = LoadStats.makeHistogram()
        let live = metrics != nil
        while true {
            let nextTick = Int64(second + 1) * 1_000_000_000
            let stopAt = context.stopNanos
            // With requests, the end is whenever the last reply is in: looked for every 10 ms.
            let wake = min(nextTick, stopAt, plan.requests != nil ? offset() + 10_000_000 : .max)
            _ = try await stop.sleep(until: start.advanced(by: .nanoseconds(wake)), on: clock)
            let now = offset()

            var counters = LoadCounters()
            var outstanding = 0
            var open = 0
            // The whole histograms, for the metrics, only at the sample of each second.
            let whole = live && (now >= nextTick || now >= stopAt)
            var corrected = whole ? LoadStats.makeHistogram() : nil
            var uncorrected = whole ? LoadStats.makeHistogram() : nil
            var labels = whole ? LabelTable() : nil
            for worker in workers {
                let snapshot = try await worker.snapshot(cumulative: whole)
                counters.add(snapshot.counters)
                interval.add(snapshot.interval)
                outstanding += snapshot.outstanding
                open += snapshot.open
                if let cumulative = snapshot.cumulative {
                    corrected?.add(cumulative.corrected)
                    uncorrected?.add(cumulative.uncorrected)
                }
                if let table = snapshot.labels { labels?.add(table) }
            }
            let done = plan.requests.map { counters.messagesSent >= $0 && outstanding == 0 } ?? false
            let ending = now >= stopAt || done
            // Each second; at the end, the part of a second since the last one (if anything
            // happened in it).
            let partial = now < nextTick
            if !partial || (ending && counters != previous) {
                // A late sample covers every tick it missed.
                second = max(second + 1, Int(now / 1_000_000_000))
                let span = max(1e-3, Double(now - lastSample) / 1e9)
                lastSample = now
                let elapsed = Duration.nanoseconds(now - context.warmupNanos)
                let sent = counters.messagesSent + counters.warmupSent - previous.messagesSent - previous.warmupSent
                let received = counters.messagesReceived - previous.messagesReceived
                if sent > 0 || received > 0 { lastActivity = now }
                let sample = LoadRunner.Progress(
                    elapsed: elapsed, total: total, warmingUp: elapsed < .zero, open: open,
                    sentPerSecond: Double(sent) / span, receivedPerSecond: Double(received) / span,
                    errors: counters.errorCount - previous.errorCount,
                    p50: interval.totalCount > 0 ? Double(interval.valueAtPercentile(50)) / 1000 : nil,
                    p99: interval.totalCount > 0 ? Double(interval.valueAtPercentile(99)) / 1000 : nil)
                // The metrics first: a scrape after the progress line shows at least its numbers.
                if let corrected, let uncorrected {
                    metrics?.update(LoadLiveSample(
                        counters: counters, open: open, sentPerSecond: sample.sentPerSecond,
                        targetRate: context.schedule?.rate(at: Double(now) / 1e9),
                        elapsedSeconds: Double(elapsed.nanosecondsClamped) / 1e9, corrected: corrected, uncorrected: uncorrected,
                        labels: labels?.entries ?? []))
                }
                progress(sample)
                if elapsed >= .zero {
                    timeline.append(LoadReport.Interval(
                        second: Int((Double(elapsed.nanosecondsClamped) / 1e9).rounded(partial ? .up : .toNearestOrAwayFromZero)), span: (span * 1000).rounded() / 1000,
                        open: open, sent: sent, received: received,
                        errors: sample.errors, p50: sample.p50, p99: sample.p99))
                }
                previous = counters
                interval.reset()
            }
            if ending { return ([], timeline) }
            if plan.requests != nil {
                if now - lastActivity > stallLimit.nanosecondsClamped {
                    return (["nothing was sent or received for \(stallLimit): the run was stopped before all \(.requests) were sent"], timeline)
                }
            }
        }
    }
}
