import Clocks
import NIOCore
import SocketEngine

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
///
/// Every wait is on the connection's clock (``ConnectOptions/clock``) or on the reader's
/// progress: nothing polls, and a test's virtual clock decides exactly when each message goes.
///
/// ``stop()`` (SIGINT) ends a run early and in order: no more messages are sent, the connection
/// is closed, and the outcome holds what was sent and received, ``Outcome/interrupted``; the
/// answers not yet in are not counted as missing.
public struct ReplayClient: Sendable {
    /// Everything a ``ReplayClient`` needs: the target, the ``ReplayPlan`` to play, and how to
    /// send and compare.
    public struct Configuration: Sendable {
        /// The target to replay against.
        public var endpoint: Endpoint
        /// How to connect; its ``ConnectOptions/clock`` schedules the messages.
        public var connect: ConnectOptions
        /// The recorded client's messages and the answers expected.
        public var plan: ReplayPlan
        /// nil: byte stream (segments); else frames of this framing.
        public var framing: Framing?
        /// The largest frame body read from the target with `framing`; a longer one ends the run
        /// with an error.
        public var maximumFrameSize: Int
        /// The recorded pace times a factor, or top speed.
        public var speed: ReplaySpeed
        /// Stop at the first mismatch and, at the end, count missing answers as one
        /// (``ReplayVerifier/finish()``); the answers are compared either way.
        public var verify: Bool
        /// Cut out of both the recorded and the received frames before they are compared.
        public var ignore: IgnorePatterns
        /// How long the target may stay silent before the run gives up on it.
        public var timeout: Duration
        /// The recording is UDP (datagrams compare one by one).
        public var datagrams: Bool

        /// A configuration with every field given; `ignore` defaults to no patterns.
        public init(
            endpoint: Endpoint, connect: ConnectOptions, plan: ReplayPlan, framing: Framing?, maximumFrameSize: Int,
            speed: ReplaySpeed, verify: Bool, ignore: IgnorePatterns = IgnorePatterns(), timeout: Duration, datagrams: Bool
        ) {
            self.endpoint = endpoint
            self.connect = connect
            self.plan = plan
            self.framing = framing
            self.maximumFrameSize = maximumFrameSize
            self.speed = speed
            self.verify = verify
            self.ignore = ignore
            self.timeout = timeout
            self.datagrams = datagrams
        }
    }

    /// How a run went.
    public struct Outcome: Sendable {
        /// How the connection was made; nil when connecting failed (see ``error``).
        public var report: ConnectReport?
        /// Messages of the plan written to the target.
        public var messagesSent = 0
        /// The bytes of those messages, as written.
        public var bytesSent = 0
        package var framesReceived = 0
        /// Bytes the target sent, as counted on the wire (delimiters and prefixes included).
        public var bytesReceived = 0
        /// What the comparison found; nil when connecting failed.
        public var verifier: ReplayVerifier?
        /// When each message went out, from the moment the connection was up.
        package var sendTimes: [Duration] = []
        /// How late each message went out against its schedule.
        public var maximumDrift: Duration = .zero
        package var totalDrift: Duration = .zero
        /// From the moment the connection was up to the end of the run.
        public var duration: Duration = .zero
        /// The run ended because the target went quiet before sending everything expected.
        public var timedOut = false
        /// Why the run stopped early: connecting, a write or a read failed.
        /// A mismatch is not an error (see ``verifier``).
        public var error: SocketEngineError?
        /// ``ReplayClient/stop()`` ended the run before it was done.
        public var interrupted = false

        /// How late messages went out on average; zero when none was sent.
        public var meanDrift: Duration { messagesSent > 0 ? totalDrift / messagesSent : .zero }
    }

    /// What a run waits for after the last expected byte, for extra bytes or the target's close.
    package static let settleTime: Duration = .milliseconds(200)

    /// What this client replays, to where, and how.
    public let configuration: Configuration
    /// Shared by every copy of this client.
    private let stopRequest = StopRequest()

    /// A client that plays `configuration` each time ``run(onConnected:onEvent:)`` is called.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// What the reader has seen, published for the sender.
    private struct Progress: Sendable {
        var bytes = 0
        var complete = false
        var mismatch = false
        var ended = false
        /// Counts every arrival, so a waiter can tell "something new came".
        var arrivals = 0
        var lastActivity: EngineClock.Instant
    }

    /// Ends a run early (see the type's discussion); safe to call at any time.
    public func stop() {
        stopRequest.request()
    }

    /// `onConnected` sees the connect report and the local and remote addresses once the
    /// connection is up; `onEvent` a line for `-v`.
    public func run(
        onConnected: @escaping @Sendable (ConnectReport, SocketAddress?, SocketAddress?) -> Void = { _, _, _ in },
        onEvent: @escaping @Sendable (String) -> Void = { _ in }
    ) async -> Outcome {
        await stopRequest.cancelling { await play(onConnected: onConnected, onEvent: onEvent) }
    }

