import NIOCore
import Synchronization

import Glibc

/// Which way bytes went.
public enum TrafficDirection: Sendable {
    case sent
    case received
}

/// Bytes crossing one connection, as seen by a ``TrafficTap``.
public struct TrafficRecord: Sendable {
    /// Whether the bytes were sent or received.
    public let direction: TrafficDirection
    /// The chunk itself: as queued for sending, or as one read returned it.
    public let bytes: ByteBuffer
    /// The connection's label (peer address or socket path).
    public let connection: String
}

/// Observes every chunk a connection sends (when queued) and receives (when read), on the
/// connection's event loop: keep it quick.
public typealias TrafficTap = @Sendable (TrafficRecord) -> Void
