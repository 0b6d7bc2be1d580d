/// A client relayed by the ``EpollRelayLoop``: what ``RelayService/stop()`` closes, and the events
/// its task waits for.
final class EpollRelayedClient: RelayClosable {
    private let pair: EpollRelayPair
    private let loop: EpollRelayLoop
    /// Each direction's orderly end, then how the client ended; finishes after that.
    let events: AsyncStream<EpollRelayEvent>

    private init(pair: EpollRelayPair, loop: EpollRelayLoop, events: AsyncStream<EpollRelayEvent>) {
        self.pair = pair
        self.loop = loop
        self.events = events
    }

    /// Takes `clientSide` and `upstream` out of their event loop and hands them to the epoll
    /// loop; nil, both untouched, when they cannot be (see ``Connection/handOver(with:beforeClosing:)``).
    /// `place`: the client's place under the listener's client limit, kept from the moment its
    /// channel closes until the pair has ended (the caller releases it); closing the place (the
    /// listener's idle timeout, or making room for a newcomer) stops the pair with the reason.
    /// The client connection's statistics go on counting what the pair moves to and from the
    /// client, and when.
    static func start(
        _ client: RelayClient, _ clientSide: Connection, _ upstream: Connection, on loop: EpollRelayLoop, counters: RelayCounters,
        place: @escaping @Sendable () -> ClientSlot?
    ) async -> (EpollRelayedClient, ClientSlot?)? {
        guard let (mine, theirs, kept) = await clientSide.handOver(with: upstream, beforeClosing: place) else { return nil }
        let (events, continuation) = AsyncStream.makeStream(of: EpollRelayEvent.self)
        let pair = EpollRelayPair(
            client: mine, upstream: theirs, label: client.peer, counters: counters, activity: clientSide.statistics, report: continuation
        )
        loop.submit(.add(pair))
        kept?.closeWith { reason in loop.submit(.stop(pair, reason)) }
        return (EpollRelayedClient(pair: pair, loop: loop, events: events), kept)
    }

    func close() async {
        stop()
    }

    var connection: Connection? { nil }

    /// Asks the loop to close both sockets; the pair then reports its end.
    func stop() {
        loop.submit(.stop(pair, nil))
    }
}
