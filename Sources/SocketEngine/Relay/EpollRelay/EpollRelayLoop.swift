import Foundation
import CEpoll
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
/// socket costs one `read` and one `send`, into one buffer the loop owns.
///
/// Waits are bounded (``waitMilliseconds``) rather than infinite: a C relay of the same shape,
/// with an infinite `epoll_wait`, measured about 20 µs slower per round trip on this kernel.
///
/// Pairs arrive through ``submit(_:)`` from any thread; everything else happens on the loop's
/// thread, which owns every ``EpollRelayPair`` it was given.
///
/// Made by whoever runs relays and passed in ``RelayConfiguration/epollLoop`` (`proxy` makes one
/// per process; tests their own); relays given none stay on the event loop. The loop's thread
/// lives as long as the process.
public final class EpollRelayLoop: Sendable {
    /// What the loop is asked from other threads.
    enum Command: @unchecked Sendable {
        /// Start relaying a pair (the loop owns it from now on).
        case add(EpollRelayPair)
        /// Close a pair's two sockets: ``RelayService/stop()`` (nil), or the listener's rules
        /// (the reason the pair ends with).
        case stop(EpollRelayPair, SocketEngineError?)
    }

    /// Bytes one `read` may take: the most a direction ever holds for a sink that is full.
    static let readSize = 256 * 1024
    static let waitMilliseconds: Int32 = 1000
    private static let wakeToken = UInt64.max

    private let epoll: Int32
    private let wake: Int32
    private let inbox = Mutex<[Command]>([])
    private let added = Atomic<Int>(0)

    /// Pairs handed to the loop so far.
    var pairsAdded: Int { added.load(ordering: .relaxed) }

    /// Starts the loop's thread; nil when epoll or eventfd is unavailable (relays then stay on
    /// the event loop).
    public init?() {
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
        let thread = Thread { [self] in run() }
        thread.name = "sockctl-relay"
        thread.start()
    }

    /// Hands `command` to the loop's thread.
    func submit(_ command: Command) {
        if case .add = command { added.wrappingAdd(1, ordering: .relaxed) }
        inbox.withLock { $0.append(command) }
        var one: UInt64 = 1
        _ = Syscall.write(wake, &one, MemoryLayout<UInt64>.size)
    }

    private func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 16)
        defer { buffer.deallocate() }
        var pairs: [Int32: EpollRelayPair] = [:]
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = events.withUnsafeMutableBufferPointer {
                Syscall.epollWait(epoll, $0.baseAddress, $0.count, Self.waitMilliseconds)
            }
            guard count > 0 else { continue }
            for index in 0..<Int(count) {
                let event = events[index]
                if event.data.u64 == Self.wakeToken {
                    takeCommands(into: &pairs)
                    continue
                }
                let descriptor = Int32(truncatingIfNeeded: event.data.u64)
                guard let pair = pairs[descriptor] else { continue }
                pair.handle(event.events, on: descriptor, buffer: buffer)
                if pair.isClosed { forget(pair, in: &pairs) }
            }
        }
    }

    private func takeCommands(into pairs: inout [Int32: EpollRelayPair]) {
        var drained: UInt64 = 0
        _ = Syscall.read(wake, &drained, MemoryLayout<UInt64>.size)
        let commands = inbox.withLock { inbox -> [Command] in
            defer { inbox.removeAll() }
            return inbox
        }
        for command in commands {
            switch command {
            case .add(let pair):
                pairs[pair.client] = pair
                pairs[pair.upstream] = pair
                pair.start(loop: epoll)
                if pair.isClosed { forget(pair, in: &pairs) }
            case .stop(let pair, let reason):
                pair.stop(because: reason)
                forget(pair, in: &pairs)
            }
        }
    }

    private func forget(_ pair: EpollRelayPair, in pairs: inout [Int32: EpollRelayPair]) {
        if pairs[pair.client] === pair { pairs[pair.client] = nil }
        if pairs[pair.upstream] === pair { pairs[pair.upstream] = nil }
    }
}
