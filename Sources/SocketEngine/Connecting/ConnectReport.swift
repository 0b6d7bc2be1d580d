import NIOCore
import NIOPosix
import Synchronization

import Glibc

/// What happened while connecting: for `-v` and for `send --json`.
public struct ConnectReport: Sendable {
    /// One connection attempt to one address.
    public struct Attempt: Sendable {
        /// How an attempt ended; `abandoned` when it was still pending as another attempt won or time
        /// ran out.
        public enum Outcome: Sendable, Equatable {
            case connected
            case failed(String)
            case abandoned
        }
        /// The resolved address tried.
        public var address: SocketAddress
        /// When the attempt started, from the start of connecting (after resolution).
        public var startedAfter: Duration
        /// Connected, failed (with the reason), or abandoned.
        public var outcome: Outcome
    }

    /// Every address the name resolved to, after `-4`/`-6` filtering, in attempt order.
    public var resolved: [SocketAddress] = []
    /// Time spent resolving the name (zero for literals and Unix paths).
    public var resolveDuration: Duration = .zero
    /// Every attempt started (Happy Eyeballs may start several at once), in the order they started.
    public var attempts: [Attempt] = []
    /// The address that won.
    package var connectedAddress: SocketAddress?
    /// Through a proxy: the tunnel its handshake opened, and how long that took.
    public var tunnel: TunnelReport?
    /// From the first attempt's start to the winning connect (through a proxy: to the tunnel open).
    public var connectDuration: Duration = .zero
    /// The TLS handshake, for `tls://` and `wss://`.
    public var security: SecurityReport?
    /// ws:// and wss://: the handshake agreed with the server.
    public var webSocket: WebSocketHandshake?
}
