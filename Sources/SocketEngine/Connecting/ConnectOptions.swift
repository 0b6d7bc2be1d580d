import Clocks
import NIOCore
import NIOPosix
import Synchronization

import Glibc

/// How a ``Connector`` connects.
public struct ConnectOptions: Sendable {
    /// `-4` / `-6`.
    public var family: AddressFamilyPreference = .any
    /// `--source`: a local address (or name) to bind, optionally with a port.
    public var source: SourceAddress?
    /// `--interface`: bind the socket to this network interface (`SO_BINDTODEVICE`).
    public var interface: String?
    /// Overall deadline for resolving and connecting, across all addresses.
    public var connectTimeout: Duration = .seconds(10)
    /// Happy Eyeballs connection attempt delay.
    package var attemptDelay: Duration = .milliseconds(300)
    /// Turns the endpoint's host into addresses (`--resolve` puts a ``StaticResolver`` here); the
    /// system's by default.
    public var resolver: any HostResolver = SystemResolver()
    /// Receive-buffer limit of the connection (see ``Connection/defaultBufferLimit``).
    public var bufferLimit: Int = Connection.defaultBufferLimit
    /// `TCP_NODELAY`, on by default: this is an interactive and request/response tool.
    package var noDelay = true
    /// Sees every byte sent and received (`--hexdump`).
    public var tap: TrafficTap?
    /// Hears the connection's life (`--record`); WebSocket connections are not recorded.
    public var recorder: ConnectionRecorder?
    /// Event loops to use.
    package var group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    /// The TLS layer for `tls://` and `wss://` endpoints (nil: those endpoints are refused).
    public var secureTransport: (any SecureTransport)?
    /// Handshake, limits and behaviour of `ws://` and `wss://` connections.
    public var webSocket = WebSocketOptions()
    /// The clock everything that waits in async code goes by: the resolution deadline,
    /// reconnect back-off, heartbeats, idle timeouts, exchange deadlines, activity stamps.
    package var clock: EngineClock = .system

    /// The defaults: any address family, a 10 s connect timeout, the system resolver, no TLS layer.
    public init() {}
}
