import NIOCore

/// Which way bytes cross a relay: `up` from the client to the upstream server, `down` back.
public enum RelayDirection: String, Sendable, CaseIterable {
    case up
    case down

    /// The arrow the live view prints: `>` towards the upstream, `<` towards the client.
    public var arrow: String { self == .up ? ">" : "<" }
}

/// One relayed client, as events name it.
public struct RelayClient: Sendable, Hashable {
    /// 1, 2, 3 … in arrival order (stream clients and UDP flows share the numbering).
    public let id: Int
    /// The client's address, or `unix:PATH` for a Unix-socket client.
    public let peer: String
}

/// What a ``RelayService`` reports as it goes, in order for each client: connected, upstream
/// connected (or failed), traffic, finished directions, disconnected.
public enum RelayEvent: Sendable {
    /// A client was admitted (for UDP: a new flow's first datagram arrived).
    case clientConnected(RelayClient)
    /// The client's own upstream connection is up; `address` is where it went.
    case upstreamConnected(RelayClient, address: String)
    /// The upstream connection could not be made; the client is closed.
    case upstreamFailed(RelayClient, SocketEngineError)
    /// Bytes forwarded one way, as one read returned them (`--hexdump`). Only reported when
    /// ``RelayConfiguration/reportsData`` is set.
    case data(RelayClient, RelayDirection, ByteBuffer)
    /// One whole message forwarded one way (a framed message, a WebSocket message or a datagram),
    /// without its framing. Only reported when ``RelayConfiguration/reportsMessages`` is set.
    case message(RelayClient, RelayDirection, ByteBuffer)
    /// A fault acted on a client's traffic (dropped a message, reset, closed …).
    case fault(RelayClient, RelayDirection, String)
    /// One direction ended in order: its sender finished, and the end was passed on.
    case finished(RelayClient, RelayDirection)
    /// The client and its upstream are both closed. `error`: why, when it was not an orderly end.
    case clientDisconnected(RelayClient, bytesUp: Int, bytesDown: Int, duration: Duration, error: SocketEngineError?)
    /// A client refused by `--allow`/`--deny` or `--max-clients`.
    case rejected(peer: String, reason: SettingText)
}

/// Totals for the relay's shutdown summary.
public struct RelaySummary: Sendable, Equatable {
    /// Clients admitted (UDP: flows).
    public var clients = 0
    /// Clients whose upstream connection could not be made.
    public var upstreamFailures = 0
    /// Clients refused by the access policy or the client limit (UDP: datagrams refused).
    public var rejected = 0
    /// Bytes forwarded from clients to the upstream.
    public var bytesUp = 0
    /// Bytes forwarded from the upstream to clients.
    public var bytesDown = 0
    /// Datagrams or messages dropped: by a `drop` fault, or because a UDP flow's queue was full.
    public var dropped = 0
    /// Bytes read from one side and, by a fault (`drop`, `timeout`), never sent to the other.
    public var discardedBytes = 0
    /// Connections reset, by a fault or because one side reset.
    public var resets = 0
    /// From the start of ``RelayService/run()`` to its end.
    public var duration: Duration = .zero
}
