import NIOCore
import Synchronization

/// The engine side of `sockctl connect`: relays a ``ByteSource`` to a connection and the
/// connection to a ``ByteSink``, with half-close, framing, idle timeout, heartbeat and the
/// reconnect policy.
///
/// The session ends when input has ended and the peer has closed (or at input end for
/// send-only), when the peer closes, on the idle timeout, or on an error. With a reconnect
/// policy, a lost connection (peer closed, reset, unresponsive) is re-established while input
/// is still open; input read but not yet queued is carried over to the new connection.
///
/// ``stop()`` (SIGINT) ends it early and in order: the connection is closed (what it carried
/// is in the summary and the recording), a connect or a reconnect wait in progress is given up,
/// and the summary ends ``SessionSummary/End/interrupted``.
public final class ClientSession: Sendable {
    /// What the session was asked to do.
    public let configuration: ClientSessionConfiguration
    private let input: any ByteSource
    private let output: any ByteSink
    private let onEvent: @Sendable (SessionEvent) -> Void
    private let state: Mutex<SharedState>
    private let stopRequest = StopRequest()

    private struct SharedState {
        var inputDone = false
        /// Encoded input not yet handed to a connection (survives a reconnect).
        var carry: [ByteBuffer] = []
        var encoder: MessageEncoder
        var inputBytes = 0
        var queuedOnConnection = 0
        var heartbeatsSent = 0
        var heartbeatsSkipped = 0
        /// This connection's write side is shut (or shutting) down: no more heartbeats.
        var writeShut = false
    }

    /// A session that sends `input` to the endpoint and writes what arrives to `output`; `onEvent`
    /// hears connects, losses, reconnects and heartbeats.
    public init(
        configuration: ClientSessionConfiguration,
        input: any ByteSource,
        output: any ByteSink,
        onEvent: @escaping @Sendable (SessionEvent) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.input = input
        self.output = output
        self.onEvent = onEvent
        let encoder = MessageEncoder.forInput(
            over: configuration.endpoint.transport, framing: configuration.framing,
            binaryMessages: configuration.connect.webSocket.messageKind == .binary,
            translateLineEndings: configuration.translateLineEndings, maximumFrameSize: configuration.maximumFrameSize
        )
        self.state = Mutex(SharedState(inputDone: configuration.direction == .receiveOnly, encoder: encoder))
    }

    /// Ends the session early and in order (see the type's discussion); safe to call at any time,
    /// and more than once.
    public func stop() {
        stopRequest.request()
    }

    /// Runs the session to its end. Never throws: failures are in ``SessionSummary/error``.
    public func run() async -> SessionSummary {
        let clock = configuration.connect.clock
        let started = clock.now
        var summary = SessionSummary()
        var reconnect = configuration.reconnect.map(ReconnectStateMachine.init(policy:))
        let connector = Connector(endpoint: configuration.endpoint, options: configuration.connect)

        func finish(_ end: SessionSummary.End, _ error: SocketEngineError? = nil) -> SessionSummary {
            summary.end = error == nil ? end : .failed
            summary.error = error
            summary.duration = clock.elapsed(since: started)
            state.withLock {
                summary.inputBytes = $0.inputBytes
                summary.heartbeatsSent = $0.heartbeatsSent
                summary.heartbeatsSkipped = $0.heartbeatsSkipped
            }
            return summary
        }

        /// Waits out the reconnect delay, or returns the error that ends the session.
        func shouldReconnect(after error: SocketEngineError?) async -> SocketEngineError?? {
            guard var machine = reconnect else { return .some(error) }
            if state.withLock({ $0.inputDone }) && configuration.direction != .receiveOnly {
                return .some(error)
            }
            let action = machine.disconnected()
            reconnect = machine
            switch action {
            case .reconnect(let delay, let attempt, let total):
                let due = clock.now.advanced(by: delay)
                onEvent(.reconnecting(after: delay, attempt: attempt, of: total))
                do {
                    if try await stopRequest.sleep(until: due, on: clock) { return .some(nil) }
                } catch {
                    return .some(SocketEngineError(.connectionClosed, "cancelled while waiting to reconnect"))
                }
                return .none
            case .giveUp(let attempts):
                let reason: SettingText = error?.text ?? "connection closed"
                return .some(SocketEngineError(
                    error?.code ?? .connectionClosed,
                    "gave up after \(attempts) reconnect attempt\(attempts == 1 ? "" : "s"): \(reason)"
                ))
            }
        }

        while true {
            if stopRequest.isRequested { return finish(.interrupted) }
            let connection: Connection
            do {
                let attempt = Task { try await connector.connect() }
                guard let (opened, report) = try await stopRequest.value(of: attempt, abandoned: { await $0.0.close() }) else {
                    return finish(.interrupted)
                }
                connection = opened
                onEvent(.connected(report, local: opened.localAddress, remote: opened.remoteAddress))
            } catch {
                let failure = SocketEngineError.wrapping(error, context: "connect to \(configuration.endpoint)")
                onEvent(.connectFailed(failure))
                if failure.isUsageError { return finish(.failed, failure) }
                let decision = await shouldReconnect(after: failure)
                if stopRequest.isRequested { return finish(.interrupted) }
                if case .some(let final) = decision {
                    return finish(.failed, final ?? failure)
                }
                continue
            }
            reconnect?.connected()
            summary.connections += 1
            state.withLock {
                $0.queuedOnConnection = 0
                $0.writeShut = false
            }

            let end = await serve(connection)

            summary.bytesSent += connection.statistics.bytesSent
            summary.bytesReceived += connection.statistics.bytesReceived
            summary.datagramsDropped += connection.statistics.datagramsDropped
            let queued = state.withLock { $0.queuedOnConnection }
            summary.bytesLost += max(0, queued - connection.statistics.bytesSent)

            switch end {
            case .inputDone:
                return finish(.completed)
            case .idle:
                return finish(.idle)
            case .stopped:
                return finish(.interrupted)
            case .peerClosed:
                onEvent(.peerFinished)
                if reconnect == nil { return finish(.peerClosed) }
                let decision = await shouldReconnect(after: nil)
                if stopRequest.isRequested { return finish(.interrupted) }
                if case .some(let final) = decision {
                    if let final { return finish(.failed, final) }
                    return finish(.peerClosed)
                }
            case .failed(let error):
                onEvent(.connectionLost(error))
                let decision = await shouldReconnect(after: error)
                if stopRequest.isRequested { return finish(.interrupted) }
                if case .some(let final) = decision {
                    return finish(.failed, final ?? error)
                }
            }
        }
    }

