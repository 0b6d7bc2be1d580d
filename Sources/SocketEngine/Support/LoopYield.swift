import NIOCore
import NIOPosix

import Glibc

/// Runs work on an event loop once the loop has polled its sockets again, so that the other
/// channels of the loop read and answer first: how a connection with a backlog yields.
///
/// `EventLoop.execute` does not yield: a NIO loop runs every queued task — and every task those
/// tasks queue — before it polls for I/O again, so a connection that hands the rest of its
/// backlog to `execute` still keeps every other socket of its loop waiting until the backlog is
/// gone. Here each loop thread has a pipe whose read end the loop watches. The first work
/// deferred in a turn writes one byte to it; the loop's next poll finds the pipe readable along
/// with the other ready sockets, and the deferred work runs while that readiness is handled, in
/// the same round as the other channels' reads.
///
/// ```
/// turn 1:  poll -> flooder reads, decodes its burst, defers the rest (byte into the pipe)
/// turn 2:  poll -> pipe readable: flooder's next burst | probe readable: probe answered
/// ```
///
/// On a loop without a thread of its own (`EmbeddedEventLoop`, `NIOAsyncTestingEventLoop`) the
/// work is an ordinary task: a test sees it run when it runs the loop's tasks. So it is when no
/// pipe can be made (no descriptor left): the work still runs, only without the yield. Two
/// descriptors per event loop, made the first time a connection on it yields.
enum LoopYield {
    /// Runs `work` on `loop` after the loop's next poll for I/O. Call it on `loop`.
    static func afterNextPoll(on loop: any EventLoop, _ work: @escaping () -> Void) {
        loop.preconditionInEventLoop()
        guard let current = MultiThreadedEventLoopGroup.currentEventLoop, current === loop else {
            loop.assumeIsolated().execute(work)
            return
        }
        let waiters: PollWaiters
        if let existing = PollWaiters.perThread.currentValue {
            waiters = existing
        } else {
            waiters = PollWaiters(loop: loop)
            PollWaiters.perThread.currentValue = waiters
        }
        waiters.add(work)
    }
}

/// One loop thread's work waiting for the next poll, and the pipe that wakes it.
///
/// Thread-specific: created, touched and released only on the loop thread it belongs to, which
/// is what makes the unchecked `Sendable` (required by `ThreadSpecificVariable`) hold.
private final class PollWaiters: @unchecked Sendable {
    static let perThread = ThreadSpecificVariable<PollWaiters>()

    private let loop: any EventLoop
    private var waiting: [() -> Void] = []
    private var wakeChannel: (any Channel)?
    private var opening = false
    /// A byte is in the pipe (or will be once it is open) and has not been read yet.
    private var wakePending = false

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func add(_ work: @escaping () -> Void) {
        waiting.append(work)
        wake()
    }

    private func wake() {
        guard !wakePending else { return }
        guard let wakeChannel else {
            open()
            return
        }
        wakePending = true
        var byte = wakeChannel.allocator.buffer(capacity: 1)
        byte.writeInteger(UInt8(1))
        wakeChannel.writeAndFlush(byte).assumeIsolated().whenFailure { _ in
            // Closing runs what waits (``pipeClosed()``); the next work opens a new pipe.
            wakeChannel.close(promise: nil)
        }
    }

    private func open() {
        guard !opening else { return }
        opening = true
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            opening = false
            runAsTasks()
            return
        }
        let (input, output) = (ends[0], ends[1])
        // Not inherited by anything sockctl starts.
        _ = fcntl(input, F_SETFD, FD_CLOEXEC)
        _ = fcntl(output, F_SETFD, FD_CLOEXEC)
        NIOPipeBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(PollWaker(owner: NIOLoopBound(self, eventLoop: channel.eventLoop)))
                }
            }
            .takingOwnershipOfDescriptors(input: input, output: output)
            .assumeIsolated()
            .whenComplete { [self] result in
                opening = false
                switch result {
                case .success(let channel):
                    wakeChannel = channel
                    if !waiting.isEmpty { wake() }
                case .failure:
                    Syscall.close(input)
                    Syscall.close(output)
                    runAsTasks()
                }
            }
    }

    /// No pipe (out of descriptors, or the loop is shutting down): what waits runs as ordinary
    /// tasks — later, but not after the next poll. The next work tries a pipe again.
    private func runAsTasks() {
        let work = waiting
        waiting.removeAll()
        for item in work { loop.assumeIsolated().execute(item) }
    }

    /// The loop polled and found the pipe readable: run what waited for it.
    fileprivate func polled() {
        wakePending = false
        let work = waiting
        waiting.removeAll()
        for item in work { item() }
    }

    /// The pipe closed (the loop is shutting down): run what waited; more work makes a new
    /// pipe, or runs as a task if none can be made.
    fileprivate func pipeClosed() {
        wakeChannel = nil
        polled()
    }
}

/// Reads the wake-up bytes of a ``PollWaiters`` pipe and runs its work.
private final class PollWaker: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let owner: NIOLoopBound<PollWaiters>

    init(owner: NIOLoopBound<PollWaiters>) {
        self.owner = owner
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        owner.value.polled()
    }

    func channelInactive(context: ChannelHandlerContext) {
        owner.value.pipeClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
