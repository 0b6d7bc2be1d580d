import SocketEngine

extension ReconnectPolicy {
    /// How a load test's connections are reopened (and a `--from-pcap --loop` copy replays
    /// again) after a failure: 100 ms, doubling per consecutive failure, at most 2 s — 100, 200,
    /// 400, 800, 1600, 2000, 2000 … ms — without jitter, and never giving up while the run lasts.
    /// A connection that opens starts again at 100 ms.
    package static let loadTest = ReconnectPolicy(maximumAttempts: .max, initialDelay: .milliseconds(100), maximumDelay: .seconds(2))
}
