import CEpoll
import Glibc
import NIOCore

/// What a client on the epoll relay loop reports to the task waiting for it.
enum EpollRelayEvent: Sendable {
    /// One direction ended in order: its source finished and the sink's output was shut.
    case finished(RelayDirection)
    /// Both sockets are closed; how the client ended. The last event.
    case ended(RelayPump.End)
}

/// One relayed client on the ``EpollRelayLoop``: its socket, its upstream's, and each direction's
/// state. Created on the relay's task, then owned by the loop's thread alone.
///
/// - Each direction moves its bytes with `splice(2)` through a pipe (``EpollRelayPipe``) when the
///   loop splices: source → pipe → sink, never through user space. The pipe is the loop's, lent
///   for as long as bytes wait in it (``EpollRelayPipePool``): a client whose sinks keep up holds
///   none between reads. When the loop lends none (its most are open, or descriptors are
///   exhausted) that read is copied; when a socket refuses splicing (`EINVAL`) the direction
///   copies from then on: `read` into the loop's buffer, `send` from it.
/// - A direction reads only while nothing it read is still waiting for its sink (in its pipe or
///   its buffer): a slow reader holds at most one pipe or one read (``EpollRelayLoop/readSize``)
///   per direction, the rest stays in the kernel's socket buffers (back-pressure), and the socket
///   is not even watched meanwhile.
/// - A source's end is passed on as a shutdown of the sink's output once what it sent is
///   written (half-close each way); both directions ended closes the pair.
/// - A reset (`ECONNRESET`, `EPIPE`) on either side resets both; any other error closes both.
final class EpollRelayPair: @unchecked Sendable {
    let client: Int32
    let upstream: Int32
    private let label: String
    private let counters: RelayCounters
    /// The client connection's counters, kept going: the listener's rules watch them.
    private let activity: ConnectionStatistics?
    private let report: AsyncStream<EpollRelayEvent>.Continuation
    private let up: Direction
    private let down: Direction
    /// The loop's tally, once the loop has started the pair.
    private var statistics: EpollRelayStatistics?
    /// The loop's pipes, once the loop has started the pair (nil: the loop does not splice).
    private var pipes: EpollRelayPipePool?
    /// The epoll instance, once the loop has started the pair.
    private var loop: Int32 = -1
    /// The epoll interest each socket is registered with (0: not registered).
    private var watched: (client: UInt32, upstream: UInt32) = (0, 0)
    private(set) var isClosed = false

    private final class Direction {
        let name: RelayDirection
        /// Read from the source, not yet taken by the sink.
        var pending: [UInt8]
        var offset = 0
        var sourceEnded: Bool
        var sinkShut = false
        /// The pipe lent to this direction while bytes wait in it.
        var pipe: EpollRelayPipe?
        /// Whether this direction splices its reads (false: the loop does not splice, or a socket
        /// refused it).
        var splices = false
        /// Whether this direction copied at all (no pipe lent, or a socket that refused splicing).
        var copied = false

        init(name: RelayDirection, pending: [UInt8], sourceEnded: Bool) {
            self.name = name
            self.pending = pending
            self.sourceEnded = sourceEnded
        }

        var hasPending: Bool { offset < pending.count || (pipe?.parked ?? 0) > 0 }
        var wantsToRead: Bool { !sourceEnded && !hasPending }
    }

    /// `client`, `upstream`: descriptors this pair now owns. `unread…`: what the event loop had
    /// received and not yet forwarded; `…Ended`: whether that side had already finished sending.
    init(client: HandedOverSocket, upstream: HandedOverSocket, label: String, counters: RelayCounters,
         activity: ConnectionStatistics? = nil, report: AsyncStream<EpollRelayEvent>.Continuation) {
        self.client = client.descriptor
        self.upstream = upstream.descriptor
        self.label = label
        self.counters = counters
        self.activity = activity
        self.report = report
        up = Direction(name: .up, pending: client.unread, sourceEnded: client.inputClosed)
        down = Direction(name: .down, pending: upstream.unread, sourceEnded: upstream.inputClosed)
    }

    // MARK: Driven by the loop

    /// Starts relaying on the epoll instance `loop`; `pipes`: the loop's pipes (nil: both
    /// directions copy).
    func start(loop: Int32, pipes: EpollRelayPipePool?, statistics: EpollRelayStatistics) {
        self.loop = loop
        self.statistics = statistics
        self.pipes = pipes
        for direction in [up, down] {
            direction.splices = pipes != nil
            direction.copied = pipes == nil
        }
        counters.forwarded(up.pending.count, .up)
        counters.forwarded(down.pending.count, .down)
        passOnEnd(up, to: upstream)
        if !isClosed { passOnEnd(down, to: client) }
        if !isClosed { watch() }
    }

