import NIOCore
import NIOPosix

/// One child wired to one connection: what the peer sends goes to the child's standard input,
/// what the child writes to its standard output goes to the peer, cut into messages as
/// `connect` cuts its standard input (one WebSocket message per line, or per `--framing`
/// frame).
///
/// Half-close passes both ways: the peer's end of sending closes the child's standard input;
/// the end of the child's standard output shuts down our sending (FIN). It ends when the child
/// has exited and its output is drained. When the connection fails (a reset, a write that
/// cannot be sent) or the bridge is cancelled (a stop), the child gets SIGTERM at once, and
/// SIGKILL after the grace period on the timers' loop (``ExecPeer/timers``); when the
/// connection closes in order, the child is first given the grace period to end on its own
/// (it has seen the end of its standard input).
package enum ExecBridge {
    /// Starts the child for `peer` and relays until the end (see the type). Never throws.
    /// `onStart` hears the child's process ID; `onLateTermination` that the connection went in
    /// order and SIGTERM is scheduled for the end of the grace period (tests wait for it before
    /// they move the clock).
    package static func run(
        _ configuration: ExecConfiguration,
        peer: ExecPeer,
        framing: Framing,
        binaryMessages: Bool,
        maximumFrameSize: Int,
        environment: ExecEnvironment,
        onStart: @Sendable (pid_t) -> Void = { _ in },
        onLateTermination: @Sendable () -> Void = {}
    ) async -> ExecOutcome {
        var outcome = ExecOutcome()
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(configuration.command, environment: environment.applied(to: ProcessEnvironment.entries()), on: peer.loop)
        } catch {
            outcome.error = error
            return outcome
        }
        onStart(child.pid)
        let pipes: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            pipes = try await NIOPipeBootstrap(group: peer.loop)
                .channelOption(.allowRemoteHalfClosure, value: true)
                .takingOwnershipOfDescriptors(input: child.standardOutput, output: child.standardInput) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true))
                    }
                }
        } catch {
            close(child.standardOutput)
            close(child.standardInput)
            child.terminate(grace: .init(configuration.terminationGrace), on: peer.timers)
            outcome.exit = try? await child.exit.get()
            outcome.error = SocketEngineError.wrapping(error, context: "the command's pipes")
            return outcome
        }
        let grace = TimeAmount(configuration.terminationGrace)
        do {
            try await pipes.executeThenClose { inbound, outbound in
                await withTaskGroup(of: Step.self) { group in
                    group.addTask {
                        var sent = 0
                        do {
                            while let piece = try await peer.next() {
                                sent += piece.readableBytes
                                do {
                                    try await outbound.write(piece)
                                } catch {
                                    // The child closed its input: the rest is not read.
                                    return .peerEnded(sent, nil)
                                }
                            }
                            outbound.finish()
                            return .peerEnded(sent, nil)
                        } catch is CancellationError {
                            return .peerEnded(sent, nil)
                        } catch {
                            return .peerEnded(sent, SocketEngineError.wrapping(error, context: "receiving"))
                        }
                    }
                    group.addTask {
                        var received = 0
                        var encoder = MessageEncoder.forInput(
                            over: peer.transport, framing: framing, binaryMessages: binaryMessages, maximumFrameSize: maximumFrameSize)
                        let keepsEmpty = MessageEncoder.sendsEmptyMessages(over: peer.transport)
                        do {
                            for try await chunk in inbound {
                                received += chunk.readableBytes
                                for message in encoder.encode(chunk).messages where keepsEmpty || message.readableBytes > 0 {
                                    try await peer.send(message)
                                }
                            }
                            for message in encoder.finish().messages where keepsEmpty || message.readableBytes > 0 {
                                try await peer.send(message)
                            }
                            try await peer.finish()
                            return .childOutputEnded(received, nil)
                        } catch is CancellationError {
                            return .childOutputEnded(received, nil)
                        } catch {
                            return .childOutputEnded(received, SocketEngineError.wrapping(error, context: "sending"))
                        }
                    }
                    group.addTask { .childExited(try? await child.exit.get()) }
                    group.addTask {
                        await peer.gone()
                        return .peerGone
                    }
                    var outputEnded = false
                    var exited = false
                    var gone = false
                    var lateTermination: Scheduled<Bool>?
                    /// SIGTERM now (and SIGKILL after the grace), in place of a later one.
                    func terminateNow() {
                        lateTermination?.cancel()
                        if child.terminate(grace: grace, on: peer.timers) { outcome.terminated = true }
                    }
                    /// SIGTERM after the grace unless the child has ended by then.
                    func terminateLater() {
                        lateTermination?.cancel()
                        let late = peer.timers.scheduleTask(in: grace) { child.terminate(grace: grace, on: peer.timers) }
                        child.exit.whenComplete { _ in late.cancel() }
                        lateTermination = late
                        onLateTermination()
                    }
                    loop: for await step in group {
                        switch step {
                        case .peerEnded(let bytes, let error):
                            outcome.bytesToChild = bytes
                            if let error {
                                outcome.error = outcome.error ?? error
                                terminateNow()
                            }
                        case .childOutputEnded(let bytes, let error):
                            outcome.bytesFromChild = bytes
                            outputEnded = true
                            if let error {
                                outcome.error = outcome.error ?? error
                                terminateNow()
                            }
                            if exited { break loop }
                        case .childExited(let exit):
                            outcome.exit = exit
                            exited = true
                            if outputEnded || gone { break loop }
                        case .peerGone:
                            gone = true
                            if exited { break loop }
                            if Task.isCancelled {
                                terminateNow()
                            } else {
                                // Gone in order (a close, not a failure, which ends a pump with
                                // an error): the end of its stdin is on its way to the child,
                                // which may exit on its own; what it writes meanwhile fails
                                // to send, which ends it at once.
                                terminateLater()
                            }
                        }
                    }
                    // A SIGTERM sent late, for the connection's end, is still the connection's doing.
                    if gone, case .signaled = outcome.exit { outcome.terminated = true }
                    // Ends the wait for the connection's end (and the pumps, if still running).
                    await peer.close()
                    group.cancelAll()
                    // A pump still running at the break (a UDP flow has no end of its own, so its
                    // pump ends only now) still reports what it moved; its error, if the close
                    // caused one, is not the child's.
                    for await step in group {
                        switch step {
                        case .peerEnded(let bytes, _): outcome.bytesToChild = bytes
                        case .childOutputEnded(let bytes, _): outcome.bytesFromChild = bytes
                        case .childExited, .peerGone: break
                        }
                    }
                }
            }
        } catch {
            outcome.error = outcome.error ?? SocketEngineError.wrapping(error, context: "the command's pipes")
        }
        if outcome.exit == nil {
            outcome.terminated = true
            child.terminate(grace: grace, on: peer.timers)
            outcome.exit = try? await child.exit.get()
        }
        return outcome
    }

    private enum Step: Sendable {
        case peerEnded(Int, SocketEngineError?)
        case childOutputEnded(Int, SocketEngineError?)
        case childExited(ChildExit?)
        case peerGone
    }
}
