import Foundation
import NIOCore
import PacketDecoding
import Recording
import SocketEngine

/// `loadtest --from-pcap`: replays the client side of many recorded streams concurrently
/// against one target, each copy on its own connection with its recorded timing, and reports
/// like any load test (a ``LoadReport``: messages sent and answered, latency, errors by kind,
/// throughput; thresholds and JSON on top).
///
/// The streams come from the capture through the ``Recording`` library (``ReplayStreams``
/// finds and reassembles them, ``ReplayPlan`` cuts each into messages and expected answers,
/// ``ReplayVerifier`` compares), and each copy is played by a ``StreamReplayer``. With a
/// speed, a stream starts at its recorded offset from the first stream chosen (divided by the
/// speed), so the recorded concurrency is kept; at top speed the copies open at the plan's
/// `connectRate`. `--scale N` starts N copies of each stream together; `--loop` starts a copy
/// again when it ends, until `--duration` or `--requests`.
///
/// What throws (before anything is sent): a capture that cannot be read, holds no stream of
/// the target's kind, lacks a chosen stream or some of a chosen stream's client bytes, or does
/// not follow `--framing`. Everything the target does is counted, not thrown. A capture whose
/// last record is cut short is replayed up to it, with a warning in the report.
///
/// ``stop()`` (SIGINT) ends the run early and in order: no copy opens or sends anything more,
/// each waits for the replies to what it sent (within the reply timeout), and the report is
/// marked ``LoadReport/interrupted``.
public final class ReplayLoadRunner: Sendable {
    /// The target, connect options, framing, timeout and `--requests`.
    public let plan: LoadPlan
    /// The capture and how to replay it.
    public let options: ReplayLoadOptions
    private let stopRequest = StopRequest()

    /// A runner for `options` against `plan`'s target; nothing happens until ``run(progress:)``.
    public init(plan: LoadPlan, options: ReplayLoadOptions) {
        self.plan = plan
        self.options = options
    }

    /// The framing replies are read with: nil for recorded segments (`raw` included).
    var framing: Framing? { plan.framing == .raw ? nil : plan.framing }