    // MARK: One connection

    private enum ConnectionEnd: Sendable {
        case inputDone
        case peerClosed
        case idle
        case stopped
        case failed(SocketEngineError)
    }

    private enum PumpEnd: Sendable {
        case inputFinished
        case peerFinished
        case idle
        case stopped
        case failed(SocketEngineError)
    }

    private func serve(_ connection: Connection) async -> ConnectionEnd {
        let readsInput = configuration.direction != .receiveOnly && !state.withLock { $0.inputDone }
        return await withTaskGroup(of: PumpEnd.self) { group -> ConnectionEnd in
            if readsInput {
                group.addTask { await self.pumpInput(to: connection) }
            }
            group.addTask { await self.pumpOutput(from: connection) }
            if let heartbeat = configuration.heartbeat {
                group.addTask { await self.runHeartbeat(heartbeat, on: connection) }
            }
            if let idle = configuration.idleTimeout {
                group.addTask { await self.watchIdle(idle, on: connection) }
            }
            // Ends when stop() is called, or when the group is cancelled at the end.
            group.addTask {
                try? await self.stopRequest.wait()
                return .stopped
            }

            var end: ConnectionEnd = .peerClosed
            var outputDone = false
            let keepsSendingAfterPeer = configuration.direction != .receiveOnly && !configuration.endsWhenPeerFinishes
                && configuration.reconnect == nil
            loop: for await pumpEnd in group {
                switch pumpEnd {
                case .inputFinished:
                    if configuration.direction == .sendOnly || configuration.inputEnd == .close || outputDone {
                        end = .inputDone
                        break loop
                    }
                    if connection.transport == .udp && configuration.idleTimeout == nil {
                        let linger = configuration.datagramLinger
                        group.addTask { await self.watchIdle(linger, on: connection, reportsEvent: false) }
                    }
                case .peerFinished:
                    outputDone = true
                    let inputDone = state.withLock { $0.inputDone }
                    if readsInput && !inputDone && keepsSendingAfterPeer {
                        onEvent(.peerFinished)
                        continue loop
                    }
                    end = inputDone && configuration.direction != .receiveOnly ? .inputDone : .peerClosed
                    break loop
                case .idle:
                    end = state.withLock { $0.inputDone } && connection.transport == .udp ? .inputDone : .idle
                    break loop
                case .stopped:
                    end = .stopped
                    break loop
                case .failed(let error):
                    end = .failed(error)
                    break loop
                }
            }
            await connection.close()
            group.cancelAll()
            return end
        }
    }

    /// Sends encoded input in order; each message leaves the carry only once it is queued.
    private func sendCarried(on connection: Connection) async throws {
        while let next = state.withLock({ $0.carry.first }) {
            try await send(next, on: connection)
            state.withLock { _ = $0.carry.removeFirst() }
        }
    }

    /// Queues `bytes`; they count as queued (and so as lost if the connection dies before the
    /// kernel takes them) only once the connection accepted them.
    private func send(_ bytes: ByteBuffer, on connection: Connection) async throws {
        try await connection.send(bytes)
        state.withLock { $0.queuedOnConnection += bytes.readableBytes }
    }

    /// Input can go straight from a file to the socket when nothing needs to see or change
    /// the bytes (TLS encrypts them), and a lost connection will not need them again.
    private var sendsFileDirectly: Bool {
        configuration.framing == .raw && !configuration.translateLineEndings
            && configuration.connect.tap == nil && configuration.connect.recorder == nil && configuration.reconnect == nil
            && (configuration.endpoint.transport == .tcp || configuration.endpoint.transport == .unix)
    }

