import NIOCore
import Synchronization

/// Totals for the shutdown summary.
public struct ListenSummary: Sendable {
    /// Stream clients admitted (UDP peers are not counted here).
    public var clients = 0
    /// Clients refused by the access policy or the client limit; for UDP, datagrams refused.
    public var rejected = 0
    /// Refusals that came too fast to be reported one by one (they are in ``rejected``).
    public var rejectedUnlogged = 0
    /// Bytes received from all clients and UDP peers.
    public var bytesIn = 0
    /// Bytes sent to all clients and UDP peers.
    public var bytesOut = 0
    /// UDP datagrams received from admitted peers.
    public var datagramsIn = 0
    /// UDP datagrams sent: answers, broadcasts and forwarded input.
    public var datagramsOut = 0
    /// Datagrams the kernel delivered but the service had no room to queue.
    public var datagramsDropped = 0
    /// Broadcast messages not delivered to slow clients.
    public var messagesDropped = 0
    /// `listen http://`: requests answered, by the class of their answer's status (index 1 for
    /// 1xx … 5 for 5xx; index 0 unused).
    public var httpAnswers = [0, 0, 0, 0, 0, 0]
    /// From the start of ``ListenService/run()`` to its end.
    public var duration: Duration = .zero
}
