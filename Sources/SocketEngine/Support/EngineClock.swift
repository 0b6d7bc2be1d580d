import Clocks

/// The clock every part of the engine that waits, times out or timestamps reads in async code:
/// reconnect back-off, heartbeats, idle timeouts, UDP linger, exchange and replay deadlines,
/// connection activity, summaries.
///
/// It is an input, never read from the system behind the caller's back: ``ConnectOptions`` and
/// ``ListenOptions`` carry one, ``AnyClock/system`` (a shared `ContinuousClock`) by default.
/// Tests pass swift-clocks' `TestClock` wrapped the same way (`AnyClock(testClock)`), whose
/// sleepers wake only when the test advances it, so timing behaviour is checked in virtual time,
/// exactly. Timers that run on an event loop (Happy Eyeballs attempt delay, read and write
/// timeouts, `listen --delay` answers, WebSocket pings) take the loop's own time instead, which
/// `EmbeddedEventLoop` and `NIOAsyncTestingEventLoop` let a test advance.
///
/// Instants of one clock value compare with each other only: share one value per run.
public typealias EngineClock = AnyClock<Duration>

extension AnyClock where Duration == Swift.Duration {
    /// The real clock: one `ContinuousClock`, shared by everything that is not given another.
    public static var system: AnyClock<Duration> { systemEngineClock }

    /// The time from `start` to now.
    public func elapsed(since start: Instant) -> Duration {
        start.duration(to: now)
    }
}

private let systemEngineClock = AnyClock<Duration>(ContinuousClock())
