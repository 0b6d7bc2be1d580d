import Clocks
import NIOCore
import NIOPosix
import Synchronization

import Glibc

/// How a listener binds and whom it lets in.
public struct ListenOptions: Sendable {
    /// `--allow` / `--deny`: refused clients are closed on arrival, refused datagrams dropped.
    public var access = AccessPolicy()
    /// At most this many clients at once; later ones are closed on arrival (unless a client
    /// below the minimum rate makes room, see ``slotRules``). `nil`: no limit.
    public var maximumClients: Int? = 100
    /// How long a stream client may hold its place: the handshake timeout, the idle timeout, and
    /// the minimum rate below which a client makes room for a newcomer when the server is full.
    public var slotRules = SlotRules()
    /// Connections the kernel completes before they are accepted. The kernel caps it at
    /// `net.core.somaxconn` (4096 on current Linux); a server under a connection burst (a load
    /// test ramping up) needs the room, or SYNs are dropped and clients wait seconds to retry.
    package var backlog: Int32 = 4096
    /// Receive-buffer limit of each client connection, in bytes (see ``Connection/defaultBufferLimit``).
    public var bufferLimit = Connection.defaultBufferLimit
    /// The TLS layer for `tls://` and `wss://` listeners (nil: those endpoints are refused).
    public var secureTransport: (any SecureTransport)?
    /// Handshake policy, limits and behaviour of `ws://` and `wss://` listeners.
    public var webSocket = WebSocketOptions()
    /// Turns the endpoint's host into the addresses to bind; the system's by default. Not asked when
    /// the endpoint has no host (loopback is bound).
    public var resolver: any HostResolver = SystemResolver()
    /// Sees every byte sent and received (`--hexdump`).
    public var tap: TrafficTap?
    /// Hears every client connection's life (`--record`); WebSocket clients are not recorded.
    public var recorder: ConnectionRecorder?
    /// Stream clients begin with a PROXY protocol header (v1 or v2, from a proxy in front):
    /// the address it carries is the client's in logs and recordings; a client without one, or
    /// with a malformed one, is refused (``ProxyProtocolReceiver``).
    public var acceptsProxyProtocol = false
    package var group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    /// The clock clients' activity, the summary and delayed answers (broadcast, UDP) go by.
    package var clock: EngineClock = .system

    /// The defaults: everyone admitted, at most 100 clients at once, the ``SlotRules`` defaults,
    /// no TLS layer.
    public init() {}
}
