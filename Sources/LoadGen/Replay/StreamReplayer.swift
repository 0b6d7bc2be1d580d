import NIOCore
import Recording
import SocketEngine

/// Plays one copy of a ``StreamScript`` once, on a connection of its own, and counts it into
/// the run's ``ReplayTally``.
///
/// A reader task takes in everything the target sends (bytes, or frames with `--framing`,
/// messages over ws:// and udp://), counts units and answers the sent messages whose reply is
/// complete (latency = from the send — with `--speed`, from the time it was due — to the last
/// unit of its recorded reply); the sampled replies go through a ``SampleChecker``. The sender
/// writes each message when it is due: at its recorded time divided by the speed, counted from
/// the moment the connection is up, or with top speed once the previous message's reply is in
/// (a closed loop that keeps the conversation in order). The recorded client's FIN is repeated
/// once the replies recorded before it are in. The copy ends when every message sent is
/// answered.
///
/// Every wait is on the run's clock (``ConnectOptions/clock``) or on the reader's progress.
/// A message unanswered for `timeout` ends the copy (its pending messages time out); a
/// target that closes or resets while messages are pending or unsent ends it too (they are
/// lost, or unsent). Sending stops at `stopAt`, when `--requests` are used up or when the run
/// is stopped (`stop`); what was sent is still waited for, within `timeout`.
struct StreamReplayer: Sendable {
    let script: StreamScript
    let endpoint: Endpoint
    let connect: ConnectOptions
    /// Read frames of this framing (stream targets); nil: bytes, or whole messages.
    let framing: Framing?
    let maximumFrameSize: Int
    /// The recorded pace times a factor, or top speed.
    let speed: ReplaySpeed
    let timeout: Duration
    let ignore: IgnorePatterns
    let tally: ReplayTally
    /// This copy (0-based, `--scale`) and round (0-based, `--loop`).
    let copy: Int
    let round: Int
    /// When sending stops (`--duration`).
    let stopAt: EngineClock.Instant?
    /// The run's stop (``ReplayLoadRunner/stop()``): sending stops at once.
    var stop = StopRequest()

    /// How a copy ended.
    enum Ending: Equatable {
        /// Every message sent and answered.
        case completed
        /// Sending stopped early (the run's end, `--requests`); what was sent was answered.
        case cut
        /// Connecting failed, or the connection failed or was closed with work left.
        case failed
        /// A reply did not come within the timeout.
        case timedOut
    }

    /// What the reader has seen and the sender has sent, shared between them.
    struct Progress: Sendable {
        var units = 0
        /// Counts every arrival, so a waiter can tell that something came.
        var arrivals = 0
        /// Counts the wait timers that went off (a deadline came).
        var ticks = 0
        var ended = false
        var sent = 0
        var answered = 0
        var due: [EngineClock.Instant] = []
        var sentAt: [EngineClock.Instant] = []

        var oldestPending: EngineClock.Instant? { answered < sent && answered < sentAt.count ? sentAt[answered] : nil }

        /// Answers, in order, the sent messages whose reply is complete; their latencies (nil:
        /// a message that expects no reply).
        mutating func answerReady(_ messages: [StreamScript.Message], now: EngineClock.Instant) -> [(corrected: Int64, uncorrected: Int64)?] {
            var answers: [(corrected: Int64, uncorrected: Int64)?] = []
            while answered < sent, answered < messages.count, answered < due.count, units >= messages[answered].replyEnd {
                answers.append(messages[answered].expectsReply
                    ? (due[answered].duration(to: now).nanosecondsClamped, sentAt[answered].duration(to: now).nanosecondsClamped)
                    : nil)
                answered += 1
            }
            return answers
        }
    }

    private var clock: EngineClock { connect.clock }