    /// Loads the capture and returns the scripts of the streams chosen, and warnings.
    func scripts() throws(LoadGenError) -> ([StreamScript], [SettingText]) {
        let path = options.path
        let chosen = options.streams.map { Set($0.numbers) }
        let streams: [RecordedStream]
        var warnings: [SettingText] = []
        do {
            let loaded = try ReplayStreams.load(path, keeping: { number in chosen?.contains(number) ?? true })
            streams = loaded.streams
            if let warning = loaded.warning { warnings.append(SettingText(warning)) }
        } catch {
            throw LoadGenError(.invalidPlan, "\(.fromPcap) \(error.text)")
        }
        let target = plan.endpoint.transport
        let kind: RecordedStream.Transport = target == .udp ? .udp : .tcp
        let selected: [RecordedStream]
        if let numbers = options.streams?.numbers {
            var picked: [RecordedStream] = []
            for number in numbers {
                guard number <= streams.count else {
                    let range = streams.isEmpty ? "it holds no stream" : streams.count == 1 ? "it has only stream 1" : "it has streams 1-\(streams.count)"
                    throw LoadGenError(.invalidPlan, "\(.streams): \(path) has no stream \(number): \(range) (see sockctl replay \(.list))")
                }
                let stream = streams[number - 1]
                guard stream.transport == kind else {
                    throw LoadGenError(.invalidPlan, "\(.streams): stream \(number) is \(stream.transport.rawValue); a \(target.rawValue) target replays \(kind.rawValue) streams")
                }
                picked.append(stream)
            }
            selected = picked
        } else {
            selected = streams.filter { $0.transport == kind }
            guard !selected.isEmpty else {
                throw LoadGenError(.invalidPlan, "\(.fromPcap) \(path): no \(kind.rawValue.uppercased()) stream in this capture to replay against a \(target.rawValue) target")
            }
        }
        let first = selected.map(\.firstTime).min() ?? 0
        var scripts: [StreamScript] = []
        for stream in selected {
            if stream.clientCounters.missingBytes > 0 || (options.verifySample != nil && stream.serverCounters.missingBytes > 0) {
                let side = stream.clientCounters.missingBytes > 0 ? "client" : "server"
                throw LoadGenError(.invalidPlan, "\(.fromPcap) \(path): stream \(stream.index): \(stream.counters(side == "client" ? .client : .server).missingBytes) bytes the \(side) sent are not in the capture: cannot replay it faithfully")
            }
            let script: StreamScript
            do {
                script = try StreamScript(
                    stream: stream, start: .nanoseconds(stream.firstTime >= first ? stream.firstTime - first : 0), framing: framing,
                    messageTarget: target.isMessageOriented, maximumFrameSize: plan.maximumFrameSize, sample: options.verifySample
                )
            } catch {
                throw LoadGenError(.invalidPlan, "\(.fromPcap) \(path): stream \(stream.index): \(error.text)")
            }
            guard !script.messages.isEmpty else {
                warnings.append("stream \(stream.index): the client sent nothing; not replayed")
                continue
            }
            if !options.ignore.isEmpty && !script.framed {
                throw LoadGenError(.invalidPlan, "\(.ignore) compares frame by frame: give \(.framing)")
            }
            scripts.append(script)
        }
        guard !scripts.isEmpty else { throw LoadGenError(.invalidPlan, "\(.fromPcap) \(path): no chosen stream has a client message to send") }
        guard scripts.count * options.scale.copies <= ReplayLoadOptions.maximumCopies else {
            throw LoadGenError(.invalidPlan, "\(scripts.count) streams × \(.scale) \(options.scale.copies) is over \(ReplayLoadOptions.maximumCopies) connections")
        }
        if let shard = plan.shard, shard.share(of: scripts.count * options.scale.copies) == 0 {
            let total = scripts.count * options.scale.copies
            throw LoadGenError(.invalidPlan, "shard \(shard) would replay nothing: \(total) stream copies split over \(shard.count) shards leave shards \(total) and up without one (use at most \(total) shards, or a larger \(.scale))")
        }
        return (scripts, warnings)
    }

    /// Ends the run early (see the type's discussion); safe to call at any time.
    public func stop() {
        stopRequest.request()
    }

    /// Replays the capture and returns the report, passing `progress` a sample once a second.
    /// Throws `.invalidPlan` for a plan or capture that cannot run.
    public func run(progress: @escaping @Sendable (LoadRunner.Progress) -> Void = { _ in }) async throws(LoadGenError) -> LoadReport {
        let (scripts, scriptWarnings) = try scripts()
        let descriptorLimit = DescriptorLimit.raiseToHardLimit()
        var warnings = scriptWarnings + SystemLimits.preflight(
            connections: (plan.shard ?? .whole).share(of: scripts.count * options.scale.copies), descriptors: descriptorLimit, tcp: plan.endpoint.transport == .tcp)
        let clock = plan.connectOptions.clock
        let tally = ReplayTally(requests: plan.requests, target: plan.endpoint.description)
        let startedAt = plan.wallClock()
        let start = clock.now
        let stopAt = options.duration.map { start.advanced(by: $0) }
        let sampler = Task { await sample(tally, from: start, clock: clock, progress: progress) }
        // A shard plays the copies it owns (by number, the remainder to the lowest shards).
        let shard = plan.shard ?? .whole
        let copies = scripts.flatMap { script in (0..<options.scale.copies).map { (script, $0) } }.enumerated().filter { shard.owns($0.offset) }.map(\.element)
        await withTaskGroup(of: [SettingText].self) { group in
            for (slot, (script, copy)) in copies.enumerated() {
                group.addTask { await self.play(script, copy: copy, slot: slot, tally: tally, start: start, stopAt: stopAt) }
            }
            for await copyWarnings in group { warnings += copyWarnings }
        }
        let elapsed = clock.elapsed(since: start)
        sampler.cancel()
        let timeline = await sampler.value
        var result = report(scripts: scripts, tally: tally, startedAt: startedAt, elapsed: elapsed, timeline: timeline, warnings: warnings)
        result.interrupted = stopRequest.isRequested
        return result
    }

