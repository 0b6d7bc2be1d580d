import NIOCore
import SocketEngine
import Synchronization

/// Plays a ``ReplayPlan``'s client side to a target over the engine's connect path (so tcp://,
/// tls://, ws://, wss://, udp:// and unix: targets all work) and, with `verify`, checks the
/// answers with a ``ReplayVerifier``.
///
/// Sending and receiving run side by side: each message is written when it is due (its recorded
/// time divided by the speed, counted from the moment the connection is up; at once with
/// top speed) while a reader task takes in everything the target sends. The recorded client's
/// FIN is repeated (a half-close) when it is due *and* the target has sent at least as many bytes
/// as the recording's server had sent by then, or after `timeout`, so a slow server is not cut
/// off by an early FIN. The run ends when the target closes; when everything expected has
/// arrived and nothing more comes within ``settleTime``; when nothing at all has come for
/// `timeout`; or at the first mismatch.
struct ReplayClient {
    struct Configuration {
        var endpoint: Endpoint
        var connect: ConnectOptions
        var plan: ReplayPlan
        /// nil: byte stream (segments); else frames of this framing.
        var framing: Framing?
        var maximumFrameSize: Int
        /// nil: top speed.
        var speed: Double?
        var verify: Bool
        var ignore: [Regex<AnyRegexOutput>] = []
        var timeout: Duration
        /// The recording is UDP (datagrams compare one by one).
        var datagrams: Bool
    }

    struct Outcome {
        var report: ConnectReport?
        var messagesSent = 0
        var bytesSent = 0
        var framesReceived = 0
        var bytesReceived = 0
        var verifier: ReplayVerifier?
        /// How late each message went out against its schedule.
        var maximumDrift: Duration = .zero
        var totalDrift: Duration = .zero
        var duration: Duration = .zero
        /// The run ended because the target went quiet before sending everything expected.
        var timedOut = false
        var error: SocketEngineError?

        var meanDrift: Duration { messagesSent > 0 ? totalDrift / messagesSent : .zero }
    }

    /// What a run waits for after the last expected byte, for extra bytes or the target's close.
    static let settleTime: Duration = .milliseconds(200)

    let configuration: Configuration

    /// Counters the reader publishes for the sender.
    private struct Progress {
        var bytes = 0
        var frames = 0
        var complete = false
        var mismatch = false
        var ended = false
        var lastActivity: ContinuousClock.Instant
    }