    /// Connects, plays the script and counts everything; returns how it ended.
    func run() async -> Ending {
        tally.update {
            $0.runs += 1
            $0.stats.counters.connectAttempts += 1
        }
        let connection: Connection
        do {
            connection = try await Connector(endpoint: endpoint, options: connect).connect().0
        } catch {
            tally.update {
                $0.stats.counters.connectsFailed += 1
                $0.stats.counters.unsent += script.messages.count
            }
            tally.record(error: error)
            return .failed
        }
        tally.connectionOpened()
        tally.update { $0.stats.counters.connectsSucceeded += 1 }
        let progress = AsyncMonitor(Progress())
        let reader = Task { await read(connection, progress: progress) }
        let start = clock.now
        var (ending, sentCount) = await send(on: connection, from: start, progress: progress)
        if ending == .completed, let finish = script.finish, !connection.transport.isMessageOriented {
            // The recorded client's FIN: when it is due, once the replies recorded before it are in.
            if !speed.isTopSpeed {
                let due = start.advanced(by: speed.scaled(finish.at))
                if await wait(progress, until: due, for: { _ in false }) == .timedOut { ending = .timedOut }
            }
            if ending == .completed {
                switch await wait(progress, until: nil, for: { $0.units >= finish.unitsBefore }) {
                case .ready: try? await connection.closeWrite()
                case .ended: ending = progress.value.answered >= progress.value.sent ? .completed : .failed
                case .timedOut: ending = .timedOut
                }
            }
        }
        if ending == .completed || ending == .cut {
            switch await wait(progress, until: nil, for: { $0.answered >= $0.sent }) {
            case .ready: break
            case .ended: ending = .failed
            case .timedOut: ending = .timedOut
            }
        }
        await connection.close()
        reader.cancel()
        var (checker, readFailure) = await reader.value
        tally.connectionClosed()
        let final = progress.value
        let results = checker.finish(sent: final.sent)
        for (message, mismatch) in results { tally.checked(mismatch, at: place(message)) }
        let pending = final.sent - final.answered
        sentCount = final.sent
        tally.update { state in
            var counters = state.stats.counters
            counters.bytesReceived += connection.statistics.bytesReceived
            switch ending {
            case .completed, .cut:
                state.runsCompleted += ending == .completed ? 1 : 0
            case .timedOut:
                counters.timedOut += pending
                counters.connectionsLost += 1
                counters.unsent += script.messages.count - sentCount
            case .failed:
                counters.lost += pending
                counters.connectionsLost += 1
                counters.unsent += script.messages.count - sentCount
            }
            state.stats.counters = counters
        }
        switch ending {
        case .timedOut:
            tally.record(error: SocketEngineError(.readTimeout, "\(connection.label): no reply within \(timeout.formatted)"))
        case .failed:
            if readFailure == nil { readFailure = SocketEngineError(.connectionClosed, "\(connection.label): connection closed by the target with \(pending) replies pending and \(script.messages.count - sentCount) messages unsent") }
            if let readFailure { tally.record(error: readFailure) }
        case .completed, .cut:
            break
        }
        return ending
    }

    /// Sends the messages when due; returns how sending ended and how many went out.
    private func send(on connection: Connection, from start: EngineClock.Instant, progress: AsyncMonitor<Progress>) async -> (Ending, Int) {
        for (number, message) in script.messages.enumerated() {
            let due: EngineClock.Instant
            if !speed.isTopSpeed {
                due = start.advanced(by: speed.scaled(message.due))
                let target = stopAt.map { min($0, due) } ?? due
                switch await wait(progress, until: target, for: { _ in false }) {
                case .ready: break
                case .ended: return (.failed, number)
                case .timedOut: return (.timedOut, number)
                }
            } else {
                switch await wait(progress, until: stopAt, for: { $0.answered >= number }) {
                case .ready: break
                case .ended: return (.failed, number)
                case .timedOut: return (.timedOut, number)
                }
                due = clock.now
            }
            if let stopAt, clock.now >= stopAt { return (.cut, number) }
            if stop.isRequested { return (.cut, number) }
            guard tally.takeTicket() else { return (.cut, number) }
            let now = clock.now
            let messages = script.messages
            let answers = progress.update { state in
                state.due.append(min(due, now))
                state.sentAt.append(now)
                state.sent += 1
                return state.answerReady(messages, now: now)
            }
            tally.update { state in
                state.stats.counters.messagesSent += 1
                state.stats.counters.bytesSent += message.bytes.readableBytes
                Self.count(answers, into: &state)
            }
            do {
                try await connection.write(message.bytes)
            } catch {
                return (.failed, number + 1)
            }
        }
        return (.completed, script.messages.count)
    }