    func handle(_ events: UInt32, on descriptor: Int32, buffer: UnsafeMutableRawBufferPointer) {
        guard !isClosed else { return }
        let fromClient = descriptor == client
        let problem = events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
        if events & EPOLLIN.rawValue != 0 || problem {
            if fromClient, up.wantsToRead {
                forward(up, from: client, to: upstream, buffer: buffer)
            } else if !fromClient, down.wantsToRead {
                forward(down, from: upstream, to: client, buffer: buffer)
            }
        }
        if !isClosed, events & EPOLLOUT.rawValue != 0 || problem {
            if fromClient, down.hasPending {
                drain(down, to: client)
            } else if !fromClient, up.hasPending {
                drain(up, to: upstream)
            }
        }
        if !isClosed { watch() }
    }

    /// Closes both sockets: ``RelayService/stop()`` (no reason: "relay stopped"), or the
    /// listener's rules closing the client for `reason`.
    func stop(because reason: SocketEngineError? = nil) {
        end(.failed(reason ?? SocketEngineError(.connectionClosed, "\(label): relay stopped")))
    }

    // MARK: Moving bytes

    private func forward(_ direction: Direction, from source: Int32, to sink: Int32, buffer: UnsafeMutableRawBufferPointer) {
        guard direction.splices, let pipe = direction.pipe ?? borrowPipe(for: direction) else {
            direction.copied = true
            return copy(direction, from: source, to: sink, buffer: buffer)
        }
        switch pipe.fill(from: source) {
        case .moved(let count):
            received(count, direction, from: source)
            drain(direction, through: pipe, to: sink)
        case .ended:
            returnPipe(of: direction)
            direction.sourceEnded = true
            passOnEnd(direction, to: sink)
        case .wouldBlock:
            returnPipe(of: direction)
        case .unsupported:
            fallBack(direction)
            copy(direction, from: source, to: sink, buffer: buffer)
        case .failed(let code):
            fail(direction.name, errno: code, operation: "read")
        }
    }

    /// Moves what `direction`'s pipe holds into `sink`, as much as it takes now.
    private func drain(_ direction: Direction, through pipe: EpollRelayPipe, to sink: Int32) {
        switch pipe.drain(to: sink) {
        case .moved(let count):
            if sink == client { sentToClient(count) }
        case .ended, .wouldBlock:
            break
        case .unsupported:
            // The sink cannot be spliced to: what the pipe holds is sent from a buffer, and the
            // direction copies from now on.
            guard let parked = pipe.takeParked() else { return fail(direction.name, errno: EIO, operation: "read") }
            fallBack(direction)
            direction.pending = parked
            direction.offset = 0
            return drain(direction, to: sink)
        case .failed(let code):
            return fail(direction.name, errno: code, operation: "write")
        }
        statistics?.parked(pipe.parked)
        if pipe.parked == 0 { returnPipe(of: direction) }
        passOnEnd(direction, to: sink)
    }

    /// The direction copies from now on: its pipe (empty) goes back to the loop.
    private func fallBack(_ direction: Direction) {
        returnPipe(of: direction)
        direction.splices = false
        direction.copied = true
    }

    /// A pipe from the loop for `direction`'s next read; nil: none is lent now.
    private func borrowPipe(for direction: Direction) -> EpollRelayPipe? {
        direction.pipe = pipes?.take()
        return direction.pipe
    }

    /// Gives `direction`'s pipe back to the loop: kept for the next read when empty, closed when
    /// bytes are still in it (the pair ended).
    private func returnPipe(of direction: Direction) {
        guard let pipe = direction.pipe else { return }
        direction.pipe = nil
        pipes?.give(pipe)
    }

    private func received(_ count: Int, _ direction: Direction, from source: Int32) {
        counters.forwarded(count, direction.name)
        if source == client { activity?.didReceive(count) }
    }

    /// One `read` into the loop's buffer, then one `send` of it; what the sink did not take waits.
    private func copy(_ direction: Direction, from source: Int32, to sink: Int32, buffer: UnsafeMutableRawBufferPointer) {
        let count = Syscall.read(source, buffer.baseAddress, buffer.count)
        if count > 0 {
            received(count, direction, from: source)
            var sent = Syscall.send(sink, buffer.baseAddress, count, Int32(MSG_NOSIGNAL))
            if sent < 0 {
                guard isRetryable(errno: errno) else {
                    return fail(direction.name, errno: errno, operation: "write")
                }
                sent = 0
            }
            if sink == client { sentToClient(sent) }
            if sent < count {
                direction.pending = Array(UnsafeRawBufferPointer(rebasing: buffer[sent..<count]))
                direction.offset = 0
                statistics?.parked(count - sent)
            }
        } else if count == 0 {
            direction.sourceEnded = true
            passOnEnd(direction, to: sink)
        } else if !isRetryable(errno: errno) {
            fail(direction.name, errno: errno, operation: "read")
        }
    }

