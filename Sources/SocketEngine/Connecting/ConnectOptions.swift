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
    /// Happy Eyeballs: how long an attempt has before the next address is tried too: the
    /// "Connection Attempt Delay" of RFC 8305 §5 (250 ms recommended, at least 100 ms; NIO's
    /// `HappyEyeballs.swift` defaults to 250 ms). sockctl's 300 ms is the product's (SPEC.md:
    /// IPv4 starts 300 ms after IPv6), pinned by HappyEyeballsTimingTests.
    package var attemptDelay: Duration = .milliseconds(300)
    /// Turns the endpoint's host into addresses (`--resolve` puts a ``StaticResolver`` here); the
    /// system's by default.
    public var resolver: any HostResolver = SystemResolver()
    /// Receive-buffer limit of the connection (see ``Connection/defaultBufferLimit``).
    public var bufferLimit: Int = Connection.defaultBufferLimit
    /// `TCP_NODELAY`, on by default: this is an interactive and request/response tool.
    package var noDelay = true
    /// Bytes written first on a stream connection, before TLS or anything else (a PROXY
    /// protocol header: ``PreambleWriter``); nil: none.
    package var preamble: [UInt8]?
    /// Sees every byte sent and received (`--hexdump`).
    public var tap: TrafficTap?
    /// Hears the connection's life (`--record`); WebSocket connections are not recorded.
    public var recorder: ConnectionRecorder?
    /// Event loops to use.
    package var group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    /// The TLS layer for `tls://` and `wss://` endpoints (nil: those endpoints are refused).
    public var secureTransport: (any SecureTransport)?
    /// The proxy each stream connection goes through (nil: none): a tunnel is opened to the
    /// destination first, then TLS, the WebSocket upgrade and the rest run through it.
    public var proxy: ProxyRoute?
    /// Handshake, limits and behaviour of `ws://` and `wss://` connections.
    public var webSocket = WebSocketOptions()
    /// The clock everything that waits in async code goes by: the resolution deadline,
    /// reconnect back-off, heartbeats, idle timeouts, exchange deadlines, activity stamps.
    package var clock: EngineClock = .system

    /// The defaults: any address family, a 10 s connect timeout, the system resolver, no TLS layer.
    public init() {}
}
