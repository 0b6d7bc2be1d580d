import SocketEngine

/// The settings the load generator's texts name (plan checks, thresholds, stream lists).
extension SettingKey {
    /// How many connections a run opens.
    package static let connections = SettingKey("connections", plainName: "the connection count")
    /// How fast connections are opened.
    package static let connectRate = SettingKey("connect-rate", plainName: "the connect rate")
    /// Messages per second (open loop).
    package static let rate = SettingKey("rate", plainName: "the message rate")
    /// A schedule of rates.
    package static let stages = SettingKey("stages", plainName: "the stages")
    /// How long a run lasts.
    package static let duration = SettingKey("duration", plainName: "the duration")
    /// How many requests a run sends.
    package static let requests = SettingKey("requests", plainName: "the request count")
    /// A warm-up left out of the figures.
    package static let warmup = SettingKey("warmup", plainName: "the warm-up")
    /// Requests in flight per connection.
    package static let pipeline = SettingKey("pipeline", plainName: "the pipeline depth")
    /// Worker threads.
    package static let threads = SettingKey("threads", plainName: "the thread count")
    /// The I/O model (event loops or threads).
    package static let io = SettingKey("io", plainName: "the I/O model")
    /// The WebSocket ping interval.
    package static let pingInterval = SettingKey("ping-interval", plainName: "the ping interval")
    /// The streams of a capture to replay.
    package static let streams = SettingKey("streams", plainName: "the stream list")
    /// A capture replayed as load.
    package static let fromPcap = SettingKey("from-pcap", plainName: "the capture to replay")
    /// How many copies of each replayed stream run.
    package static let scale = SettingKey("scale", plainName: "the scale")
    /// The share of replies compared with the recording.
    package static let verifySample = SettingKey("verify-sample", plainName: "the verify sample")
    /// A pass/fail rule for the run.
    package static let threshold = SettingKey("threshold", plainName: "the threshold")
    /// The value of each request the report is split by.
    package static let label = SettingKey("label", plainName: "the label rule")
    /// The message a load test sends.
    package static let message = SettingKey("message", plainName: "the message")
    /// The local addresses connections are opened from.
    package static let source = SettingKey("source", plainName: "the source address")

    /// Every key the load generator declares (it also names the engine's ``framing``).
    package static let loadGenKeys: [SettingKey] = [
        .connections, .connectRate, .rate, .stages, .duration, .requests, .warmup, .pipeline, .threads, .io, .pingInterval,
        .streams, .verifySample, .fromPcap, .scale, .threshold, .label, .message, .source,
    ]
}
