import CEpoll
import NativeThreads
import Glibc
import Synchronization

/// One thread that relays pairs of plain stream sockets (TCP, Unix) with epoll and plain
/// system calls: the relay's fast path when nothing needs to see the bytes on the way (no
/// faults, no framing, no live view, no recording, no TLS).
///
/// Why not the event loop that accepted them: per message, an event loop does a few
/// microseconds of work after its write (promises, pipeline, task queue) before it sleeps
/// again, and on a small VM that tail decides whether the woken peer runs at once or pays a
/// cross-CPU wake-up: `bench/proxy.sh` measured about 20 µs added per 64-byte round trip
/// through the event loop against about 0 through this loop (and haproxy). Here a readable
/// socket costs two `splice(2)` calls, socket → pipe → socket, through a pipe the loop lends the
/// direction while bytes wait in it (``EpollRelayPipePool``): the bytes are never copied to user
/// space and back, and a client costs only its two sockets between reads. A read for which no
/// pipe can be lent (descriptors exhausted), or a socket that refuses splicing, costs one `read`
/// and one `send` instead, through one buffer the loop owns (the copy path).
///
/// Waits are bounded (``waitMilliseconds``) rather than infinite: a C relay of the same shape,
/// with an infinite `epoll_wait`, measured about 20 µs slower per round trip on this kernel.
///
/// Pairs arrive through ``submit(_:)`` from any thread; everything else happens on the loop's
/// thread, which owns every ``EpollRelayPair`` it was given.
///
/// Made by whoever runs relays and passed in ``RelayConfiguration/epollLoop`` (`proxy` makes one
/// per process; tests their own); relays given none stay on the event loop. Its owner ends it
/// with ``shutdown()`` once the relays using it have stopped: the pairs still on it are closed,
/// as ``RelayService/stop()`` closes the clients on the event loop (not drained: each ends
/// "relay stopped"), then its descriptors, and its thread is joined.
public final class EpollRelayLoop: Sendable {
    /// What the loop is asked from other threads.
    enum Command: @unchecked Sendable {
        /// Start relaying a pair (the loop owns it from now on).
        case add(EpollRelayPair)
        /// Close a pair's two sockets: ``RelayService/stop()`` (nil), or the listener's rules
        /// (the reason the pair ends with).
        case stop(EpollRelayPair, SocketEngineError?)
    }

    /// Where the loop is in its life; changed under the inbox's lock only.
    private enum Phase {
        case running
        /// ``shutdown()`` was asked: the thread closes everything and ends at its next wake-up.
        case stopping
        /// The thread has closed its pairs and its descriptors: commands are no longer taken.
        case ended
    }

    private struct Inbox {
        var commands: [Command] = []
        var phase = Phase.running
    }

    /// Bytes one `read` may take, and the size asked for each pipe: the most a direction ever
    /// holds for a sink that is full.
    static let readSize = 256 * 1024
    static let waitMilliseconds: Int32 = 1000
    private static let wakeToken = UInt64.max

    private let epoll: Int32
    private let wake: Int32
    /// Commands, and the phase: the wake-up descriptor is written under this lock only while
    /// running or stopping, so it is never written after the thread has closed it.
    private let inbox = Mutex(Inbox())
    private let added = Atomic<Int>(0)
    /// The thread, until ``shutdown()`` has joined it.
    private let thread = Mutex<pthread_t?>(nil)
    /// The thread's kernel id once it runs (0 before), for tests that look it up in `/proc`.
    private let kernelThread = Atomic<Int32>(0)
    private let running = Atomic<Bool>(true)

    /// Each pipe's capacity in bytes; nil: the loop copies (``init(splicing:)`` was told not to
    /// splice, or no pipe could be made when it began).
    package let pipeSize: Int?

    /// How the loop's pairs moved their bytes, and the pipes open now.
    package let statistics = EpollRelayStatistics()

    /// Pairs handed to the loop so far.
    var pairsAdded: Int { added.load(ordering: .relaxed) }

    /// The epoll instance and the wake-up eventfd the loop owns (closed by ``shutdown()``).
    package var descriptors: (epoll: Int32, wake: Int32) { (epoll, wake) }

    /// The loop thread's kernel thread id (`gettid`), 0 until the thread has begun.
    package var threadID: Int32 { kernelThread.load(ordering: .acquiring) }

    /// False once the loop's thread has closed everything and returned.
    public var isRunning: Bool { running.load(ordering: .acquiring) }

    /// Starts the loop's thread; nil when epoll, eventfd or the thread is unavailable (relays
    /// then stay on the event loop). `splicing`: whether pairs move their bytes with `splice(2)`
    /// through pipes (of ``readSize`` bytes, within `/proc/sys/fs/pipe-max-size`); false, or
    /// where no pipe can be made, every pair copies.
    public init?(splicing: Bool = true) {
        pipeSize = splicing ? EpollRelayPipe(size: EpollRelayPipe.size(wanted: Self.readSize))?.capacity : nil
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { return nil }
        let wake = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wake >= 0 else {
            Syscall.close(epoll)
            return nil
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = Self.wakeToken
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event) == 0 else {
            Syscall.close(epoll)
            Syscall.close(wake)
            return nil
        }
        self.epoll = epoll
        self.wake = wake
        guard let started = NativeThread.start(named: "sockctl-relay", detached: false, { [self] in run() }) else {
            Syscall.close(epoll)
            Syscall.close(wake)
            return nil
        }
        thread.withLock { $0 = started }
    }

