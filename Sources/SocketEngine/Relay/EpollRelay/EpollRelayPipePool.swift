/// The pipes an ``EpollRelayLoop`` splices through, lent to a direction only while bytes wait
/// in one: a direction takes a pipe when its source is readable and gives it back as soon as
/// the sink has taken everything, which on one thread is at once unless the sink is full. So an
/// idle or keeping-up client costs its two sockets alone, and the loop holds a pipe only per
/// direction under back-pressure (haproxy's pipe pool, `maxpipes`, works the same way).
///
/// Owned by the loop's thread. At most ``most`` pipes are open at once (two descriptors each):
/// past that, or when no pipe can be made (descriptors exhausted), ``take()`` gives none and the
/// direction copies that read through the loop's buffer instead. Pipes given back empty are kept
/// for the next taker, up to ``spares``; the rest, and a pipe given back with bytes still in it
/// (its pair ended), are closed.
final class EpollRelayPipePool {
    /// Each pipe's capacity in bytes (as the kernel granted it).
    let pipeSize: Int
    /// The most pipes open at once, lent and spare.
    let most: Int
    /// The most empty pipes kept for the next taker.
    let spares: Int
    private var idle: [EpollRelayPipe] = []
    private var open = 0
    private let statistics: EpollRelayStatistics

    init(pipeSize: Int, most: Int, spares: Int = 16, statistics: EpollRelayStatistics) {
        self.pipeSize = pipeSize
        self.most = max(1, most)
        self.spares = spares
        self.statistics = statistics
    }

    /// An empty pipe to splice through; nil when ``most`` are open or none can be made.
    func take() -> EpollRelayPipe? {
        if let pipe = idle.popLast() {
            statistics.pipeLent()
            return pipe
        }
        guard open < most, let pipe = EpollRelayPipe(size: pipeSize) else { return nil }
        open += 1
        statistics.pipeOpened()
        statistics.pipeLent()
        return pipe
    }

    /// Takes back a pipe ``take()`` lent: kept when it is empty and there is room, else closed.
    func give(_ pipe: EpollRelayPipe) {
        statistics.pipeReturned()
        if pipe.parked == 0, idle.count < spares {
            idle.append(pipe)
        } else {
            close(pipe)
        }
    }

    /// Closes the spare pipes (the loop's last step).
    func closeAll() {
        while let pipe = idle.popLast() { close(pipe) }
    }

    private func close(_ pipe: EpollRelayPipe) {
        pipe.close()
        open -= 1
        statistics.pipeClosed()
    }

    /// The most pipes a loop keeps open: a quarter of the descriptor limit, so pipes (two
    /// descriptors each) never hold more than half the descriptors, and clients keep the rest.
    static func mostPipes() -> Int {
        max(1, (DescriptorLimit.current() ?? 1024) / 4)
    }
}
