import Foundation
import Recording
import SocketEngine

extension ReplayLoadRunner {
    /// The run's ``LoadReport``: the figures every load test reports, plus its ``LoadReport/Replay``
    /// section (streams, copies, rounds, verification).
    func report(
        scripts: [StreamScript], tally: ReplayTally, startedAt: Date, elapsed: Duration, timeline: [LoadReport.Interval], warnings: [SettingText]
    ) -> LoadReport {
        let state = tally.update { $0 }
        let counters = state.stats.counters
        let seconds = max(1e-6, Double(elapsed.nanosecondsClamped) / 1e9)
        let copies = (plan.shard ?? .whole).share(of: scripts.count * options.scale.copies)
        let messageCount = scripts.reduce(0) { $0 + $1.messages.count }
        let messageBytes = scripts.reduce(0) { sum, script in sum + script.messages.reduce(0) { $0 + $1.bytes.readableBytes } }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let framed = scripts.first?.framed ?? false
        var report = LoadReport(
            target: plan.endpoint.description, address: nil, transport: plan.endpoint.transport.rawValue,
            startedAt: formatter.string(from: startedAt),
            config: LoadReport.Config(
                connections: copies, connectRate: plan.connectRate, durationSeconds: options.duration.map { $0.secondsDouble },
                requests: plan.requests, rate: nil, stages: nil, pipeline: 1, threads: 1, warmupSeconds: 0,
                framing: framing?.description ?? (framed ? "messages" : "segments"),
                messageBytes: messageCount > 0 ? messageBytes / messageCount : 0,
                timeoutSeconds: plan.replyTimeout.secondsDouble, io: nil),
            elapsedSeconds: (seconds * 1e6).rounded() / 1e6,
            connections: LoadReport.Connections(
                requested: copies, attempted: counters.connectAttempts, established: counters.connectsSucceeded,
                failed: counters.connectsFailed, lost: counters.connectionsLost, peakOpen: tally.peak),
            messages: LoadReport.Messages(
                intended: counters.messagesSent + counters.unsent, sent: counters.messagesSent, received: counters.messagesReceived,
                timedOut: counters.timedOut, lost: counters.lost, unsent: counters.unsent, warmupSent: 0),
            bytes: LoadReport.Bytes(sent: counters.bytesSent, received: counters.bytesReceived),
            throughput: LoadReport.Throughput(counters, seconds: seconds, offered: nil),
            latency: LoadReport.Latency?.none, histograms: LoadReport.Histograms?.none,
            errors: Dictionary(uniqueKeysWithValues: counters.errors.map { ($0.key.rawValue, $0.value) }),
            errorExamples: Dictionary(uniqueKeysWithValues: state.stats.firstErrors.map { ($0.key.rawValue, $0.value.rendered(plan.naming)) }),
            timeline: timeline, warnings: warnings, peakRSSBytes: SystemLimits.peakResidentBytes())
        report.shard = plan.shard?.description
        report.setLatency(corrected: state.stats.corrected, uncorrected: state.stats.uncorrected)
        var verify: LoadReport.Replay.Verify?
        if let sample = options.verifySample {
            let unit = framed ? "reply frame" : "reply segment"
            let first = state.firstMismatch.map { place, mismatch in
                "stream \(place.stream), message \(place.message + 1) (copy \(place.copy + 1), round \(place.round + 1)): "
                    + "the reply differs from the recording\n"
                    + ReplayVerifier.render(mismatch, target: plan.endpoint.description, unit: unit)
            }
            verify = LoadReport.Replay.Verify(samplePercent: sample.percent, checked: state.checked, mismatched: state.mismatched, firstMismatch: first)
        }
        report.replay = LoadReport.Replay(
            capture: options.path, streams: scripts.count, streamList: StreamList(numbers: scripts.map(\.index)).description,
            scale: options.scale.copies, loop: options.loop, speed: options.speed.factor, messagesPerRound: messageCount,
            runs: state.runs, runsCompleted: state.runsCompleted, oneWay: state.oneWay, verify: verify)
        return report
    }
}
