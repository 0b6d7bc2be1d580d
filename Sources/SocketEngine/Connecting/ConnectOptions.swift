import Clocks
import NIOCore
import NIOPosix
import Synchronization

import Glibc

/// How a ``Connector`` connects.
public struct ConnectOptions: Sendable {
    /// `-4` / `-6`.
    public var family: AddressFamilyPreference = .any
    /// `--source`: a local address (or name) to bind, optionally with a port (`ADDR:PORT`, `[v6]:PORT`).
    public var source: String?
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

    /// A ``source`` split into the host (or address) to resolve and the port to bind (0: any):
    /// `ADDR`, `ADDR:PORT`, `[V6]` or `[V6]:PORT`. Checked before anything connects, so that a
    /// mistake is the command line's, reported once, not each connection's.
    public static func sourceHostAndPort(_ source: String) throws(SocketEngineError) -> (host: String, port: Int) {
        let form = "expected ADDRESS[:PORT], e.g. 127.0.0.1 or [::1]:40000"
        if source.hasPrefix("["), let close = source.firstIndex(of: "]") {
            let host = String(source[source.index(after: source.startIndex)..<close])
            let rest = source[source.index(after: close)...]
            if rest.isEmpty { return (host, 0) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (0...65535).contains(port) else {
                throw SocketEngineError(.invalidConfiguration, "invalid source address '\(source)' (\(form))")
            }
            return (host, port)
        }
        guard source.filter({ $0 == ":" }).count == 1, let colon = source.lastIndex(of: ":") else { return (source, 0) }
        guard let port = Int(source[source.index(after: colon)...]), (0...65535).contains(port) else {
            throw SocketEngineError(.invalidConfiguration, "invalid source port in '\(source)' (\(form), a port from 0 to 65535)")
        }
        return (String(source[..<colon]), port)
    }
}
