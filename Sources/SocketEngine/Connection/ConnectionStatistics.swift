import Clocks
import Synchronization

/// Byte and activity counters of one connection, updated on its event loop and readable from
/// anywhere.
///
/// Bytes are counted when the kernel accepted them (sent) or delivered them (received), so the
/// totals in a summary are exactly what crossed the socket. Activity is stamped with the
/// connection's ``EngineClock`` (the one its ``ConnectOptions`` or ``ListenOptions`` carry), so
/// the session's idle timeout and heartbeat, which sleep on that clock, compare like with like:
/// a read when it arrives, a write when it is issued (before anyone could see its bytes).
public final class ConnectionStatistics: Sendable {
    private let received = Atomic<Int>(0)
    private let sent = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let clock: EngineClock
    private let origin: EngineClock.Instant
    /// Nanoseconds after ``origin``.
    private let lastActivityOffset = Atomic<Int64>(0)
    private let lastReceiveOffset = Atomic<Int64>(0)

    /// Counters at zero, with activity measured on `clock` from now.
    public init(clock: EngineClock = .system) {
        self.clock = clock
        origin = clock.now
    }

    /// Bytes delivered by the kernel.
    public var bytesReceived: Int { received.load(ordering: .relaxed) }
    /// Bytes handed to the kernel.
    public var bytesSent: Int { sent.load(ordering: .relaxed) }
    /// Datagrams dropped because nobody read them before the receive queue filled.
    public var datagramsDropped: Int { dropped.load(ordering: .relaxed) }
    /// When the last byte went either way (or the connection started).
    package var lastActivity: EngineClock.Instant { origin.advanced(by: .nanoseconds(lastActivityOffset.load(ordering: .relaxed))) }
    /// When the last byte was received (or the connection started).
    package var lastReceive: EngineClock.Instant { origin.advanced(by: .nanoseconds(lastReceiveOffset.load(ordering: .relaxed))) }

    private var nowOffset: Int64 { clock.elapsed(since: origin).nanosecondsClamped }

    func didReceive(_ count: Int) {
        received.wrappingAdd(count, ordering: .relaxed)
        let now = nowOffset
        lastActivityOffset.store(now, ordering: .relaxed)
        lastReceiveOffset.store(now, ordering: .relaxed)
    }

    /// A write was issued: the connection is active now (its bytes count once they are sent).
    func willSend() {
        lastActivityOffset.store(nowOffset, ordering: .relaxed)
    }

    func didSend(_ count: Int) {
        sent.wrappingAdd(count, ordering: .relaxed)
    }

    func didDrop() {
        dropped.wrappingAdd(1, ordering: .relaxed)
    }
}