    /// The run, in a task that ``stop()`` cancels.
    private func play(
        onConnected: (ConnectReport, SocketAddress?, SocketAddress?) -> Void, onEvent: @escaping @Sendable (String) -> Void
    ) async -> Outcome {
        var outcome = Outcome()
        let clock = configuration.connect.clock
        let connection: Connection
        do {
            let attempt = Task { [configuration] in try await Connector(endpoint: configuration.endpoint, options: configuration.connect).connect() }
            guard let (opened, report) = try await stopRequest.value(of: attempt, abandoned: { await $0.0.close() }) else {
                outcome.interrupted = true
                return outcome
            }
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
        let http = configuration.framing == .http && !messageTarget
        let verifier = ReplayVerifier(plan: plan, framed: framed, http: http, ignore: configuration.ignore)
        let answers = http ? ReplayHTTPAnswers(requests: plan.sends.map(\.bytes), maximumFrameSize: configuration.maximumFrameSize) : nil
        // Nothing expected is complete from the start: the run then only waits to settle.
        let progress = AsyncMonitor(Progress(complete: verifier.isComplete, lastActivity: start))
        let reader = Task {
            await Self.read(
                from: connection, verifier: verifier, answers: answers,
                framing: messageTarget ? nil : configuration.framing, maximumFrameSize: configuration.maximumFrameSize,
                stopsAtMismatch: configuration.verify, clock: clock, progress: progress
            )
        }
        let stopsAtMismatch = configuration.verify
        do {
            for send in plan.sends {
                if stopsAtMismatch && progress.value.mismatch { break }
                let due = start.advanced(by: scaled(send.due))
                try await clock.sleep(until: due)
                let sentAt = clock.now
                let late = max(.zero, due.duration(to: sentAt))
                outcome.maximumDrift = max(outcome.maximumDrift, late)
                outcome.totalDrift += late
                outcome.sendTimes.append(start.duration(to: sentAt))
                try await connection.write(send.bytes)
                outcome.messagesSent += 1
                outcome.bytesSent += send.bytes.readableBytes
            }
            if let finishedAt = plan.clientFinishedAt, !messageTarget, !(stopsAtMismatch && progress.value.mismatch) {
                try await clock.sleep(until: start.advanced(by: scaled(finishedAt)))
                let needed = plan.serverBytesBeforeClientFinish
                _ = try? await withTimeout(configuration.timeout, on: clock, expired: { CancellationError() }) {
                    try await progress.wait { $0.ended || $0.bytes >= needed ? () : nil }
                }
                onEvent("end of the recorded client stream: write side shut down (FIN sent)")
                try await connection.closeWrite()
            }
            outcome.timedOut = try await waitForTheRest(progress, clock: clock, quietFrom: start.advanced(by: scaled(plan.sends.last?.due ?? .zero)))
        } catch is CancellationError where stopRequest.isRequested {
            outcome.interrupted = true
        } catch {
            outcome.error = SocketEngineError.wrapping(error, context: connection.label)
        }
        if stopRequest.isRequested {
            outcome.interrupted = true
            outcome.timedOut = false
        }
        await connection.close()
        reader.cancel()
        var (finalVerifier, readFailure) = await reader.value
        if outcome.error == nil, let readFailure, !(stopsAtMismatch && finalVerifier.mismatch != nil) {
            outcome.error = readFailure
        }
        // Stopped early: the answers not yet in are not missing ones.
        if configuration.verify && !outcome.interrupted { finalVerifier.finish() }
        outcome.framesReceived = finalVerifier.framesReceived
        outcome.bytesReceived = connection.statistics.bytesReceived
        outcome.verifier = finalVerifier
        outcome.duration = clock.elapsed(since: start)
        return outcome
    }

    /// Takes in everything the target sends, publishing the progress; returns the verifier and
    /// the error that ended reading, if any.
    private static func read(
        from connection: Connection, verifier: ReplayVerifier, answers: ReplayHTTPAnswers?, framing: Framing?, maximumFrameSize: Int,
        stopsAtMismatch: Bool, clock: EngineClock, progress: AsyncMonitor<Progress>
    ) async -> (ReplayVerifier, SocketEngineError?) {
        var verifier = verifier
        var answers = answers
        var failure: SocketEngineError?
        do {
            while true {
                let data: ByteBuffer?
                if answers != nil {
                    data = try await answers?.next(from: connection)
                } else if let framing {
                    data = try await connection.readFrame(framing, maxFrameSize: maximumFrameSize)
                } else {
                    data = try await connection.read(.available(maxLength: 1 << 20))
                }
                guard let data else { break }
                verifier.receive(data)
                let (complete, mismatch) = (verifier.isComplete, verifier.mismatch != nil)
                let now = clock.now
                progress.update {
                    // Wire bytes (delimiters included), as the recording counts them.
                    $0.bytes = connection.statistics.bytesReceived
                    $0.complete = complete
                    $0.mismatch = mismatch
                    $0.arrivals += 1
                    $0.lastActivity = now
                }
                if stopsAtMismatch && mismatch { break }
            }
        } catch is CancellationError {
        } catch {
            failure = SocketEngineError.wrapping(error, context: connection.label)
        }
        progress.update { $0.ended = true }
        return (verifier, failure)
    }

    /// After the last send: waits until the target closes, a mismatch stops the run, everything
    /// expected has come and ``settleTime`` passes without more, or nothing at all comes for
    /// `timeout` (counted from `quietFrom` or the last arrival). Returns true in the last case.
    private func waitForTheRest(_ progress: AsyncMonitor<Progress>, clock: EngineClock, quietFrom: EngineClock.Instant) async throws -> Bool {
        let stopsAtMismatch = configuration.verify
        while true {
            let state = progress.value
            if state.ended || (stopsAtMismatch && state.mismatch) { return false }
            let arrivals = state.arrivals
            let deadline = state.complete
                ? clock.now.advanced(by: Self.settleTime)
                : max(state.lastActivity, quietFrom).advanced(by: configuration.timeout)
            let changed: Bool? = try? await withDeadline(deadline, on: clock, expired: { CancellationError() }) {
                try await progress.wait { $0.arrivals != arrivals || $0.ended ? true : nil }
            }
            if changed == nil {
                // Quiet until the deadline: settled, or timed out.
                return !progress.value.complete
            }
        }
    }

    /// A recorded offset at the chosen speed (zero at top speed).
    private func scaled(_ offset: Duration) -> Duration {
        configuration.speed.scaled(offset)
    }
}
