import SocketEngine

/// The settings the Recording library's texts name (recording warnings, stream choice, patterns).
extension SettingKey {
    /// The capture file a session is recorded to.
    package static let record = SettingKey("record", plainName: "the recording")
    /// Listing a capture's streams.
    package static let list = SettingKey("list", plainName: "the stream list")
    /// The stream of a capture to replay.
    package static let stream = SettingKey("stream", plainName: "the stream number")
    /// Patterns of reply bytes left out of a comparison.
    package static let ignore = SettingKey("ignore", plainName: "the ignore patterns")
    /// How many times faster than recorded a replay goes.
    package static let speed = SettingKey("speed", plainName: "the replay speed")
    /// Replaying without the recorded gaps.
    package static let topspeed = SettingKey("topspeed", plainName: "top speed")

    /// Every key the Recording library declares.
    package static let recordingKeys: [SettingKey] = [.record, .list, .stream, .ignore, .speed, .topspeed]
}
