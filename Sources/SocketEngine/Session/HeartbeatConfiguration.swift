import NIOCore
import Synchronization

/// `--heartbeat PAYLOAD [--heartbeat-interval DUR] [--heartbeat-misses K]`.
public struct HeartbeatConfiguration: Sendable {
    public var payload: ByteBuffer
    public var interval: Duration
    public var allowedMisses: Int

    /// A heartbeat every 5 s unless another interval is given.
    public static let defaultInterval: Duration = .seconds(5)
    /// The peer is declared dead after 3 silent intervals unless told otherwise.
    public static let defaultAllowedMisses = 3

    public init(payload: ByteBuffer, interval: Duration = Self.defaultInterval, allowedMisses: Int = Self.defaultAllowedMisses) {
        self.payload = payload
        self.interval = interval
        self.allowedMisses = allowedMisses
    }
}
