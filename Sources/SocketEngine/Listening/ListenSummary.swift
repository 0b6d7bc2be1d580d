import NIOCore
import Synchronization

/// Totals for the shutdown summary.
public struct ListenSummary: Sendable {
    public var clients = 0
    public var rejected = 0
    /// Refusals that came too fast to be reported one by one (they are in ``rejected``).
    public var rejectedUnlogged = 0
    public var bytesIn = 0
    public var bytesOut = 0
    public var datagramsIn = 0
    public var datagramsOut = 0
    /// Datagrams the kernel delivered but the service had no room to queue.
    public var datagramsDropped = 0
    /// Broadcast messages not delivered to slow clients.
    public var messagesDropped = 0
    public var duration: Duration = .zero
}
