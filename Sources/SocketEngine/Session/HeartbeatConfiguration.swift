import NIOCore
import Synchronization

/// `--heartbeat PAYLOAD [--heartbeat-interval DUR] [--heartbeat-misses K]`.
public struct HeartbeatConfiguration: Sendable {
    public var payload: ByteBuffer
    public var interval: Duration
    public var allowedMisses: Int

    public init(payload: ByteBuffer, interval: Duration = .seconds(5), allowedMisses: Int = 3) {
        self.payload = payload
        self.interval = interval
        self.allowedMisses = allowedMisses
    }
}
