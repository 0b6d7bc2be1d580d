import NIOCore
import ProxyProtocol

/// What a ``RelayService`` (`sockctl proxy`) listens on, where it forwards, and how.
///
/// Each admitted client gets its own upstream connection (socat's `fork`); a UDP client — one
/// source address — gets its own flow with its own upstream socket, ended after
/// ``datagramIdleTimeout`` without traffic. The listener side takes ``listenOptions`` (access
/// policy, client limit, the TLS layer that terminates `tls://`, WebSocket policy, the pcap
/// recorder); the upstream side ``connectOptions`` (connect timeout, the TLS layer that
/// originates `tls://` and `wss://`, WebSocket handshake).
public struct RelayConfiguration: Sendable {
    /// Where clients connect.
    public var listen: Endpoint
    /// Where each client's traffic goes.
    public var upstream: Endpoint
    /// How the listener binds and whom it admits.
    public var listenOptions = ListenOptions()
    /// How each upstream connection is made. Its ``ConnectOptions/connectTimeout`` is
    /// `--upstream-connect-timeout`.
    public var connectOptions = ConnectOptions()
    /// Message boundaries on the stream sides (`--framing`): messages are shown whole, faults
    /// count and drop whole messages, and a WebSocket or UDP side gets one message per framed
    /// message. `raw`: a message is whatever one read returned.
    public var framing: Framing = .raw
    /// The largest framed message accepted; a longer one ends that client with an error.
    public var maximumFrameSize = FrameDecoder.defaultMaximumFrameSize
    /// A UDP flow with no datagram either way for this long is closed.
    public var datagramIdleTimeout: Duration = .seconds(60)
    /// Report every forwarded chunk as ``RelayEvent/data(_:_:_:)`` (`--hexdump`, `--json-log`).
    public var reportsData = false
    /// Report every forwarded message as ``RelayEvent/message(_:_:_:)`` (`--print-messages`).
    public var reportsMessages = false
    /// The faults applied from the start; ``RelayService/faults`` changes them while running.
    public var faults: [RelayFault] = []
    /// Whether faults may be added while running (`--control`): without faults and without
    /// this, every chunk is forwarded inline, with no fault checks at all.
    public var faultsCanChange = false
    /// Seeds the chance of every fault (`--fault-seed`), so a run can be repeated; random if nil.
    public var faultSeed: UInt64?
    /// The loop that relays plain byte-stream clients outside the event loop (see
    /// ``EpollRelayLoop``); nil: every client is relayed on the event loop.
    public var epollLoop: EpollRelayLoop?
    /// Each upstream connection begins with a PROXY protocol header of this version carrying
    /// the client's address and the address it connected to (before TLS or a WebSocket
    /// upgrade); nil: none. Stream upstreams only.
    public var sendsProxyProtocol: ProxyProtocolHeader.Version?
    /// The clock latency, stalls, time-based faults, UDP idle timeouts and the summary go by.
    package var clock: EngineClock = .system

    /// A relay from `listen` to `upstream` with the defaults: loopback, at most 100 clients,
    /// a 10 s upstream connect timeout, raw bytes, no faults.
    public init(listen: Endpoint, upstream: Endpoint) {
        self.listen = listen
        self.upstream = upstream
    }
}
