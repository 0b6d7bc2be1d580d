import NIOCore
import Synchronization

/// `--heartbeat PAYLOAD [--heartbeat-interval DUR] [--heartbeat-misses K]`.
public struct HeartbeatConfiguration: Sendable {
    /// The message sent each interval, framed like input.
    public var payload: ByteBuffer
    /// How often the payload is sent (`--heartbeat-interval`).
    public var interval: Duration
    /// Intervals with nothing received before the peer is declared dead (`--heartbeat-misses`);
    /// at least 1.
    public var allowedMisses: Int

    /// A heartbeat every 5 s unless another interval is given.
    public static let defaultInterval: Duration = .seconds(5)
    /// The peer is declared dead after 3 silent intervals unless told otherwise.
    public static let defaultAllowedMisses = 3

    /// A heartbeat that sends `payload` every `interval` and declares the peer dead after
    /// `allowedMisses` intervals with nothing received.
    public init(payload: ByteBuffer, interval: Duration = Self.defaultInterval, allowedMisses: Int = Self.defaultAllowedMisses) {
        self.payload = payload
        self.interval = interval
        self.allowedMisses = allowedMisses
    }
}