    private var keepsMessage: @Sendable (ByteBuffer) -> Bool {
        let keepsEmpty = MessageEncoder.sendsEmptyMessages(over: configuration.endpoint.transport)
        return { keepsEmpty || $0.readableBytes > 0 }
    }

    private func pumpInput(to connection: Connection) async -> PumpEnd {
        do {
            if sendsFileDirectly, let file = input.regularFile() {
                state.withLock {
                    $0.inputBytes += file.length
                    $0.queuedOnConnection += file.length
                }
                try await connection.sendFile(descriptor: file.descriptor, offset: file.offset, length: file.length)
            }

            while true {
                try await sendCarried(on: connection)
                guard let chunk = try await input.next() else { break }
                let encoded = state.withLock { state in
                    state.inputBytes += chunk.readableBytes
                    let output = state.encoder.encode(chunk)
                    state.carry += output.messages.filter(keepsMessage)
                    return output
                }
                encoded.rejected.forEach { onEvent(.inputRejected($0)) }
            }
            let tail = state.withLock { state in
                let output = state.encoder.finish()
                state.carry += output.messages.filter(keepsMessage)
                return output
            }
            tail.rejected.forEach { onEvent(.inputRejected($0)) }
            try await sendCarried(on: connection)
            onEvent(.inputFinished(configuration.inputEnd))
            switch configuration.inputEnd {
            case .halfClose:
                state.withLock { $0.writeShut = true }
                try await connection.closeWrite()
            case .keepOpen:
                try await connection.flush()
            case .close:
                state.withLock { $0.writeShut = true }
                try await connection.flush()
            }
            // Only now is input done: everything read has reached the kernel.
            state.withLock { $0.inputDone = true }
            return .inputFinished
        } catch is CancellationError {
            return .failed(SocketEngineError(.connectionClosed, "cancelled"))
        } catch {
            return .failed(SocketEngineError.wrapping(error, context: connection.label))
        }
    }

    private func pumpOutput(from connection: Connection) async -> PumpEnd {
        do {
            if configuration.direction == .sendOnly {
                _ = try await connection.discardAll()
                return .peerFinished
            }
            while let message = try await connection.readForPrinting(configuration.framing, maxFrameSize: configuration.maximumFrameSize) {
                try await output.write(message)
            }
            return .peerFinished
        } catch is CancellationError {
            return .failed(SocketEngineError(.connectionClosed, "cancelled"))
        } catch {
            return .failed(SocketEngineError.wrapping(error, context: connection.label))
        }
    }

    private func runHeartbeat(_ heartbeat: HeartbeatConfiguration, on connection: Connection) async -> PumpEnd {
        let clock = configuration.connect.clock
        var machine = HeartbeatStateMachine(interval: heartbeat.interval, allowedMisses: heartbeat.allowedMisses, now: clock.now)
        let payload: ByteBuffer
        do {
            payload = try state.withLock { $0.encoder }.encodeMessage(heartbeat.payload)
        } catch {
            return .failed(error)
        }
        do {
            while true {
                machine.received(at: connection.statistics.lastReceive)
                for action in machine.tick(now: clock.now) {
                    switch action {
                    case .sendHeartbeat:
                        // Never wait to send a heartbeat: a full send buffer must not stop the
                        // clock that notices a dead peer. After our FIN there is nothing to send.
                        guard !state.withLock({ $0.writeShut }) else { continue }
                        if connection.trySend(payload) {
                            state.withLock {
                                $0.heartbeatsSent += 1
                                $0.queuedOnConnection += payload.readableBytes
                            }
                            onEvent(.heartbeatSent)
                        } else {
                            state.withLock { $0.heartbeatsSkipped += 1 }
                        }
                    case .declareDead(let silence):
                        onEvent(.peerUnresponsive(silentFor: silence))
                        return .failed(SocketEngineError(
                            .peerUnresponsive,
                            "\(connection.label): no data for \(silence.formatted) (\(heartbeat.allowedMisses) heartbeat intervals)"
                        ))
                    case .wait(let deadline):
                        try await clock.sleep(until: deadline)
                    }
                }
            }
        } catch is CancellationError {
            return .failed(SocketEngineError(.connectionClosed, "cancelled"))
        } catch {
            return .failed(SocketEngineError.wrapping(error, context: connection.label))
        }
    }

    private func watchIdle(_ idle: Duration, on connection: Connection, reportsEvent: Bool = true) async -> PumpEnd {
        let clock = configuration.connect.clock
        do {
            while true {
                let deadline = connection.statistics.lastActivity.advanced(by: idle)
                if clock.now >= deadline {
                    if reportsEvent { onEvent(.idleTimeout(idle)) }
                    return .idle
                }
                try await clock.sleep(until: deadline)
            }
        } catch {
            return .failed(SocketEngineError(.connectionClosed, "cancelled"))
        }
    }
}
