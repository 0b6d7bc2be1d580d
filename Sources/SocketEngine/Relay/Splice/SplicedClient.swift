/// A client relayed by the ``SpliceLoop``: what ``RelayService/stop()`` closes, and the events
/// its task waits for.
final class SplicedClient: RelayClosable {
    private let pair: SplicePair
    private let loop: SpliceLoop
    /// Each direction's orderly end, then how the client ended; finishes after that.
    let events: AsyncStream<SpliceEvent>

    private init(pair: SplicePair, loop: SpliceLoop, events: AsyncStream<SpliceEvent>) {
        self.pair = pair
        self.loop = loop
        self.events = events
    }

    /// Takes `clientSide` and `upstream` out of their event loop and hands them to the splice
    /// loop; nil, both untouched, when they cannot be (see ``Connection/handOver(with:beforeClosing:)``).
    /// `place`: the client's place under the listener's client limit, kept from the moment its
    /// channel closes until the pair has ended (the caller releases it); closing the place (the
    /// listener's idle timeout, or making room for a newcomer) stops the pair with the reason.
    /// The client connection's statistics go on counting what the pair moves to and from the
    /// client, and when.
    static func start(
        _ client: RelayClient, _ clientSide: Connection, _ upstream: Connection, counters: RelayCounters,
        place: @escaping @Sendable () -> ClientSlot?
    ) async -> (SplicedClient, ClientSlot?)? {
        guard let loop = SpliceLoop.shared,
              let (mine, theirs, kept) = await clientSide.handOver(with: upstream, beforeClosing: place) else { return nil }
        let (events, continuation) = AsyncStream.makeStream(of: SpliceEvent.self)
        let pair = SplicePair(
            client: mine, upstream: theirs, label: client.peer, counters: counters, activity: clientSide.statistics, report: continuation
        )
        loop.submit(.add(pair))
        kept?.closeWith { reason in loop.submit(.stop(pair, reason)) }
        return (SplicedClient(pair: pair, loop: loop, events: events), kept)
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
