import NIOCore
import SocketEngine

/// The time of a load run: an event loop's own clock (`EventLoop.now`), in nanoseconds, and
/// waits scheduled on that loop.
///
/// Every part of a run stamps and schedules with it: the runner (ramp-up pacing, the once-a-second
/// samples, the drain), each shard's connections (``LoadShard/now``: send times, reply
/// latencies, the reply-timeout sweep, rate-schedule timers) — the same loops, so their instants
/// compare. On a real loop this is `CLOCK_MONOTONIC`, the base the connection threads of `--io
/// threads` read directly (``monotonicNanos()``); on an `EmbeddedEventLoop` it is the test's.
struct RunClock: Sendable {
    let loop: any EventLoop

    var now: Int64 { Int64(truncatingIfNeeded: loop.now.uptimeNanoseconds) }

    /// Returns at `nanos` (at once if that has passed), or as soon as `stop` is requested.
    func sleep(until nanos: Int64, unless stop: StopRequest? = nil) async {
        guard nanos > now, stop?.isRequested != true else { return }
        let timer = loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(clamping: nanos))) {}
        let token = stop?.onStop { timer.cancel() }
        defer { stop?.remove(token) }
        try? await timer.futureResult.get()
    }

    func sleep(for duration: Duration) async {
        await sleep(until: now &+ duration.nanosecondsClamped)
    }
}
