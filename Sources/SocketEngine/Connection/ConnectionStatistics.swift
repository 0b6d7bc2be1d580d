import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte and activity counters of one connection, updated on its event loop and readable from
/// anywhere.
///
/// Bytes are counted when the kernel accepted them (sent) or delivered them (received), so the
/// totals in a summary are exactly what crossed the socket.
public final class ConnectionStatistics: Sendable {
    private let received = Atomic<Int>(0)
    private let sent = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let lastActivity = Atomic<UInt64>(Monotonic.nanoseconds())
    private let lastReceive = Atomic<UInt64>(Monotonic.nanoseconds())

    public init() {}

    /// Bytes delivered by the kernel.
    public var bytesReceived: Int { received.load(ordering: .relaxed) }
    /// Bytes handed to the kernel.
    public var bytesSent: Int { sent.load(ordering: .relaxed) }
    /// Datagrams dropped because nobody read them before the receive queue filled.
    public var datagramsDropped: Int { dropped.load(ordering: .relaxed) }
    /// Monotonic time of the last byte in either direction, in nanoseconds (see ``Monotonic``).
    public var lastActivityNanoseconds: UInt64 { lastActivity.load(ordering: .relaxed) }
    /// Monotonic time of the last byte received (or of the connection's start).
    public var lastReceiveNanoseconds: UInt64 { lastReceive.load(ordering: .relaxed) }

    func didReceive(_ count: Int) {
        received.wrappingAdd(count, ordering: .relaxed)
        let now = Monotonic.nanoseconds()
        lastActivity.store(now, ordering: .relaxed)
        lastReceive.store(now, ordering: .relaxed)
    }

    func didSend(_ count: Int) {
        sent.wrappingAdd(count, ordering: .relaxed)
        lastActivity.store(Monotonic.nanoseconds(), ordering: .relaxed)
    }

    func didDrop() {
        dropped.wrappingAdd(1, ordering: .relaxed)
    }
}
