import NIOCore
import NIOPosix

/// One child wired to one connection: what the peer sends goes to the child's standard input,
/// what the child writes to its standard output goes to the peer, cut into messages as
/// `connect` cuts its standard input (one WebSocket message per line, or per `--framing`
/// frame).
///
/// Half-close passes both ways: the peer's end of sending closes the child's standard input;
/// the end of the child's standard output shuts down our sending (FIN). It ends when the child
/// has exited and its output is drained. When the connection goes first (a reset, a stop) the
/// child gets SIGTERM, and SIGKILL after the grace period on the connection's event loop; when
/// it closes after both directions ended, the child is given the grace period to exit first.
package enum ExecBridge {
    /// Starts the child for `peer` and relays until the end (see the type). Never throws.
    package static func run(
        _ configuration: ExecConfiguration,
        peer: ExecPeer,
        framing: Framing,
        binaryMessages: Bool,
        maximumFrameSize: Int,
        environment: ExecEnvironment,
        onStart: @Sendable (pid_t) -> Void = { _ in }
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
            child.terminate(grace: .init(configuration.terminationGrace), on: peer.loop)
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
                    var inputEnded = false
                    var exited = false
                    var gone = false
                    loop: for await step in group {
                        switch step {
                        case .peerEnded(let bytes, let error):
                            outcome.bytesToChild = bytes
                            inputEnded = true
                            if let error {
                                outcome.error = outcome.error ?? error
                                if child.terminate(grace: grace, on: peer.loop) { outcome.terminated = true }
                            }
                        case .childOutputEnded(let bytes, let error):
                            outcome.bytesFromChild = bytes
                            outputEnded = true
                            if let error {
                                outcome.error = outcome.error ?? error
                                if child.terminate(grace: grace, on: peer.loop) { outcome.terminated = true }
                            }
                            if exited { break loop }
                        case .childExited(let exit):
                            outcome.exit = exit
                            exited = true
                            if outputEnded || gone { break loop }
                        case .peerGone:
                            gone = true
                            if exited { break loop }
                            if outputEnded && inputEnded && !Task.isCancelled {
                                // Both directions ended in order: the child may exit on its own.
                                let delayed = peer.loop.scheduleTask(in: grace) { child.terminate(grace: grace, on: peer.loop) }
                                child.exit.whenComplete { _ in delayed.cancel() }
                            } else if child.terminate(grace: grace, on: peer.loop) {
                                outcome.terminated = true
                            }
                        }
                    }
                    // Ends the wait for the connection's end (and the pumps, if still running).
                    await peer.close()
                    group.cancelAll()
                }
            }
        } catch {
            outcome.error = outcome.error ?? SocketEngineError.wrapping(error, context: "the command's pipes")
        }
        if outcome.exit == nil {
            outcome.terminated = true
            child.terminate(grace: grace, on: peer.loop)
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