    /// Hands `command` to the loop's thread. Once the loop has ended, a pair to add is closed
    /// here at once (it ends "relay stopped", as the pairs the loop closed did), and a stop is
    /// moot (the loop closed every pair it had).
    func submit(_ command: Command) {
        if case .add = command { added.wrappingAdd(1, ordering: .relaxed) }
        let taken = inbox.withLock { inbox -> Bool in
            guard inbox.phase != .ended else { return false }
            inbox.commands.append(command)
            signalWake()
            return true
        }
        if !taken, case .add(let pair) = command { pair.stop() }
    }

    /// Ends the loop: closes every pair still on it (each reports it ended "relay stopped"),
    /// closes the epoll and wake-up descriptors, and returns once its thread has ended (joined).
    /// Pairs submitted afterwards are closed at once. Safe to call more than once, from any
    /// thread but the loop's own (a pair's report is handed to a task, never run on it).
    public func shutdown() {
        inbox.withLock { inbox in
            guard inbox.phase == .running else { return }
            inbox.phase = .stopping
            signalWake()
        }
        // Held while joining: a second caller returns only once the thread has ended too.
        thread.withLock { thread in
            guard let joined = thread, pthread_equal(joined, pthread_self()) == 0 else { return }
            pthread_join(joined, nil)
            thread = nil
        }
    }

    /// Wakes the loop's thread; called under the inbox's lock, before the thread has ended.
    private func signalWake() {
        var one: UInt64 = 1
        _ = Syscall.write(wake, &one, MemoryLayout<UInt64>.size)
    }

    private func run() {
        kernelThread.store(Int32(sockctl_thread_id()), ordering: .releasing)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
        defer { buffer.deallocate() }
        var pairs: [Int32: EpollRelayPair] = [:]
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        let pipes = pipeSize.map { EpollRelayPipePool(pipeSize: $0, most: EpollRelayPipePool.mostPipes(), statistics: statistics) }
        var stopping = false
        while !stopping {
            let count = events.withUnsafeMutableBufferPointer {
                Syscall.epollWait(epoll, $0.baseAddress, $0.count, Self.waitMilliseconds)
            }
            guard count > 0 else { continue }
            for index in 0..<Int(count) {
                let event = events[index]
                if event.data.u64 == Self.wakeToken {
                    stopping = takeCommands(into: &pairs, pipes: pipes) || stopping
                    continue
                }
                let descriptor = Int32(truncatingIfNeeded: event.data.u64)
                guard let pair = pairs[descriptor] else { continue }
                pair.handle(event.events, on: descriptor, buffer: buffer)
                if pair.isClosed { forget(pair, in: &pairs) }
            }
        }
        end(pairs, pipes: pipes)
    }

    /// Carries out the commands waiting; true once ``shutdown()`` has been asked.
    private func takeCommands(into pairs: inout [Int32: EpollRelayPair], pipes: EpollRelayPipePool?) -> Bool {
        var drained: UInt64 = 0
        _ = Syscall.read(wake, &drained, MemoryLayout<UInt64>.size)
        let (commands, phase) = inbox.withLock { inbox -> ([Command], Phase) in
            defer { inbox.commands.removeAll() }
            return (inbox.commands, inbox.phase)
        }
        carryOut(commands, on: &pairs, pipes: pipes)
        return phase != .running
    }

    private func carryOut(_ commands: [Command], on pairs: inout [Int32: EpollRelayPair], pipes: EpollRelayPipePool?) {
        for command in commands {
            switch command {
            case .add(let pair):
                pairs[pair.client] = pair
                pairs[pair.upstream] = pair
                pair.start(loop: epoll, pipes: pipes, statistics: statistics)
                if pair.isClosed { forget(pair, in: &pairs) }
            case .stop(let pair, let reason):
                pair.stop(because: reason)
                forget(pair, in: &pairs)
            }
        }
    }

    /// The thread's last step: takes no more commands (those still waiting are carried out
    /// first), closes every pair still open, the spare pipes and the loop's own descriptors.
    private func end(_ remaining: [Int32: EpollRelayPair], pipes: EpollRelayPipePool?) {
        var pairs = remaining
        let last = inbox.withLock { inbox -> [Command] in
            inbox.phase = .ended
            defer { inbox.commands.removeAll() }
            return inbox.commands
        }
        carryOut(last, on: &pairs, pipes: pipes)
        for pair in pairs.values where !pair.isClosed { pair.stop() }
        pipes?.closeAll()
        Syscall.close(epoll)
        Syscall.close(wake)
        running.store(false, ordering: .releasing)
    }

    private func forget(_ pair: EpollRelayPair, in pairs: inout [Int32: EpollRelayPair]) {
        if pairs[pair.client] === pair { pairs[pair.client] = nil }
        if pairs[pair.upstream] === pair { pairs[pair.upstream] = nil }
    }
}