    /// Gives `sink` what `direction` holds for it: the bytes in its buffer, else those in its pipe.
    private func drain(_ direction: Direction, to sink: Int32) {
        guard direction.offset < direction.pending.count else {
            if let pipe = direction.pipe { drain(direction, through: pipe, to: sink) }
            return
        }
        let remaining = direction.pending.count - direction.offset
        let sent = direction.pending.withUnsafeBytes {
            Syscall.send(sink, $0.baseAddress.map { $0 + direction.offset }, remaining, Int32(MSG_NOSIGNAL))
        }
        if sent < 0 {
            guard isRetryable(errno: errno) else {
                return fail(direction.name, errno: errno, operation: "write")
            }
            return
        }
        if sink == client { sentToClient(sent) }
        direction.offset += sent
        guard !direction.hasPending else { return }
        direction.pending = []
        direction.offset = 0
        passOnEnd(direction, to: sink)
    }

    private func sentToClient(_ count: Int) {
        guard count > 0, let activity else { return }
        activity.willSend()
        activity.didSend(count)
    }

    /// Shuts the sink's output once the source has ended and everything it sent is written;
    /// closes the pair when both directions have.
    private func passOnEnd(_ direction: Direction, to sink: Int32) {
        guard direction.sourceEnded, !direction.hasPending, !direction.sinkShut else { return }
        direction.sinkShut = true
        if shutdown(sink, Int32(SHUT_WR)) != 0, errno != ENOTCONN {
            return fail(direction.name, errno: errno, operation: "shutdown")
        }
        report.yield(.finished(direction.name))
        if up.sinkShut && down.sinkShut { end(.finished) }
    }

    // MARK: Ends

    private func fail(_ direction: RelayDirection, errno code: Int32, operation: String) {
        let error = SocketEngineError.wrapping(IOError(errnoCode: code, reason: operation), context: "\(label) \(direction.arrow)")
        if error.code == .connectionReset {
            for descriptor in [client, upstream] {
                _ = Syscall.setOption(descriptor, SOL_SOCKET, SO_LINGER, linger(l_onoff: 1, l_linger: 0))
            }
            end(.reset(error))
        } else {
            end(.failed(error))
        }
    }

    /// Closes both sockets (a reset when SO_LINGER 0 was set), gives back the pipes lent to it,
    /// and reports how the pair ended.
    private func end(_ outcome: RelayPump.End) {
        guard !isClosed else { return }
        isClosed = true
        unwatch(client, current: watched.client)
        unwatch(upstream, current: watched.upstream)
        Syscall.close(client)
        Syscall.close(upstream)
        let spliced = !up.copied && !down.copied
        returnPipe(of: up)
        returnPipe(of: down)
        statistics?.ended(spliced: spliced)
        report.yield(.ended(outcome))
        report.finish()
    }

    // MARK: epoll interest

    /// Registers each socket for what its directions wait for now; a socket that waits for
    /// nothing is not registered at all (so a hung-up socket held by back-pressure does not
    /// wake the loop again and again).
    private func watch() {
        let clientWants = (up.wantsToRead ? EPOLLIN.rawValue : 0) | (down.hasPending ? EPOLLOUT.rawValue : 0)
        let upstreamWants = (down.wantsToRead ? EPOLLIN.rawValue : 0) | (up.hasPending ? EPOLLOUT.rawValue : 0)
        if !update(client, from: watched.client, to: clientWants) { return }
        watched.client = clientWants
        if !update(upstream, from: watched.upstream, to: upstreamWants) { return }
        watched.upstream = upstreamWants
    }

    private func update(_ descriptor: Int32, from current: UInt32, to wanted: UInt32) -> Bool {
        guard current != wanted else { return true }
        var event = epoll_event()
        event.events = wanted
        event.data.u64 = UInt64(UInt32(bitPattern: descriptor))
        let operation = current == 0 ? EPOLL_CTL_ADD : wanted == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD
        guard epoll_ctl(loop, operation, descriptor, &event) == 0 else {
            fail(descriptor == client ? .up : .down, errno: errno, operation: "epoll_ctl")
            return false
        }
        return true
    }

    private func unwatch(_ descriptor: Int32, current: UInt32) {
        guard current != 0, loop >= 0 else { return }
        var event = epoll_event()
        _ = epoll_ctl(loop, EPOLL_CTL_DEL, descriptor, &event)
    }
}