    /// Plays one copy of `script`, again and again with `--loop`; returns its warnings.
    private func play(_ script: StreamScript, copy: Int, slot: Int, tally: ReplayTally, start: EngineClock.Instant, stopAt: EngineClock.Instant?) async -> [SettingText] {
        let clock = plan.connectOptions.clock
        let opensAt: EngineClock.Instant
        if !options.speed.isTopSpeed {
            opensAt = start.advanced(by: options.speed.scaled(script.start))
        } else if let rate = plan.connectRate {
            opensAt = start.advanced(by: ReplaySpeed.divide(.seconds(slot), by: rate))
        } else {
            opensAt = start
        }
        _ = try? await stopRequest.sleep(until: stopAt.map { min($0, opensAt) } ?? opensAt, on: clock)
        // A copy that keeps failing gives up after this long without a completed round.
        let stallLimit = max(plan.replyTimeout * 2, .seconds(10))
        var lastSuccess = clock.now
        var reconnect = ReconnectStateMachine(policy: .loadTest)
        var round = 0
        while !Task.isCancelled && !stopRequest.isRequested {
            if let stopAt, clock.now >= stopAt { break }
            if tally.ticketsExhausted { break }
            let replayer = StreamReplayer(
                script: script, endpoint: plan.endpoint, connect: plan.connectOptions, framing: framing,
                maximumFrameSize: plan.maximumFrameSize, speed: options.speed, timeout: plan.replyTimeout, ignore: options.ignore,
                tally: tally, copy: copy, round: round, stopAt: stopAt, stop: stopRequest
            )
            let ending = await replayer.run()
            round += 1
            guard options.loop else { break }
            switch ending {
            case .completed, .cut:
                reconnect.connected()
                lastSuccess = clock.now
            case .failed, .timedOut:
                if clock.elapsed(since: lastSuccess) > stallLimit {
                    return ["stream \(script.index) (copy \(copy + 1)): stopped looping after failing for \(stallLimit.formatted)"]
                }
                // Back off as a load test's reconnects do.
                guard case .reconnect(let delay, _, _) = reconnect.disconnected() else { break }
                let until = clock.now.advanced(by: delay)
                _ = try? await stopRequest.sleep(until: stopAt.map { min($0, until) } ?? until, on: clock)
            }
        }
        return []
    }

    /// Samples the tally once a second until cancelled: the progress line and the timeline.
    private func sample(_ tally: ReplayTally, from start: EngineClock.Instant, clock: EngineClock, progress: @Sendable (LoadRunner.Progress) -> Void) async -> [LoadReport.Interval] {
        var timeline: [LoadReport.Interval] = []
        var previous = LoadCounters()
        var second = 0
        while true {
            do {
                try await clock.sleep(until: start.advanced(by: .seconds(second + 1)))
            } catch {
                return timeline
            }
            second += 1
            let (counters, interval) = tally.update { ($0.stats.counters, $0.stats.takeInterval()) }
            let p50 = interval.totalCount > 0 ? Double(interval.valueAtPercentile(50)) / 1000 : nil
            let p99 = interval.totalCount > 0 ? Double(interval.valueAtPercentile(99)) / 1000 : nil
            let sent = counters.messagesSent - previous.messagesSent
            let received = counters.messagesReceived - previous.messagesReceived
            let errors = counters.errorCount - previous.errorCount
            let open = tally.open
            progress(LoadRunner.Progress(
                elapsed: .seconds(second), total: options.duration, warmingUp: false, open: open, sentPerSecond: Double(sent),
                receivedPerSecond: Double(received), errors: errors, p50: p50, p99: p99))
            timeline.append(LoadReport.Interval(second: second, span: 1, open: open, sent: sent, received: received, errors: errors, p50: p50, p99: p99))
            previous = counters
        }
    }
}
