import NIOCore
import Prometheus
import Synchronization

/// The metrics of one run and what has been scraped of them: a swift-prometheus
/// `PrometheusCollectorRegistry` owned by the run (never the process-wide `MetricsSystem`, so
/// several runs in one process keep apart), with updates and scrapes taken one at a time.
///
/// An update (``update(_:)``) changes several metrics together — counters, gauges, histograms —
/// and a scrape (``render()``) sees all of it or none of it. ``finish(_:)`` makes the last
/// update: every scrape rendered after it holds the final numbers, and ``waitForFinalScrapes(_:timeout:on:)``
/// waits until scrapers have read them.
public final class MetricsRegistry: Sendable {
    /// Where the metric objects are made (`makeCounter`, `makeGauge`, `makeDurationHistogram`).
    public let prometheus: PrometheusCollectorRegistry

    private struct State {
        var finished = false
        /// Responses holding the final numbers, written in full.
        var finalScrapesServed = 0
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
        /// Waiters whose time ran out before they were listed.
        var expired: Set<Int> = []
        /// Sets the metrics from their source before each scrape, until the final update.
        var refresh: (@Sendable () -> Void)?
    }

    /// A ``waitForFinalScrapes(_:timeout:on:)`` in progress.
    private struct Waiter {
        var needed: Int
        var continuation: CheckedContinuation<Bool, Never>
        var timer: Scheduled<Void>
    }

    private let state = Mutex(State())

    /// The `Content-Type` of ``render()``'s text: the Prometheus text exposition format 0.0.4,
    /// which swift-prometheus writes (it has no OpenMetrics writer; Prometheus takes this format
    /// whatever it asks for first).
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// An empty registry.
    public init() {
        prometheus = PrometheusCollectorRegistry()
    }

    /// Makes every scrape before ``finish(_:)`` run `body` first (which sets the metrics from
    /// their source, as ``update(_:)`` would): for numbers read when asked for, not on a period.
    public func refreshOnScrape(_ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.refresh = body }
    }

    /// Runs `body` (which sets metrics) so that no scrape sees part of it.
    public func update(_ body: () -> Void) {
        state.withLock { _ in body() }
    }

    /// The last update: runs `body` like ``update(_:)``; every scrape from now on holds its numbers.
    public func finish(_ body: () -> Void) {
        state.withLock { state in
            body()
            state.finished = true
        }
    }

    /// True once ``finish(_:)`` has run.
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Every metric now, in the text exposition format, and whether these are the final numbers.
    public func render() -> (text: [UInt8], final: Bool) {
        state.withLock { state in
            if !state.finished { state.refresh?() }
            var buffer: [UInt8] = []
            buffer.reserveCapacity(8192)
            prometheus.emit(into: &buffer)
            return (buffer, state.finished)
        }
    }

    /// A response made by ``render()`` has been written to its scraper.
    func served(final: Bool) {
        guard final else { return }
        let ready: [Waiter] = state.withLock { state in
            state.finalScrapesServed += 1
            let done = state.waiters.filter { $0.value.needed <= state.finalScrapesServed }
            for key in done.keys { state.waiters[key] = nil }
            return Array(done.values)
        }
        for waiter in ready {
            waiter.timer.cancel()
            waiter.continuation.resume(returning: true)
        }
    }

    /// How many responses holding the final numbers have been written.
    public var finalScrapesServed: Int { state.withLock { $0.finalScrapesServed } }

    /// Waits until `count` responses holding the final numbers have been written in all, or
    /// until `timeout` has passed on `loop`'s clock. Returns false when the time ran out.
    ///
    /// Two is what makes Prometheus hold the final numbers: it stores a scrape before it starts
    /// the next, so once it has come back after reading them, they are in its database.
    public func waitForFinalScrapes(_ count: Int, timeout: TimeAmount, on loop: any EventLoop) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id = state.withLock { state in
                defer { state.nextWaiter += 1 }
                return state.nextWaiter
            }
            // The timer first, so that a waiter in the list always has its timer running.
            let timer = loop.scheduleTask(in: timeout) { [self] in
                let expired = state.withLock { state in
                    guard let waiter = state.waiters.removeValue(forKey: id) else {
                        state.expired.insert(id)
                        return nil as Waiter?
                    }
                    return waiter
                }
                expired?.continuation.resume(returning: false)
            }
            let outcome: Bool? = state.withLock { state in
                if state.finalScrapesServed >= count { return true }
                if state.expired.remove(id) != nil { return false }
                state.waiters[id] = Waiter(needed: count, continuation: continuation, timer: timer)
                return nil
            }
            if let outcome {
                timer.cancel()
                continuation.resume(returning: outcome)
            }
        }
    }

    /// How many ``waitForFinalScrapes(_:timeout:on:)`` are waiting (each with its timer running).
    package var waiting: Int { state.withLock { $0.waiters.count } }
}