    /// Takes in what the target sends until it closes or the copy ends.
    private func read(_ connection: Connection, progress: AsyncMonitor<Progress>) async -> (SampleChecker, SocketEngineError?) {
        var checker = SampleChecker(script: script, ignore: ignore)
        var failure: SocketEngineError?
        let messages = script.messages
        let framed = script.framed
        let frames = connection.transport.isMessageOriented ? nil : framing
        do {
            while true {
                let data: ByteBuffer?
                if let frames {
                    data = try await connection.readFrame(frames, maxFrameSize: maximumFrameSize)
                } else {
                    data = try await connection.read(.available(maxLength: 1 << 20))
                }
                guard let data else { break }
                for (message, mismatch) in checker.receive(data) { tally.checked(mismatch, at: place(message)) }
                let now = clock.now
                let answers = progress.update { state in
                    state.units += framed ? 1 : data.readableBytes
                    state.arrivals += 1
                    return state.answerReady(messages, now: now)
                }
                if !answers.isEmpty { tally.update { Self.count(answers, into: &$0) } }
            }
        } catch is CancellationError {
        } catch {
            failure = SocketEngineError.wrapping(error, context: connection.label)
        }
        progress.update {
            $0.ended = true
            $0.arrivals += 1
        }
        return (checker, failure)
    }

    /// What a wait ended with.
    enum WaitResult { case ready, ended, timedOut }

    /// Waits until `ready` holds or `target` passes (`.ready`), the reader ends (`.ended`), or
    /// the oldest unanswered message — or, with none, the wait itself — has lasted `timeout`
    /// (`.timedOut`).
    private func wait(_ progress: AsyncMonitor<Progress>, until target: EngineClock.Instant?, for ready: @escaping @Sendable (Progress) -> Bool) async -> WaitResult {
        let began = clock.now
        while true {
            let state = progress.value
            if ready(state) { return .ready }
            let now = clock.now
            // A stop ends waits for a time (to send), not waits for replies (the drain).
            if let target, now >= target || stop.isRequested { return .ready }
            if state.ended { return .ended }
            let expiry = (state.oldestPending ?? (target == nil ? began : nil)).map { $0.advanced(by: timeout) }
            if let expiry, now >= expiry { return .timedOut }
            let arrivals = state.arrivals
            let ticks = state.ticks
            guard let deadline = [target, expiry].compactMap({ $0 }).min() else { return .timedOut }
            // One timer per wait: when the deadline comes it bumps `ticks`, which wakes the wait
            // to look at the clock again.
            let timer = Task {
                guard (try? await clock.sleep(until: deadline)) != nil else { return }
                progress.update { $0.ticks += 1 }
            }
            let stopToken = target == nil ? nil : stop.onStop { progress.update { $0.ticks += 1 } }
            defer {
                timer.cancel()
                stop.remove(stopToken)
            }
            do {
                try await progress.wait { $0.arrivals != arrivals || $0.ticks != ticks || $0.ended || ready($0) ? () : nil }
            } catch {
                return .ended  // cancelled
            }
        }
    }

    /// Adds the answered messages to the statistics.
    private static func count(_ answers: [(corrected: Int64, uncorrected: Int64)?], into state: inout ReplayTally.State) {
        for answer in answers {
            state.stats.counters.messagesReceived += 1
            if let answer {
                state.stats.recordLatency(corrected: answer.corrected, uncorrected: answer.uncorrected)
            } else {
                state.oneWay += 1
            }
        }
    }

    private func place(_ message: Int) -> ReplayTally.Place {
        ReplayTally.Place(stream: script.index, message: message, copy: copy, round: round)
    }
}
