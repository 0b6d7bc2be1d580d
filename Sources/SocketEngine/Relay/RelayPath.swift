/// How one relayed client's bytes travel: the one place the relay decides.
///
/// The fast paths are allowed only when nothing needs to see the bytes on the way: no fault can
/// apply, no chunk or message is reported, no framing, no UDP side (whose idle timeout watches
/// every unit), and both sides are stream ``Connection``s. Then the pair goes to the epoll relay
/// loop when there is one, else each direction is joined on its event loop (each only where
/// ``Connection/canForward(to:)`` holds, and the epoll path falls back to that when the pair
/// cannot be handed over).
enum RelayPath: Sendable {
    /// Both sides handed to the epoll relay loop.
    case epollLoop(EpollRelayLoop, Connection, Connection)
    /// Each direction joined on the event loop.
    case loopForward(Connection, Connection)
    /// The generic pump: unit by unit, with reports, framing and the UDP idle timeout.
    case pump
    /// The pump with faults: a reader and a writer joined by a short queue.
    case pumpWithFaults(ClientFaults)

    /// The path of a client whose sides are `clientSide` and `upstream`.
    static func choose(
        clientSide: any RelayPeer, upstream: any RelayPeer, faults: ClientFaults?, reports: RelayReports,
        framing: Framing, activity: RelayActivity?, epollLoop: EpollRelayLoop?
    ) -> RelayPath {
        if let faults { return .pumpWithFaults(faults) }
        guard !reports.data, !reports.messages, framing == .raw, activity == nil,
              let client = clientSide.connection, let server = upstream.connection
        else { return .pump }
        if let epollLoop { return .epollLoop(epollLoop, client, server) }
        return .loopForward(client, server)
    }

    /// The two sides one direction of the event-loop join reads and writes, when this path
    /// joins them; nil for the pumps.
    func joined(_ direction: RelayDirection) -> (from: Connection, to: Connection)? {
        switch self {
        case .epollLoop(_, let client, let upstream), .loopForward(let client, let upstream):
            direction == .up ? (client, upstream) : (upstream, client)
        case .pump, .pumpWithFaults:
            nil
        }
    }
}