    /// `onConnected` sees the connect report and the local and remote addresses once the
    /// connection is up; `onEvent` a line for `-v`.
    func run(
        onConnected: (ConnectReport, SocketAddress?, SocketAddress?) -> Void = { _, _, _ in },
        onEvent: @escaping @Sendable (String) -> Void = { _ in }
    ) async -> Outcome {
        var outcome = Outcome()
        let clock = ContinuousClock()
        let connection: Connection
        do {
            let (opened, report) = try await Connector(endpoint: configuration.endpoint, options: configuration.connect).connect()
            connection = opened
            outcome.report = report
            onConnected(report, opened.localAddress, opened.remoteAddress)
        } catch {
            outcome.error = SocketEngineError.wrapping(error, context: "connect to \(configuration.endpoint)")
            return outcome
        }
        let start = clock.now
        let plan = configuration.plan
        let messageTarget = connection.transport.isMessageOriented
        let framed = configuration.framing != nil || messageTarget || configuration.datagrams
        let progress = Mutex(Progress(lastActivity: start))
        let verifier = ReplayVerifier(plan: plan, framed: framed, ignore: configuration.ignore)
        let framing = configuration.framing
        let maximumFrameSize = configuration.maximumFrameSize
        let stopsAtMismatch = configuration.verify

        let reader = Task { () -> (ReplayVerifier, SocketEngineError?) in
            var verifier = verifier
            var failure: SocketEngineError?
            do {
                while true {
                    let data: ByteBuffer?
                    if let framing, !messageTarget {
                        data = try await connection.readFrame(framing, maxFrameSize: maximumFrameSize)
                    } else {
                        data = try await connection.read(.available(maxLength: 1 << 20))
                    }
                    guard let data else { break }
                    verifier.receive(data)
                    let snapshot = verifier
                    progress.withLock {
                        // Wire bytes (delimiters included), as the recording counts them.
                        $0.bytes = connection.statistics.bytesReceived
                        $0.frames = snapshot.framesReceived
                        $0.complete = snapshot.isComplete
                        $0.mismatch = snapshot.mismatch != nil
                        $0.lastActivity = ContinuousClock().now
                    }
                    if stopsAtMismatch && snapshot.mismatch != nil { break }
                }
            } catch is CancellationError {
            } catch {
                failure = SocketEngineError.wrapping(error, context: connection.label)
            }
            progress.withLock { $0.ended = true }
            return (verifier, failure)
        }

        do {
            for send in plan.sends {
                if stopsAtMismatch && progress.withLock({ $0.mismatch }) { break }
                let due = start + scaled(send.due)
                if clock.now < due { try await clock.sleep(until: due) }
                let late = clock.now - due
                outcome.maximumDrift = max(outcome.maximumDrift, late)
                outcome.totalDrift += late
                try await connection.write(send.bytes, timeout: configuration.timeout)
                outcome.messagesSent += 1
                outcome.bytesSent += send.bytes.readableBytes
            }
            if let finishedAt = plan.clientFinishedAt, !messageTarget, !(stopsAtMismatch && progress.withLock({ $0.mismatch })) {
                let due = start + scaled(finishedAt)
                if clock.now < due { try await clock.sleep(until: due) }
                let waitUntil = clock.now + configuration.timeout
                while clock.now < waitUntil {
                    let (bytes, ended) = progress.withLock { ($0.bytes, $0.ended) }
                    if ended || bytes >= plan.serverBytesBeforeClientFinish { break }
                    try await clock.sleep(for: .milliseconds(2))
                }
                onEvent("end of the recorded client stream: write side shut down (FIN sent)")
                try await connection.closeWrite()
            }
            // Wait for the rest of the answers.
            var completeSince: ContinuousClock.Instant?
            while true {
                let state = progress.withLock { $0 }
                if state.ended || (stopsAtMismatch && state.mismatch) { break }
                let now = clock.now
                if state.complete {
                    let since = completeSince ?? now
                    completeSince = since
                    if now - since >= Self.settleTime { break }
                } else if now - max(state.lastActivity, lastSendTime(start: start)) >= configuration.timeout {
                    outcome.timedOut = true
                    break
                }
                try await clock.sleep(for: .milliseconds(2))
            }
        } catch {
            outcome.error = SocketEngineError.wrapping(error, context: connection.label)
        }
        await connection.close()
        reader.cancel()
        var (finalVerifier, readFailure) = await reader.value
        if outcome.error == nil, let readFailure, !(stopsAtMismatch && finalVerifier.mismatch != nil) {
            outcome.error = readFailure
        }
        if configuration.verify { finalVerifier.finish() }
        outcome.framesReceived = finalVerifier.framesReceived
        outcome.bytesReceived = connection.statistics.bytesReceived
        outcome.verifier = finalVerifier
        outcome.duration = clock.now - start
        return outcome
    }

    /// When the last message was due: the quiet-time clock starts no earlier.
    private func lastSendTime(start: ContinuousClock.Instant) -> ContinuousClock.Instant {
        start + scaled(configuration.plan.sends.last?.due ?? .zero)
    }

    /// A recorded offset at the chosen speed (zero at top speed).
    private func scaled(_ offset: Duration) -> Duration {
        guard let speed = configuration.speed else { return .zero }
        let nanoseconds = Double(offset.nanosecondsClamped) / speed
        guard nanoseconds.isFinite, nanoseconds < 9e18 else { return .seconds(Int64.max / 1_000_000_000) }
        return .nanoseconds(Int64(nanoseconds))
    }
}
